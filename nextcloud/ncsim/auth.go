package ncsim

import (
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"strings"
	"time"
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

// loggedIn reports whether the caller is a user or an ExApp (with or
// without a user).
func (p principal) loggedIn() bool {
	return p.kind != authNone && !p.failed && (p.uid != "" || p.kind == authAppAPI)
}

// hasUser reports whether a Nextcloud user is logged in (the session user
// Nextcloud would see); an ExApp acting without a user has none.
func (p principal) hasUser() bool { return p.loggedIn() && p.uid != "" }

// exApp reports whether the caller passed AppAPI authentication.
func (p principal) exApp() bool { return p.kind == authAppAPI && !p.failed }

const sessionCookie = "nc_session_id"

// Brute-force throttle actions, as Nextcloud's IThrottler names them.
const (
	throttleAppAPI = "app_api"
	throttleLogin  = "login"
)

// authenticate identifies the caller of r. Call it once per request: wrong
// credentials count as a brute-force attempt. AppAPI auth is tried first;
// when it fails, the other login methods still run (OC::handleLogin).
func (s *Server) authenticate(r *http.Request) principal {
	if h := r.Header.Get("AUTHORIZATION-APP-API"); h != "" {
		p := s.authAppAPI(r, h)
		if p.exApp() {
			return p
		}
		if other := s.authenticateUser(r); other.kind != authNone {
			return other
		}
		return p
	}
	return s.authenticateUser(r)
}

// authenticateUser tries Basic, Bearer and the session cookie.
func (s *Server) authenticateUser(r *http.Request) principal {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, rest, _ := strings.Cut(h, " ")
		switch strings.ToLower(scheme) {
		case "basic":
			raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
			if err != nil {
				s.registerAttempt(clientIP(r), throttleLogin)
				return principal{kind: authBasic, failed: true}
			}
			uid, pw, _ := strings.Cut(string(raw), ":")
			if s.checkPassword(uid, pw, true) {
				return principal{kind: authBasic, uid: uid}
			}
			s.registerAttempt(clientIP(r), throttleLogin)
			return principal{kind: authBasic, failed: true}
		case "bearer":
			// Session::tryTokenLogin: "Bearer <token>" logs in when the
			// token is an app password (or another token Nextcloud issued).
			// An unknown token makes loginWithToken return false: no
			// exception, no brute-force attempt; the request simply goes on
			// without a user, so a PUBLIC proxy route still reaches the
			// ExApp (server lib/private/User/Session.php, lib/base.php
			// handleLogin).
			if uid, ok := s.uidForAppPassword(strings.TrimSpace(rest)); ok {
				return principal{kind: authBearer, uid: uid}
			}
			return principal{}
		}
	}
	if uid, ok := s.sessionUser(r); ok {
		return principal{kind: authSession, uid: uid}
	}
	return principal{}
}

func (s *Server) sessionUser(r *http.Request) (string, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	uid, ok := s.sessions[c.Value]
	if ok {
		if _, exists := s.users[uid]; !exists {
			return "", false
		}
	}
	return uid, ok
}

