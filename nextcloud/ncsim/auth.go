package ncsim

import (
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"strings"
)

// authKind says how a request authenticated.
type authKind int

const (
	authNone    authKind = iota // anonymous
	authAppAPI                  // AppAPI headers of an ExApp (user may be "")
	authBasic                   // Basic with login or app password
	authBearer                  // Bearer with an app password
	authSession                 // web session cookie
)

// principal is the result of authenticating a request the way
// OC::handleLogin does: AppAPI first, then token, session and Basic.
type principal struct {
	kind  authKind
	uid   string // "" for anonymous and for ExApps acting without a user
	appID string // set for authAppAPI
	// failed is set when credentials were presented but were wrong; such a
	// request is treated as anonymous (and throttled), as Nextcloud does.
	failed bool
	// appAPIError is why AppAPI auth failed, for AppAPI's own endpoints.
	appAPIError string
}

func (p principal) loggedIn() bool {
	return p.kind != authNone && !p.failed && (p.uid != "" || p.kind == authAppAPI)
}

const sessionCookie = "nc_session_id"

// authenticate identifies the caller of r.
func (s *Server) authenticate(r *http.Request) principal {
	if h := r.Header.Get("AUTHORIZATION-APP-API"); h != "" {
		return s.authAppAPI(r, h)
	}
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, rest, _ := strings.Cut(h, " ")
		switch strings.ToLower(scheme) {
		case "basic":
			raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
			if err != nil {
				return principal{kind: authBasic, failed: true}
			}
			uid, pw, _ := strings.Cut(string(raw), ":")
			if s.checkPassword(uid, pw, true) {
				return principal{kind: authBasic, uid: uid}
			}
			return principal{kind: authBasic, failed: true}
		case "bearer":
			if uid, ok := s.uidForAppPassword(strings.TrimSpace(rest)); ok {
				return principal{kind: authBearer, uid: uid}
			}
			return principal{kind: authBearer, failed: true}
		}
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.mu.Lock()
		uid, ok := s.sessions[c.Value]
		s.mu.Unlock()
		if ok {
			return principal{kind: authSession, uid: uid}
		}
	}
	return principal{}
}

// authAppAPI follows AppAPIService::validateExAppRequestToNC.
func (s *Server) authAppAPI(r *http.Request, header string) principal {
	fail := func(why string) principal {
		s.logf("ncsim: AppAPI auth failed for %s: %s", r.URL.Path, why)
		return principal{kind: authAppAPI, failed: true, appAPIError: why}
	}
	appID := r.Header.Get("EX-APP-ID")
	if appID == "" {
		return fail("missing EX-APP-ID")
	}
	s.mu.Lock()
	app, ok := s.apps[appID]
	var secret, version string
	var enabled, installing bool
	if ok {
		secret, version, enabled, installing = app.Secret, app.Version, app.Enabled, app.installing()
	}
	s.mu.Unlock()
	if !ok {
		return fail("unknown app " + appID)
	}
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		return fail("malformed AUTHORIZATION-APP-API")
	}
	uid, sec, found := strings.Cut(string(raw), ":")
	if !found || subtle.ConstantTimeCompare([]byte(sec), []byte(secret)) != 1 {
		return fail("wrong secret")
	}
	if !enabled {
		p := r.URL.Path
		allowed := strings.HasSuffix(p, "/apps/app_api/ex-app/state") ||
			(installing && strings.HasSuffix(p, "/apps/app_api/ex-app/status"))
		if !allowed {
			return fail("app disabled")
		}
	}
	if r.Header.Get("EX-APP-VERSION") == "" {
		return fail("empty EX-APP-VERSION")
	}
	_ = version
	if uid != "" && !s.userExists(uid) {
		return fail("unknown user " + uid)
	}
	return principal{kind: authAppAPI, uid: uid, appID: appID}
}

func (s *Server) checkPassword(uid, pw string, allowAppPassword bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[uid]
	if !ok {
		return false
	}
	if subtle.ConstantTimeCompare([]byte(pw), []byte(u.password)) == 1 {
		return true
	}
	return allowAppPassword && subtle.ConstantTimeCompare([]byte(pw), []byte(u.appPassword)) == 1
}

func (s *Server) uidForAppPassword(token string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for uid, u := range s.users {
		if subtle.ConstantTimeCompare([]byte(token), []byte(u.appPassword)) == 1 {
			return uid, true
		}
	}
	return "", false
}

// clientIP returns the remote address without the port.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
