package ncsim

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

var aaProxyRoutes = []Route{
	{URL: `^api\/public`, Verb: "GET", AccessLevel: AccessPublic},
	{URL: `^api\/admin`, Verb: "GET,POST", AccessLevel: AccessAdmin},
	{URL: `^\/?api\/`, Verb: "GET,POST,PUT,DELETE", AccessLevel: AccessUser, HeadersToExclude: []string{"Authorization", "cookie"}},
	{URL: `^/?js/`, Verb: "GET", AccessLevel: AccessUser}, // an unescaped "/" breaks it for AppAPI <= 33.0.7
	{URL: `.*\.html$`, Verb: "GET", AccessLevel: AccessPublic},
}

// aaProxyApp answers every request with its method and path, and a few
// headers AppAPI must strip.
func aaProxyApp(t *testing.T, s *Server) *aaFakeApp {
	t.Helper()
	f := aaNewFakeApp(t, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		h := w.Header()
		h.Set("EX-APP-ID", "leak")
		h.Set("AA-VERSION", "leak")
		h.Set("AUTHORIZATION-APP-API", "leak")
		h.Set("X-Custom", "kept")
		switch {
		case strings.HasSuffix(r.URL.Path, ".html"):
			h.Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, `<html><script src="a.js"></script><script>1</script></html>`)
		case strings.HasSuffix(r.URL.Path, ".js"):
			h["Content-Type"] = nil // no Content-Type (and no sniffing): AppAPI guesses it
			_, _ = io.WriteString(w, `console.log(1)`)
		case r.URL.Path == "/api/json":
			h.Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{}`)
		default:
			h.Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, r.Method+" "+r.URL.Path+" "+string(body))
		}
		return true
	})
	aaRegister(t, s, f, aaProxyRoutes...)
	aaEnable(t, s, "hybrid_search")
	return f
}

func aaProxyDo(t *testing.T, method, url string, header http.Header, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := aaNoRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

func TestProxyAccess(t *testing.T) {
	anon := http.Header{}
	bob := aaBasic("bob", "bob")
	alice := aaBasic("alice", "alice")
	// want is the status per route matching generation: legacy (32.0.0,
	// 33.0.0), anchored on the bare path (32.0.9, 33.0.3), canonical
	// (32.0.10, 33.0.4, 34, 35).
	tests := []struct {
		name         string
		method, path string
		header       http.Header
		want         [3]int
	}{
		{"public route, anonymous", "GET", "api/public", anon, [3]int{200, 200, 200}},
		{"user route, anonymous", "GET", "api/items", anon, [3]int{404, 404, 404}},
		{"user route, user", "GET", "api/items", bob, [3]int{200, 200, 200}},
		{"admin route, user: no fall-through", "GET", "api/admin/stats", bob, [3]int{200, 404, 404}},
		{"admin route, admin", "GET", "api/admin/stats", alice, [3]int{200, 200, 200}},
		{"verb not declared", "PUT", "api/admin/stats", alice, [3]int{200, 200, 200}}, // falls to ^\/?api\/ (PUT allowed)
		{"HEAD is not a declared verb", "HEAD", "api/items", bob, [3]int{404, 404, 404}},
		{"PATCH is not routed", "PATCH", "api/items", bob, [3]int{405, 405, 405}},
		{"POST needs a path", "POST", "", bob, [3]int{405, 405, 405}},
		{"unanchored slash pattern", "GET", "js/app.js", bob, [3]int{404, 200, 200}},
		{"dot-dot", "GET", "api/../api/items", bob, [3]int{404, 404, 404}},
		{"encoded dot-dot", "GET", "api/%2e%2e/api/items", bob, [3]int{404, 404, 404}},
		{"dots inside a name", "GET", "api/a..b", bob, [3]int{200, 200, 200}},
		{"no route", "GET", "other", bob, [3]int{404, 404, 404}},
		{"delete with user", "DELETE", "api/items/1", bob, [3]int{200, 200, 200}},
	}
	versions := []struct {
		version string
		gen     routeMatching
	}{
		{"32", matchLegacy}, {"32.0.8", matchLegacy}, {"32.0.9", matchAnchoredBare}, {"32.0.10", matchCanonical},
		{"33", matchLegacy}, {"33.0.3", matchAnchoredBare}, {"33.0.4", matchCanonical},
		{"34", matchCanonical}, {"35", matchCanonical},
	}
	for _, v := range versions {
		s, ts := aaServer(t, func(s *Server) { s.NextcloudVersion = v.version })
		if got := s.release().routeMatching(); got != v.gen {
			t.Errorf("%s: route matching %d, want %d", v.version, got, v.gen)
		}
		aaProxyApp(t, s)
		for _, tt := range tests {
			want := tt.want[v.gen]
			resp, body := aaProxyDo(t, tt.method, ts.URL+proxyPrefix+"hybrid_search/"+tt.path, tt.header, "")
			if resp.StatusCode != want {
				t.Errorf("%s %s: %s %s = %d %q, want %d", v.version, tt.name, tt.method, tt.path, resp.StatusCode, body, want)
			}
		}
	}
}

func TestProxyForwarding(t *testing.T) {
	s, ts := aaServer(t)
	f := aaProxyApp(t, s)
	bob := s.AddUser("dave", "Dave", false)
	base := ts.URL + proxyPrefix + "hybrid_search/"

	h := http.Header{"Authorization": {"Bearer " + bob.AppPassword}, "Cookie": {"a=b"}, "X-Mine": {"1"},
		"X-Origin-Ip": {"6.6.6.6"}, "Authorization-App-Api": {"forged"}, "Accept-Language": {"de"}}
	resp, body := aaProxyDo(t, http.MethodPost, base+"api/items?q=1&x=%2F&q=2&l[]=a%20b&file.id=7", h, "payload")
	if resp.StatusCode != 200 || body != "POST /api/items payload" {
		t.Fatalf("POST = %d %q", resp.StatusCode, body)
	}
	c := f.Calls("/api/items")[0]
	secret := s.ExAppEnv("hybrid_search").Get("APP_SECRET")
	checks := map[string]string{
		"Authorization": "", "Cookie": "", // headers_to_exclude, case-insensitive
		"X-Mine": "1", "X-Origin-Ip": "127.0.0.1", "Accept-Language": "de",
		"Authorization-App-Api": b64("dave:" + secret), "Ex-App-Id": "hybrid_search", "Aa-Version": DefaultVersion + ".0.0",
	}
	for k, want := range checks {
		if got := c.Header.Get(k); got != want {
			t.Errorf("forwarded %s = %q, want %q", k, got, want)
		}
	}
	// PHP's $_GET, rebuilt by http_build_query (phpquery.go).
	if c.Query != "q=2&x=%2F&l%5B0%5D=a+b&file_id=7" {
		t.Errorf("query = %q", c.Query)
	}
	if id := c.Header.Get("Aa-Request-Id"); id == "CLI" || len(id) != 20 {
		t.Errorf("AA-REQUEST-ID = %q, want a request id", id)
	}
	for _, k := range []string{"Ex-App-Id", "Aa-Version", "Authorization-App-Api"} {
		if v := resp.Header.Get(k); v != "" {
			t.Errorf("response leaked %s: %q", k, v)
		}
	}
	if resp.Header.Get("X-Custom") != "kept" {
		t.Error("custom response header dropped")
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "private, max-age=3600, must-revalidate" {
		t.Errorf("Cache-Control = %q", cc)
	}

	// Anonymous on a public route: empty user in the AppAPI header.
	aaProxyDo(t, http.MethodGet, base+"api/public", nil, "")
	if got := f.Calls("/api/public")[0].Header.Get("Authorization-App-Api"); got != b64(":"+secret) {
		t.Errorf("anonymous auth header = %q", got)
	}

	// Session cookie login; script type guessed; JSON not cached.
	cookie := http.Header{"Cookie": {s.NewSession("bob").String()}}
	resp, _ = aaProxyDo(t, http.MethodGet, base+"js/app.js", cookie, "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/javascript" {
		t.Errorf("js = %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	resp, _ = aaProxyDo(t, http.MethodGet, base+"api/json", cookie, "")
	if resp.Header.Get("Cache-Control") != "" {
		t.Errorf("JSON answer got Cache-Control %q", resp.Header.Get("Cache-Control"))
	}

	// HTML: nonce injected into every <script, no cache header.
	resp, body = aaProxyDo(t, http.MethodGet, base+"index.html", nil, "")
	if strings.Count(body, `<script nonce="`) != 2 || resp.Header.Get("Cache-Control") != "" {
		t.Errorf("html = %q, Cache-Control %q", body, resp.Header.Get("Cache-Control"))
	}

	// Unknown, disabled and unreachable apps.
	if resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+proxyPrefix+"nope/api/public", nil, ""); resp.StatusCode != 404 {
		t.Errorf("unknown app = %d", resp.StatusCode)
	}
	s.setEnabled("hybrid_search", false)
	if resp, _ := aaProxyDo(t, http.MethodGet, base+"api/public", nil, ""); resp.StatusCode != 404 {
		t.Errorf("disabled app = %d", resp.StatusCode)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	if _, err := s.RegisterExApp(ExAppRegistration{ID: "dead", Name: "Dead", Version: "1", URL: dead,
		Routes: []Route{{URL: ".*", Verb: "GET", AccessLevel: AccessPublic}}}); err != nil {
		t.Fatal(err)
	}
	aaEnable(t, s, "dead")
	if resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+proxyPrefix+"dead/x", nil, ""); resp.StatusCode != 500 {
		t.Errorf("unreachable app = %d, want 500", resp.StatusCode)
	}
}