// authAppAPI follows AppAPIService::validateExAppRequestToNC: app lookup,
// secret, enabled state (ex-app/state is exempt, and ex-app/status while
// installing), EX-APP-VERSION, then the user.
func (s *Server) authAppAPI(r *http.Request, header string) principal {
	fail := func(why string) principal {
		s.logf("ncsim: AppAPI auth failed for %s: %s", r.URL.Path, why)
		return principal{kind: authAppAPI, failed: true, appAPIError: why}
	}
	ip := clientIP(r)
	appID := r.Header.Get("EX-APP-ID")
	if appID == "" {
		return fail("missing EX-APP-ID")
	}
	s.mu.Lock()
	app, ok := s.apps[appID]
	var secret, version string
	var enabled, installing bool
	if ok {
		secret, version, enabled, installing = app.secret, app.version, app.enabled, app.installing()
	}
	s.mu.Unlock()
	if !ok {
		s.registerAttempt(ip, throttleAppAPI) // protects the list of installed apps
		return fail("unknown app " + appID)
	}
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		return fail("malformed AUTHORIZATION-APP-API")
	}
	uid, sec, found := strings.Cut(string(raw), ":")
	if !found || subtle.ConstantTimeCompare([]byte(sec), []byte(secret)) != 1 {
		s.registerAttempt(ip, throttleAppAPI)
		return fail("wrong secret")
	}
	if !enabled {
		p := strings.TrimSuffix(r.URL.Path, "/")
		allowed := strings.HasSuffix(p, "/apps/app_api/ex-app/state") ||
			(installing && strings.HasSuffix(p, "/apps/app_api/ex-app/status"))
		if !allowed {
			return fail("app disabled")
		}
	}
	got := r.Header.Get("EX-APP-VERSION")
	if got == "" {
		return fail("empty EX-APP-VERSION")
	}
	if versionGreater(got, version) {
		s.mu.Lock()
		if a, ok := s.apps[appID]; ok {
			a.version = got
		}
		s.mu.Unlock()
	}
	if uid != "" && !s.userExists(uid) {
		return fail("unknown user " + uid)
	}
	s.resetAttempts(ip, throttleAppAPI)
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

// throttleAction names the brute-force bucket a request's credentials fall
// in, or "" when it presents none.
func throttleAction(r *http.Request) string {
	switch {
	case r.Header.Get("AUTHORIZATION-APP-API") != "":
		return throttleAppAPI
	case strings.HasPrefix(strings.ToLower(r.Header.Get("Authorization")), "basic "):
		// Only password logins are throttled (Session::logClientIn);
		// token logins are not.
		return throttleLogin
	case r.Method == http.MethodPost && strings.TrimSuffix(r.URL.Path, "/") == "/index.php/login":
		return throttleLogin
	}
	return ""
}

// throttleLogin applies Nextcloud's brute-force protection to a request
// that presents credentials: it waits base*2^attempts (capped), and once
// the IP has more than ThrottleMaxAttempts failures it answers 429 and
// reports false.
func (s *Server) throttleLogin(w http.ResponseWriter, r *http.Request) bool {
	action := throttleAction(r)
	if action == "" {
		return true
	}
	n := s.attempts(clientIP(r), action)
	if n == 0 {
		return true
	}
	if n > s.throttleMaxAttempts() {
		s.logf("ncsim: throttled %s %s from %s after %d failures", r.Method, r.URL.Path, clientIP(r), n)
		if strings.HasPrefix(r.URL.Path, "/ocs/") {
			writeOCS(w, r, http.StatusTooManyRequests, "Reached maximum delay", nil)
			return false
		}
		http.Error(w, "Reached maximum delay", http.StatusTooManyRequests)
		return false
	}
	t := time.NewTimer(s.throttleDelay(n))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// throttleDelay is the wait after n failed attempts: base*2^n, capped.
func (s *Server) throttleDelay(n int) time.Duration {
	limit := s.throttleMaxDelay()
	if n >= 30 {
		return limit
	}
	if d := s.throttleBaseDelay() << n; d < limit {
		return d
	}
	return limit
}

func throttleKey(ip, action string) string { return action + "|" + ip }

func (s *Server) registerAttempt(ip, action string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks.throttle[throttleKey(ip, action)]++
}

func (s *Server) resetAttempts(ip, action string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.hooks.throttle, throttleKey(ip, action))
}

func (s *Server) attempts(ip, action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hooks.throttle[throttleKey(ip, action)]
}

// versionGreater reports whether version a is greater than b, comparing
// dot-separated numeric parts the way PHP's version_compare mostly does.
func versionGreater(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y string
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		nx, okx := atoiPrefix(x)
		ny, oky := atoiPrefix(y)
		switch {
		case okx && oky && nx != ny:
			return nx > ny
		case !okx || !oky:
			if x != y {
				return x > y
			}
		}
	}
	return false
}

// atoiPrefix parses a non-empty run of digits.
func atoiPrefix(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
		if n > 1<<30 {
			return n, true
		}
	}
	return n, true
}
