package ncsim

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// aaPageApp registers UI for hybrid_search: a user entry "main" with a
// script, a style and an initial state, and an admin-only entry "admin".
func aaPageApp(t *testing.T, s *Server, baseURL string) Env {
	t.Helper()
	f := aaNewFakeApp(t, nil)
	env := aaRegister(t, s, f)
	aaEnable(t, s, "hybrid_search")
	ui := baseURL + "/ocs/v1.php/apps/app_api/api/v1/ui/"
	h := aaAppHeader(env, "")
	for path, body := range map[string]map[string]any{
		"top-menu":      {"name": "main", "displayName": "Hybrid Search", "icon": "img/app.svg"},
		"script":        {"type": "top_menu", "name": "main", "path": "js/app-main"},
		"style":         {"type": "top_menu", "name": "main", "path": "css/style"},
		"initial-state": {"type": "top_menu", "name": "main", "key": "config", "value": map[string]any{"a": 1}},
	} {
		if got := aaDo(t, http.MethodPost, ui+path, h, body); got.StatusCode != 100 {
			t.Fatalf("register %s: %+v", path, got)
		}
	}
	aaDo(t, http.MethodPost, ui+"top-menu", h, map[string]any{"name": "admin", "displayName": "Search admin", "adminRequired": 1})
	return env
}

func TestEmbeddedPage(t *testing.T) {
	s, ts := aaServer(t)
	aaPageApp(t, s, ts.URL)
	page := ts.URL + "/index.php/apps/app_api/embedded/hybrid_search/main"
	bob := http.Header{"Cookie": {s.NewSession("bob").String()}}
	alice := http.Header{"Cookie": {s.NewSession("alice").String()}}

	resp, _ := aaProxyDo(t, http.MethodGet, page, nil, "")
	wantLoc := "/index.php/login?redirect_url=" + url.QueryEscape("/index.php/apps/app_api/embedded/hybrid_search/main")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != wantLoc {
		t.Errorf("anonymous = %d %q, want 303 to %s", resp.StatusCode, resp.Header.Get("Location"), wantLoc)
	}

	resp, body := aaProxyDo(t, http.MethodGet, page, bob, "")
	if resp.StatusCode != 200 {
		t.Fatalf("page as bob = %d", resp.StatusCode)
	}
	nonce := regexp.MustCompile(`<script nonce="([^"]+)" defer src=`).FindStringSubmatch(body)
	if nonce == nil {
		t.Fatalf("no deferred script with a nonce:\n%s", body)
	}
	wants := []string{
		`<head data-user="bob" data-user-displayname="Bob B." data-requesttoken="`,
		`window._oc_webroot = "";`,
		fmt.Sprintf(`<script nonce="%s" defer src="/index.php/apps/app_api/proxy/hybrid_search/js/app-main.js"></script>`, nonce[1]),
		`<link rel="stylesheet" href="/index.php/apps/app_api/proxy/hybrid_search/css/style.css">`,
		`<input type="hidden" id="initial-state-app_api-config" value="eyJhIjoxfQ==">`,
		`<a id="app_api_hybrid_search_main" href="/index.php/apps/app_api/embedded/hybrid_search/main" class="active" aria-current="page"><img src="/index.php/apps/app_api/proxy/hybrid_search/img/app.svg"`,
		`<main id="content" class="app-app_api">`,
		`<div id="content"></div>`,
		`"modRewriteWorking":false`,
	}
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("page lacks %s", w)
		}
	}
	if strings.Contains(body, "app_api_hybrid_search_admin") {
		t.Error("admin-only entry shown to bob")
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "'nonce-"+nonce[1]+"'") {
		t.Errorf("CSP %q lacks the page nonce", csp)
	}

	cases := []struct {
		name   string
		path   string
		header http.Header
		want   int
	}{
		{"sub-path", page + "/files/12", bob, 200},
		{"admin entry as user", ts.URL + "/index.php/apps/app_api/embedded/hybrid_search/admin", bob, 404},
		{"admin entry as admin", ts.URL + "/index.php/apps/app_api/embedded/hybrid_search/admin", alice, 200},
		{"unknown entry", ts.URL + "/index.php/apps/app_api/embedded/hybrid_search/nope", bob, 404},
		{"unknown app", ts.URL + "/index.php/apps/app_api/embedded/nope/main", bob, 404},
	}
	for _, c := range cases {
		if resp, _ := aaProxyDo(t, http.MethodGet, c.path, c.header, ""); resp.StatusCode != c.want {
			t.Errorf("%s = %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
	if _, body := aaProxyDo(t, http.MethodGet, page, alice, ""); !strings.Contains(body, `id="app_api_hybrid_search_admin"`) {
		t.Error("admin does not see the admin entry")
	}
	s.setEnabled("hybrid_search", false)
	if resp, _ := aaProxyDo(t, http.MethodGet, page, bob, ""); resp.StatusCode != 404 {
		t.Errorf("disabled app page = %d, want 404", resp.StatusCode)
	}
}

func TestEmbeddedPageScriptLimit(t *testing.T) {
	s, ts := aaServer(t)
	env := aaPageApp(t, s, ts.URL)
	for i := 0; i < 10; i++ {
		aaDo(t, http.MethodPost, ts.URL+"/ocs/v1.php/apps/app_api/api/v1/ui/script", aaAppHeader(env, ""),
			map[string]any{"type": "top_menu", "name": "main", "path": fmt.Sprintf("js/chunk%d", i)})
	}
	resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/app_api/embedded/hybrid_search/main",
		http.Header{"Cookie": {s.NewSession("bob").String()}}, "")
	if resp.StatusCode != 500 {
		t.Errorf("11 scripts = %d, want 500", resp.StatusCode)
	}
}

// TestInitialStateSetAgainReplaces: setting an initial state's key again
// replaces its value in place, as app_api's setExAppInitialState does
// (insertOrUpdate on the existing id, v34.0.3), and the next page load
// carries the new value.
func TestInitialStateSetAgainReplaces(t *testing.T) {
	s, ts := aaServer(t)
	env := aaPageApp(t, s, ts.URL)
	before := s.InitialStates("hybrid_search")
	body := map[string]any{"type": "top_menu", "name": "main", "key": "config", "value": map[string]any{"a": 2}}
	if got := aaDo(t, http.MethodPost, ts.URL+"/ocs/v1.php/apps/app_api/api/v1/ui/initial-state", aaAppHeader(env, ""), body); got.StatusCode != 100 {
		t.Fatalf("set again: %+v", got)
	}
	after := s.InitialStates("hybrid_search")
	if len(before) != 1 || len(after) != 1 || after[0].ID != before[0].ID || string(after[0].Value) != `{"a":2}` {
		t.Fatalf("states before %+v, after %+v: want one, same id, the new value", before, after)
	}
	_, page := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/app_api/embedded/hybrid_search/main",
		http.Header{"Cookie": {s.NewSession("bob").String()}}, "")
	if want := `<input type="hidden" id="initial-state-app_api-config" value="eyJhIjoyfQ==">`; !strings.Contains(page, want) {
		t.Errorf("page lacks %s", want)
	}
}

