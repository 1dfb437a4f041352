package ncsim

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func aaPostForm(t *testing.T, target string, form url.Values) *http.Response {
	t.Helper()
	resp, err := aaNoRedirect.PostForm(target, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func aaSessionCookie(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie && c.Value != "" {
			return c
		}
	}
	return nil
}

func TestLoginFlow(t *testing.T) {
	s, ts := aaServer(t)
	aaPageApp(t, s, ts.URL)
	login := ts.URL + "/index.php/login"

	resp, body := aaProxyDo(t, http.MethodGet, login+"?redirect_url=/x", nil, "")
	if resp.StatusCode != 200 || !strings.Contains(body, `name="user"`) || !strings.Contains(body, `name="password"`) ||
		!strings.Contains(body, `name="redirect_url" value="/x"`) {
		t.Fatalf("login page = %d\n%s", resp.StatusCode, body)
	}

	resp = aaPostForm(t, login, url.Values{"user": {"bob"}, "password": {"wrong"}})
	if resp.StatusCode != 200 || aaSessionCookie(resp) != nil {
		t.Errorf("wrong password = %d, cookie %v", resp.StatusCode, aaSessionCookie(resp))
	}

	page := "/index.php/apps/app_api/embedded/hybrid_search/main"
	tests := []struct {
		name, password, redirect, wantLoc string
	}{
		{"login password, local redirect", "bob", page, page},
		{"foreign redirect is ignored", "bob", "https://evil.example/", "/index.php/apps/files/"},
		{"protocol-relative redirect is ignored", "bob", "//evil.example/", "/index.php/apps/files/"},
		{"app password", aaAppPassword(t, s, "bob"), "", "/index.php/apps/files/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := aaPostForm(t, login, url.Values{"user": {"bob"}, "password": {tt.password}, "redirect_url": {tt.redirect}})
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != tt.wantLoc {
				t.Errorf("login = %d to %q, want 303 to %q", resp.StatusCode, resp.Header.Get("Location"), tt.wantLoc)
			}
			if c := aaSessionCookie(resp); c == nil || !c.HttpOnly || c.Path != "/" {
				t.Errorf("session cookie = %v", c)
			}
		})
	}

	resp = aaPostForm(t, login, url.Values{"user": {"bob"}, "password": {"bob"}, "redirect_url": {page}})
	cookie := http.Header{"Cookie": {aaSessionCookie(resp).String()}}
	if resp, body := aaProxyDo(t, http.MethodGet, ts.URL+page, cookie, ""); resp.StatusCode != 200 || !strings.Contains(body, `data-user="bob"`) {
		t.Errorf("page after login = %d", resp.StatusCode)
	}
	if resp, _ := aaProxyDo(t, http.MethodGet, login, cookie, ""); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("login page when logged in = %d, want a redirect", resp.StatusCode)
	}
	resp, _ = aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/files/", cookie, "")
	if resp.StatusCode != 200 {
		t.Errorf("files page = %d", resp.StatusCode)
	}
	if resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+"/", cookie, ""); resp.Header.Get("Location") != "/index.php/apps/files/" {
		t.Errorf("/ when logged in redirects to %q", resp.Header.Get("Location"))
	}
	resp, _ = aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/logout", cookie, "")
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("logout = %d", resp.StatusCode)
	}
	if resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+page, cookie, ""); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("page after logout = %d, want a redirect to login", resp.StatusCode)
	}
}

// aaAppPassword returns uid's app password.
func aaAppPassword(t *testing.T, s *Server, uid string) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.users[uid].appPassword
}

func TestCoreEndpoints(t *testing.T) {
	s, ts := aaServer(t)
	resp, body := aaProxyDo(t, http.MethodGet, ts.URL+"/status.php", nil, "")
	want := `{"installed":true,"maintenance":false,"needsDbUpgrade":false,"version":"34.0.0.0","versionstring":"34.0.0","edition":"","productname":"Nextcloud","extendedSupport":false}`
	if resp.StatusCode != 200 || body != want {
		t.Errorf("status.php = %d %s", resp.StatusCode, body)
	}
	caps := aaDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/cloud/capabilities", nil, nil)
	if caps.HTTPStatus != 200 || !strings.Contains(string(caps.Data), `"version":{"major":34,"minor":0,"micro":0,"string":"34.0.0"`) {
		t.Errorf("capabilities = %d %s", caps.HTTPStatus, caps.Data)
	}
	if got := aaDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/cloud/users", aaBasic("alice", "alice"), nil); string(got.Data) != `{"users":["alice","bob"]}` {
		t.Errorf("cloud/users as admin = %s", got.Data)
	}
	if got := aaDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/cloud/users", aaBasic("bob", "bob"), nil); got.HTTPStatus != 403 {
		t.Errorf("cloud/users as bob = %d", got.HTTPStatus)
	}
	me := aaDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/cloud/user", aaBasic("alice", "alice"), nil)
	if !strings.Contains(string(me.Data), `"id":"alice"`) || !strings.Contains(string(me.Data), `"groups":["admin"]`) ||
		!strings.Contains(string(me.Data), `"display-name":"Alice A."`) {
		t.Errorf("cloud/user = %s", me.Data)
	}
	if resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/apps/unknown/x", nil, ""); resp.StatusCode != 501 {
		t.Errorf("unknown route = %d, want 501", resp.StatusCode)
	}
	if u := s.Unhandled(); len(u) != 1 || u[0] != "GET /ocs/v2.php/apps/unknown/x" {
		t.Errorf("Unhandled = %v", u)
	}
}

// TestWellKnown: Nextcloud's /.well-known/ answers what no app serves with
// 404, also for the path-inserted OAuth discovery URLs.
func TestWellKnown(t *testing.T) {
	s := &Server{}
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration/index.php/apps/app_api/proxy/x", "/.well-known/oauth-protected-resource/index.php/apps/app_api/proxy/x/mcp"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, rec.Code)
		}
	}
	if u := s.Unhandled(); len(u) != 0 {
		t.Errorf("unhandled: %v", u)
	}
}
