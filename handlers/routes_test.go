package handlers_test

import (
	"encoding/json"
	"encoding/xml"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/labstack/echo/v4"

	"github.com/hybrid-search/hybridsearch/appinfo"
	"github.com/hybrid-search/hybridsearch/handlers"
)

// infoRoute is one <route> of appinfo/info.xml.
type infoRoute struct {
	URL              string `xml:"url"`
	Verb             string `xml:"verb"`
	AccessLevel      string `xml:"access_level"`
	HeadersToExclude string `xml:"headers_to_exclude"`
}

func parseInfoRoutes(t *testing.T) []infoRoute {
	t.Helper()
	var info struct {
		ID     string      `xml:"id"`
		Routes []infoRoute `xml:"external-app>routes>route"`
	}
	if err := xml.Unmarshal(appinfo.InfoXML, &info); err != nil {
		t.Fatalf("parse info.xml: %v", err)
	}
	if info.ID != "hybrid_search" {
		t.Fatalf("info.xml id = %q", info.ID)
	}
	return info.Routes
}

// Route matching generations (docs/nextcloud-compatibility.md): AppAPI
// up to 32.0.8/33.0.2 (unanchored /url/i on the bare path, '/' delimits),
// 32.0.9/33.0.3 (anchored on the bare path), 32.0.10/33.0.4/34+ (anchored on
// "/"+path, then the bare path), and HaRP (Python re.match on "/"+path,
// verbs ignored).
const (
	matchLegacy = iota
	matchBare
	matchCanonical
	matchHaRP
)

// matchRoute finds the route the proxy of generation gen picks for method
// and path (no leading slash).
func matchRoute(t *testing.T, routes []infoRoute, method, path string, gen int) *infoRoute {
	t.Helper()
	for i, r := range routes {
		if gen != matchHaRP && !strings.Contains(strings.ToLower(r.Verb), strings.ToLower(method)) {
			continue
		}
		var ok bool
		switch gen {
		case matchLegacy:
			if strings.Contains(strings.ReplaceAll(r.URL, `\/`, ""), "/") {
				t.Errorf("route %q has an unescaped '/', which breaks AppAPI up to 32.0.8/33.0.2", r.URL)
			}
			ok = regexp.MustCompile("(?i)" + r.URL).MatchString(path)
		case matchBare:
			ok = regexp.MustCompile("(?i)^(?:" + r.URL + ")").MatchString(path)
		case matchCanonical:
			re := regexp.MustCompile("(?i)^(?:" + r.URL + ")")
			ok = re.MatchString("/"+path) || re.MatchString(path)
		case matchHaRP:
			ok = regexp.MustCompile("^(?:" + r.URL + ")").MatchString("/" + path)
		}
		if ok {
			return &routes[i]
		}
	}
	return nil
}

// generationsFor are the route matchers a request with method reaches
// the app through: OPTIONS only through HaRP, which forwards every verb;
// AppAPI's PHP proxy has no OPTIONS route in any release (app_api
// appinfo/routes.php, v32.0.0 to v35.0.0beta4), so Nextcloud answers 405.
func generationsFor(method string) []int {
	if method == http.MethodOptions {
		return []int{matchHaRP}
	}
	return []int{matchLegacy, matchBare, matchCanonical, matchHaRP}
}

func TestInfoXMLRoutesCoverServedRoutes(t *testing.T) {
	routes := parseInfoRoutes(t)
	for _, r := range routes {
		switch r.AccessLevel {
		case "PUBLIC", "USER", "ADMIN":
		default:
			t.Errorf("route %q: access_level %q is not PUBLIC, USER or ADMIN", r.URL, r.AccessLevel)
		}
		var excl []string
		if err := json.Unmarshal([]byte(r.HeadersToExclude), &excl); err != nil {
			t.Errorf("route %q: headers_to_exclude %q is not a JSON array", r.URL, r.HeadersToExclude)
		}
		// Nextcloud 35 honours headers_to_exclude: the MCP routes must let
		// Authorization through (app-issued bearer tokens), the others need
		// not see it.
		mcpRoute := strings.Contains(r.URL, "mcp") || strings.Contains(r.URL, "well-known")
		if mcpRoute == contains(excl, "authorization") {
			t.Errorf("route %q: headers_to_exclude %v; the MCP routes must keep authorization, the others exclude it", r.URL, excl)
		}
	}
	s, err := handlers.New(handlers.Deps{AppID: "hybrid_search", AppSecret: "x", Lifecycle: &fakeLifecycle{},
		Status: fakeStatus{}, Publish: &fakeQueue{}, Operator: &fakeOperator{}, Assets: fstest.MapFS{}})
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	s.Register(e)
	direct := map[string]bool{"/heartbeat": true, "/init": true, "/enabled": true, handlers.WebhookPath: true, "/trigger": true}
	checked := 0
	for _, r := range e.Routes() {
		if direct[r.Path] || r.Method == echo.RouteNotFound || strings.HasSuffix(r.Path, "/*") && r.Name == "" {
			continue
		}
		path := strings.TrimPrefix(strings.ReplaceAll(r.Path, "*", "a/b.js"), "/")
		for _, gen := range generationsFor(r.Method) {
			m := matchRoute(t, routes, r.Method, path, gen)
			if m == nil {
				t.Errorf("%s /%s (generation %d) is served but no info.xml route lets the proxy reach it", r.Method, path, gen)
				continue
			}
			if strings.HasPrefix(path, "api/") && m.AccessLevel != "USER" {
				t.Errorf("%s /%s: access level %s, want USER", r.Method, path, m.AccessLevel)
			}
		}
		t.Logf("checked %s /%s", r.Method, path)
		checked++
	}
	if checked == 0 {
		t.Fatal("no proxied routes found")
	}
	// The webhook path matches no route in any generation, for any verb:
	// the proxy and HaRP forward nobody's request to it, so every signed
	// request there is AppAPI's own delivery (handlers.WebhookPath). Each
	// verb is checked, as HaRP ignores verbs.
	// So does AppAPI's task processing trigger.
	hook := strings.TrimPrefix(handlers.WebhookPath, "/")
	for _, gen := range []int{matchLegacy, matchBare, matchCanonical, matchHaRP} {
		for _, verb := range []string{"GET", "POST", "PUT", "DELETE"} {
			for _, p := range []string{hook, hook + "/", hook + "?x=1", "trigger", "trigger?providerId=x"} {
				if m := matchRoute(t, routes, verb, p, gen); m != nil {
					t.Errorf("%s %s matches route %q (generation %d): users could reach an AppAPI-only path through the proxy", verb, p, m.URL, gen)
				}
			}
		}
		if m := matchRoute(t, routes, "POST", "mcp", gen); m == nil || m.AccessLevel != "PUBLIC" {
			t.Errorf("mcp must match a PUBLIC route (generation %d), got %+v", gen, m)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