// TestPrettyURLs: with pretty URLs (the official Docker image; mod_rewrite
// sets front_controller_active, or htaccess.IgnoreFrontController) the web
// server hands paths without /index.php to the front controller too, and
// Nextcloud generates links without it: the Router's base URL drops
// /index.php (lib/private/Route/Router.php @00126022), so
// LoadMenuEntriesListener's linkToRoute hrefs and icons lose it, and the
// page config's modRewriteWorking makes @nextcloud/router's generateUrl
// drop it. AppAPI's ExAppUiMiddleware writes the scripts' and styles'
// /index.php/apps/app_api/proxy/ URLs as literals (v34.0.3), so those keep
// it. Without pretty URLs the web server has no such path: 404.
func TestPrettyURLs(t *testing.T) {
	for _, pretty := range []bool{false, true} {
		s, ts := aaServer(t, func(s *Server) { s.PrettyURLs = pretty })
		aaPageApp(t, s, ts.URL)
		s.mu.Lock()
		s.apps["hybrid_search"].routes = []Route{{URL: ".*", Verb: "GET", AccessLevel: AccessUser}}
		s.mu.Unlock()
		bob := http.Header{"Cookie": {s.NewSession("bob").String()}}
		want := map[bool]int{false: http.StatusNotFound, true: http.StatusOK}[pretty]
		for _, p := range []string{"/apps/app_api/embedded/hybrid_search/main", "/apps/app_api/proxy/hybrid_search/img/app.svg"} {
			if resp, body := aaProxyDo(t, http.MethodGet, ts.URL+p, bob, ""); resp.StatusCode != want {
				t.Errorf("pretty %v: GET %s = %d %.100s, want %d", pretty, p, resp.StatusCode, body, want)
			}
		}
		_, body := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/app_api/embedded/hybrid_search/main", bob, "")
		link := map[bool]string{false: "/index.php/apps/app_api/", true: "/apps/app_api/"}[pretty]
		for _, w := range []string{
			`href="` + link + `embedded/hybrid_search/main"`,
			`<img src="` + link + `proxy/hybrid_search/img/app.svg"`,
			`src="/index.php/apps/app_api/proxy/hybrid_search/js/app-main.js"`,
			fmt.Sprintf(`"modRewriteWorking":%v`, pretty),
		} {
			if !strings.Contains(body, w) {
				t.Errorf("pretty %v: the page lacks %s", pretty, w)
			}
		}
		if u := s.Unhandled(); len(u) > 0 {
			t.Errorf("pretty %v: unhandled %v", pretty, u)
		}
	}
}
