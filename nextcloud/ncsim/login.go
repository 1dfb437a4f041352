package ncsim

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim/shell"
)

// handleLoginPage serves GET /index.php/login: the login form, or a
// redirect for a user who is already logged in.
func (s *Server) handleLoginPage(w http.ResponseWriter, r *http.Request) {
	redirect := r.URL.Query().Get("redirect_url")
	if uid, ok := s.sessionUser(r); ok && uid != "" {
		http.Redirect(w, r, safeRedirect(redirect), http.StatusSeeOther)
		return
	}
	s.writeLogin(w, http.StatusOK, shell.Login{Redirect: redirect, User: r.URL.Query().Get("user")})
}

func (s *Server) writeLogin(w http.ResponseWriter, status int, p shell.Login) {
	p.Token = randomNonce()
	shell.WriteLogin(w, status, p)
}

// handleLogin serves POST /index.php/login (user, password, redirect_url).
// The login password and the app password are both accepted, as
// Session::login does. Success sets the nc_session_id cookie and redirects
// to redirect_url when it is a local path.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	uid, pw, redirect := r.PostForm.Get("user"), r.PostForm.Get("password"), r.PostForm.Get("redirect_url")
	if !s.checkPassword(uid, pw, true) {
		s.registerAttempt(clientIP(r), throttleLogin)
		s.logf("ncsim: failed web login for %q", uid)
		s.writeLogin(w, http.StatusOK, shell.Login{Redirect: redirect, User: uid, Error: "Wrong login or password."})
		return
	}
	s.resetAttempts(clientIP(r), throttleLogin)
	s.LoginCookie(w, uid)
	http.Redirect(w, r, safeRedirect(redirect), http.StatusSeeOther)
}

// LoginCookie opens a web session for uid and sets its nc_session_id
// cookie on w, as a successful login does. It panics if uid is unknown.
func (s *Server) LoginCookie(w http.ResponseWriter, uid string) {
	http.SetCookie(w, s.NewSession(uid))
}

// NewSession opens a web session for uid and returns its cookie, for tests
// and tools that drive pages without the login form. It panics if uid is
// unknown.
func (s *Server) NewSession(uid string) *http.Cookie {
	s.init()
	if !s.userExists(uid) {
		panic("ncsim: NewSession: no user " + uid)
	}
	token := randomNonce()
	s.mu.Lock()
	s.sessions[token] = uid
	s.mu.Unlock()
	s.logf("ncsim: web login of %s", uid)
	return &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode}
}

// safeRedirect accepts local paths only; anything else goes to Files.
func safeRedirect(u string) string {
	if strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") && !strings.HasPrefix(u, `/\`) {
		return u
	}
	return "/index.php/apps/files/"
}

// handleLogout serves GET /index.php/logout: it ends the session.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.mu.Lock()
		delete(s.sessions, c.Value)
		s.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true})
	http.Redirect(w, r, "/index.php/login?clear=1", http.StatusSeeOther)
}

// handleRoot serves GET / and /index.php/: Files for a logged-in user,
// the login page otherwise.
func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.requireLogin(w, r); ok {
		http.Redirect(w, r, "/index.php/apps/files/", http.StatusSeeOther)
	}
}

// handleWellKnown serves GET /.well-known/...: core's WellKnownController
// (route ".well-known/{service}" in core/routes.php) answers a service no
// app handles with 404 {"message": "<service> not supported"} and the
// header X-NEXTCLOUD-WELL-KNOWN: 1; a longer path matches no route and
// gets the plain 404 page. So OAuth discovery URLs with the issuer's path
// inserted after /.well-known/ (RFC 8414, OIDC) find nothing here, as on
// a real server without an OIDC app.
func (s *Server) handleWellKnown(w http.ResponseWriter, r *http.Request) {
	service := strings.TrimPrefix(r.URL.Path, "/.well-known/")
	if service == "" || strings.Contains(service, "/") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("X-NEXTCLOUD-WELL-KNOWN", "1")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": service + " not supported"})
}
