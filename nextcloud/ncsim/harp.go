package ncsim

import (
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
)

// HaRP, the ExApp proxy AppAPI recommends from Nextcloud 32, is simulated
// at <BaseURL>/exapps/<appid>/<path>, where a reverse proxy normally hands
// /exapps/ to HaRP. Behaviour follows nextcloud/HaRP haproxy_agent.py
// (_exapps_msg, nc_get_user) and haproxy.cfg.template at 185217eb; the
// user lookup is AppAPI's HarpController::getUserInfo.

// harpPrefix is where the reverse proxy sends requests to HaRP.
const harpPrefix = "/exapps/"

// harpUserInfoPath is AppAPI's route HaRP asks for the caller's user.
const harpUserInfoPath = "/index.php/apps/app_api/harp/user-info"

// harpUser is HarpController::getUserInfo's answer.
type harpUser struct {
	UserID      string      `json:"user_id"`
	AccessLevel AccessLevel `json:"access_level"`
}

// handleHaRP serves /exapps/<appid>/<path> as HaRP does for browsers and
// other clients (AppAPI's own signed calls are sent to the app directly
// by the simulator). Unlike the AppAPI proxy it ignores verbs and
// headers_to_exclude, matches routes with Python's re.match on the path
// with its leading slash, answers 403 when the first matching route's
// access level is not met, and drops the connection without an answer
// for "..", /heartbeat, /init and /enabled.
func (s *Server) handleHaRP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.EscapedPath()
	if dotDotSegment.MatchString(path) {
		s.harpDrop(w, r, "parent-directory segment")
		return
	}
	appID, target, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, harpPrefix), "/")
	target = "/" + target
	ref, ok := s.exAppRef(appID)
	if appID == "" || !ok || !ref.enabled {
		harpAnswer(w, http.StatusNotFound, "404 Not Found")
		return
	}
	switch target {
	case "/heartbeat", "/init", "/enabled":
		s.harpDrop(w, r, "only AppAPI may call "+target)
		return
	}
	var user *harpUser
	// pass_cookie is the Nextcloud session cookie (req.cook(
	// 'oc_sessionPassphrase') in spoe-agent.conf; the simulator's session
	// cookie stands in for it). "We also pass requests with
	// "authorization" to the Nextcloud to support App Passwords and Basic
	// Auth." HaRP's short per-cookie cache of the answer is not simulated.
	if c, err := r.Cookie(sessionCookie); (err == nil && c.Value != "") || r.Header.Get("Authorization") != "" {
		user = s.harpUserInfo(r, appID)
	}
	route, found := s.harpRoute(appID, target)
	if !found {
		harpAnswer(w, http.StatusNotFound, "404 Not Found")
		return
	}
	if route.AccessLevel != AccessPublic && (user == nil || route.AccessLevel > user.AccessLevel) {
		harpAnswer(w, http.StatusForbidden, "403 Forbidden")
		return
	}
	body, err := proxyBody(r)
	if err != nil {
		http.Error(w, "Request body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	uid := ""
	if user != nil {
		uid = user.UserID
	}
	header := r.Header.Clone()
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	resp, cancel, err := s.callExApp(r.Context(), ref, exAppCall{
		method: r.Method, route: target, uid: uid, header: header, host: r.Host, body: body, harp: true,
	})
	if err != nil {
		s.logf("ncsim: harp %s: %v", appID, err)
		harpAnswer(w, http.StatusServiceUnavailable, "503 Service Unavailable")
		return
	}
	defer cancel()
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// harpAnswer is HAProxy's "http-request return ... content-type text/plain".
func harpAnswer(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text))
}

// harpDrop is HAProxy's silent-drop: the connection closes unanswered.
func (s *Server) harpDrop(w http.ResponseWriter, r *http.Request, why string) {
	s.logf("ncsim: harp drops %s %s: %s", r.Method, r.URL.Path, why)
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			_ = c.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// harpRoute is the route loop of _exapps_msg: re.match(route.url,
// target_path) in order; the first match decides, whatever the verb.
func (s *Server) harpRoute(appID, target string) (Route, bool) {
	s.mu.Lock()
	a, ok := s.apps[appID]
	var routes []Route
	if ok {
		routes = append(routes, a.routes...)
	}
	s.mu.Unlock()
	for _, rt := range routes {
		re, err := regexp.Compile(`^(?:` + rt.URL + `)`)
		if err != nil {
			continue // HaRP logs "Invalid regex" and goes on
		}
		if re.MatchString(target) {
			return rt, true
		}
	}
	return Route{}, false
}

// harpUserInfo is nc_get_user: HaRP asks Nextcloud's user-info route with
// the caller's headers (minus Host and Content-Length) and its shared key;
// a 4xx answer means no user.
func (s *Server) harpUserInfo(r *http.Request, appID string) *harpUser {
	req := httptest.NewRequest(http.MethodGet, harpUserInfoPath+"?appId="+url.QueryEscape(appID), nil)
	for k, vs := range r.Header {
		switch strings.ToLower(k) {
		case "host", "content-length":
			continue
		}
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("Harp-Shared-Key", s.harpKey())
	req.RemoteAddr = r.RemoteAddr
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return nil
	}
	var u harpUser
	if err := json.Unmarshal(rec.Body.Bytes(), &u); err != nil {
		return nil
	}
	return &u
}

// handleHaRPUserInfo serves GET /index.php/apps/app_api/harp/user-info
// (HarpController::getUserInfo, a #[PublicPage]): with HaRP's shared key it
// answers the logged-in user and their access level, or user "" with
// PUBLIC when no login succeeded (an unknown Bearer token among them).
func (s *Server) handleHaRPUserInfo(w http.ResponseWriter, r *http.Request) {
	appID := r.URL.Query().Get("appId")
	key := r.Header.Get("Harp-Shared-Key")
	_, known := s.exAppRef(appID)
	if !known || key == "" || subtle.ConstantTimeCompare([]byte(key), []byte(s.harpKey())) != 1 {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"message":"Harp shared key is not valid"}`))
		return
	}
	p := s.authenticate(r)
	u := harpUser{AccessLevel: AccessPublic}
	if p.hasUser() {
		u.UserID, u.AccessLevel = p.uid, AccessUser
		if s.isAdmin(p.uid) {
			u.AccessLevel = AccessAdmin
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(u)
}

// harpKey returns HaRPSharedKey, generating one on first use.
func (s *Server) harpKey() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.HaRPSharedKey == "" {
		s.HaRPSharedKey = randomToken(32)
	}
	return s.HaRPSharedKey
}