func TestProxyBruteforceProtection(t *testing.T) {
	s, ts := aaServer(t, func(s *Server) { s.ThrottleMaxAttempts = 2 })
	f := aaNewFakeApp(t, func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		w.WriteHeader(http.StatusUnauthorized)
		return true
	})
	aaRegister(t, s, f, Route{URL: ".*", Verb: "GET", AccessLevel: AccessPublic, BruteforceProtection: []int{401}})
	aaEnable(t, s, "hybrid_search")
	url := ts.URL + proxyPrefix + "hybrid_search/login"
	for i := 0; i < 3; i++ {
		if resp, _ := aaProxyDo(t, http.MethodGet, url, nil, ""); resp.StatusCode != 401 {
			t.Fatalf("attempt %d = %d", i, resp.StatusCode)
		}
	}
	if resp, _ := aaProxyDo(t, http.MethodGet, url, nil, ""); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("after 3 listed failures = %d, want 429", resp.StatusCode)
	}
}

// TestProxyFollowsRedirects: the proxy's HTTP client follows an ExApp's
// redirect itself (up to 5), so the browser never sees the Location.
func TestProxyFollowsRedirects(t *testing.T) {
	s, ts := aaServer(t)
	f := aaNewFakeApp(t, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		switch r.URL.Path {
		case "/api/public/moved":
			http.Redirect(w, r, "/api/public/target", http.StatusFound)
		case "/api/public/loop":
			http.Redirect(w, r, "/api/public/loop", http.StatusFound)
		case "/api/public/target":
			_, _ = io.WriteString(w, "target reached, auth header "+strconv.FormatBool(r.Header.Get("AUTHORIZATION-APP-API") != ""))
		default:
			return false
		}
		return true
	})
	aaRegister(t, s, f, aaProxyRoutes...)
	aaEnable(t, s, "hybrid_search")
	resp, body := aaProxyDo(t, "GET", ts.URL+proxyPrefix+"hybrid_search/api/public/moved", nil, "")
	if resp.StatusCode != 200 || resp.Header.Get("Location") != "" || body != "target reached, auth header true" {
		t.Errorf("redirecting route: %d %q %q", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	if resp, _ := aaProxyDo(t, "GET", ts.URL+proxyPrefix+"hybrid_search/api/public/loop", nil, ""); resp.StatusCode != 500 {
		t.Errorf("redirect loop: %d, want 500", resp.StatusCode)
	}
}
