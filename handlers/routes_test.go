package handlers_test

import (
	"encoding/json"
	"encoding/xml"
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

// matchRoute finds the route AppAPI picks for method and path (no leading
// slash) under the new rule (≥ 33.0.8: anchored, first match wins) and the
// legacy rule (≤ 33.0.7: unanchored, delimiter '/').
func matchRoute(t *testing.T, routes []infoRoute, method, path string, legacy bool) *infoRoute {
	t.Helper()
	for i, r := range routes {
		if !strings.Contains(strings.ToLower(r.Verb), strings.ToLower(method)) {
			continue
		}
		var re *regexp.Regexp
		var subject string
		if legacy {
			if strings.Contains(strings.ReplaceAll(r.URL, `\/`, ""), "/") {
				t.Errorf("route %q has an unescaped '/', which breaks AppAPI ≤ 33.0.7", r.URL)
			}
			re, subject = regexp.MustCompile("(?i)"+r.URL), path
		} else {
			re, subject = regexp.MustCompile("(?i)^(?:"+r.URL+")"), "/"+path
		}
		if re.MatchString(subject) {
			return &routes[i]
		}
	}
	return nil
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
		if strings.HasPrefix(r.URL, `^\/?mcp`) && !contains(excl, "authorization") {
			t.Errorf("the mcp route must exclude the authorization header")
		}
	}
	s, err := handlers.New(handlers.Deps{AppID: "hybrid_search", AppSecret: "x", Lifecycle: &fakeLifecycle{},
		Status: fakeStatus{}, Publish: &fakeQueue{}, Operator: &fakeOperator{}, Assets: fstest.MapFS{}})
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	s.Register(e)
	direct := map[string]bool{"/heartbeat": true, "/init": true, "/enabled": true}
	checked := 0
	for _, r := range e.Routes() {
		if direct[r.Path] || r.Method == echo.RouteNotFound || strings.HasSuffix(r.Path, "/*") && r.Name == "" {
			continue
		}
		path := strings.TrimPrefix(strings.ReplaceAll(r.Path, "*", "a/b.js"), "/")
		for _, legacy := range []bool{false, true} {
			m := matchRoute(t, routes, r.Method, path, legacy)
			if m == nil {
				t.Errorf("%s /%s (legacy=%v) is served but no info.xml route lets the proxy reach it", r.Method, path, legacy)
				continue
			}
			if strings.HasPrefix(path, "api/") && path != "api/webhook" && m.AccessLevel != "USER" {
				t.Errorf("%s /%s: access level %s, want USER", r.Method, path, m.AccessLevel)
			}
		}
		t.Logf("checked %s /%s", r.Method, path)
		checked++
	}
	if checked == 0 {
		t.Fatal("no proxied routes found")
	}
	// The webhook route is admin-only through the proxy (the handler also
	// requires the empty AppAPI user), and is matched before api/.
	if m := matchRoute(t, routes, "POST", "api/webhook", false); m == nil || m.AccessLevel != "ADMIN" {
		t.Errorf("api/webhook must match an ADMIN route first, got %+v", m)
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
