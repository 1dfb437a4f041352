package ncsim

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
)

type user struct {
	uid         string
	displayName string
	password    string
	appPassword string
	admin       bool
	groups      []string
	prefs       map[string]map[string]string // app -> key -> value (SetUserValue)
}

// User describes a simulated user.
type User struct {
	UID         string
	DisplayName string
	Admin       bool
	Password    string // login password (web login and Basic auth)
	AppPassword string // app password (Basic or Bearer)
}

// AddUser creates a user with a home folder and returns it with a freshly
// generated app password. The login password equals the uid. It panics if
// the user exists or uid is invalid.
func (s *Server) AddUser(uid, displayName string, admin bool) User {
	s.init()
	if uid == "" || len(uid) > 64 {
		panic(fmt.Sprintf("ncsim: AddUser: invalid uid %q", uid))
	}
	// Nextcloud allows a-z, A-Z, 0-9, space and _.@-' in a uid, without
	// surrounding space and not "." or ".." ([SRV] lib/private/User/
	// Manager.php validateUserId, NC 26+).
	if strings.TrimSpace(uid) != uid || uid == "." || uid == ".." {
		panic(fmt.Sprintf("ncsim: AddUser: invalid uid %q", uid))
	}
	for _, c := range uid {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(" _.@-'", c)) {
			panic(fmt.Sprintf("ncsim: AddUser: invalid uid %q", uid))
		}
	}
	if displayName == "" {
		displayName = uid
	}
	s.mu.Lock()
	if _, ok := s.users[uid]; ok {
		s.mu.Unlock()
		panic(fmt.Sprintf("ncsim: AddUser: user %q exists", uid))
	}
	u := &user{uid: uid, displayName: displayName, password: uid, appPassword: randomToken(72), admin: admin}
	if admin {
		u.groups = []string{"admin"}
	}
	s.users[uid] = u
	s.mu.Unlock()
	s.createHome(uid)
	s.logf("ncsim: added user %s", uid)
	return User{UID: uid, DisplayName: displayName, Admin: admin, Password: u.password, AppPassword: u.appPassword}
}

// Users returns the uids of all users, sorted.
func (s *Server) Users() []string {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.users))
	for uid := range s.users {
		out = append(out, uid)
	}
	sort.Strings(out)
	return out
}

func (s *Server) userExists(uid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.users[uid]
	return ok
}

func (s *Server) displayName(uid string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u, ok := s.users[uid]; ok {
		return u.displayName
	}
	return uid
}

func (s *Server) isAdmin(uid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[uid]
	return ok && u.admin
}

// randomToken returns n random characters from the base64 alphabet
// (A-Za-z0-9+/), the charset of ISecureRandom::generate.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// randomBytes returns n bytes from crypto/rand.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return b
}
