package ncsim

import (
	"reflect"
	"strings"
	"testing"
)

const aaInfoXML = `<?xml version="1.0"?>
<info xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <id>hybrid_search</id>
  <name>Hybrid Search</name>
  <summary>s</summary>
  <version>1.0.0</version>
  <licence>agpl</licence>
  <dependencies><nextcloud min-version="30" max-version="33"/></dependencies>
  <external-app>
    <docker-install><registry>ghcr.io</registry><image>org/hybrid_search</image><image-tag>1.0.0</image-tag></docker-install>
    <routes>
      <route><url>^\/?js\/</url><verb>GET</verb><access_level>USER</access_level><headers_to_exclude>[]</headers_to_exclude></route>
      <route><url>.*</url><verb>GET,POST,PUT,DELETE</verb><access_level>PUBLIC</access_level>
             <headers_to_exclude>["authorization","Cookie"]</headers_to_exclude><bruteforce_protection>[401, 403]</bruteforce_protection></route>
      <route><url>^admin</url><verb>GET</verb><access_level>ADMIN</access_level></route>
    </routes>
    <environment-variables>
      <variable><name>OLLAMA_URL</name><display-name>Ollama</display-name><default>http://ollama:11434</default></variable>
      <variable><name>EMPTY</name><default/></variable>
    </environment-variables>
  </external-app>
</info>`

func TestParseInfoXML(t *testing.T) {
	reg, err := ParseInfoXML([]byte(aaInfoXML))
	if err != nil {
		t.Fatal(err)
	}
	if reg.ID != "hybrid_search" || reg.Name != "Hybrid Search" || reg.Version != "1.0.0" {
		t.Errorf("ids = %+v", reg)
	}
	wantRoutes := []Route{
		{URL: `^\/?js\/`, Verb: "GET", AccessLevel: AccessUser},
		{URL: ".*", Verb: "GET,POST,PUT,DELETE", AccessLevel: AccessPublic, HeadersToExclude: []string{"authorization", "Cookie"},
			BruteforceProtection: []int{401, 403}},
		{URL: "^admin", Verb: "GET", AccessLevel: AccessAdmin},
	}
	if !reflect.DeepEqual(reg.Routes, wantRoutes) {
		t.Errorf("routes = %+v\nwant %+v", reg.Routes, wantRoutes)
	}
	wantVars := []EnvVarDecl{{Name: "OLLAMA_URL", DisplayName: "Ollama", Default: "http://ollama:11434"}, {Name: "EMPTY"}}
	if !reflect.DeepEqual(reg.EnvVars, wantVars) {
		t.Errorf("vars = %+v", reg.EnvVars)
	}

	s, _ := aaServer(t)
	reg.URL = "http://127.0.0.1:23999"
	env, err := s.RegisterExApp(reg)
	if err != nil {
		t.Fatal(err)
	}
	if env.Get("OLLAMA_URL") != "http://ollama:11434" || env.Get("APP_PORT") != "23999" {
		t.Errorf("env = %v", env.List())
	}
	if _, ok := env.Lookup("EMPTY"); ok {
		t.Error("empty variable kept")
	}
}

func TestParseInfoXMLRejects(t *testing.T) {
	route := func(inner string) string {
		return strings.Replace(aaInfoXML, `<route><url>^admin</url><verb>GET</verb><access_level>ADMIN</access_level></route>`, inner, 1)
	}
	tests := []struct {
		name, xml, wantErr string
	}{
		{"numeric access level", route(`<route><url>x</url><verb>GET</verb><access_level>1</access_level></route>`), "invalid 'access_level' '1'"},
		{"unknown access level", route(`<route><url>x</url><verb>GET</verb><access_level>users</access_level></route>`), "invalid 'access_level'"},
		{"missing access level", route(`<route><url>x</url><verb>GET</verb></route>`), "'access_level' is required"},
		{"empty url", route(`<route><url></url><verb>GET</verb><access_level>USER</access_level></route>`), "'url' must be a non-empty string"},
		{"empty verb", route(`<route><url>x</url><verb/><access_level>USER</access_level></route>`), "'verb' must be a non-empty string"},
		{"headers as elements", route(`<route><url>x</url><verb>GET</verb><access_level>USER</access_level><headers_to_exclude><h>cookie</h></headers_to_exclude></route>`), "child elements"},
		{"headers not json", route(`<route><url>x</url><verb>GET</verb><access_level>USER</access_level><headers_to_exclude>cookie</headers_to_exclude></route>`), "must be a JSON array"},
		{"bruteforce strings", route(`<route><url>x</url><verb>GET</verb><access_level>USER</access_level><bruteforce_protection>["401"]</bruteforce_protection></route>`), "only integers"},
		{"no external-app", `<info><id>a</id><name>A</name><version>1</version></info>`, "no <external-app>"},
		{"no id", `<info><name>A</name><version>1</version><external-app/></info>`, "id, name and version are required"},
		{"not xml", `{"id":"a"}`, "parse info.xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseInfoXML([]byte(tt.xml))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseInfoXML error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestInfoXMLHeadersToExcludePerVersion: AppAPI v32-v34 store
// headers_to_exclude from an info.xml as "[]" (the XML value is a string,
// ExAppMapper::registerExAppRoutes keeps only arrays), so the proxy
// forwards Authorization and Cookie there; v35 decodes the string. Routes
// registered as JSON keep their list on every version.
func TestInfoXMLHeadersToExcludePerVersion(t *testing.T) {
	for _, v := range Versions {
		t.Run(v, func(t *testing.T) {
			s, ts := aaServer(t, func(s *Server) { s.NextcloudVersion = v })
			f := aaNewFakeApp(t, nil)
			reg, err := ParseInfoXML([]byte(aaInfoXML))
			if err != nil {
				t.Fatal(err)
			}
			reg.URL = f.srv.URL
			if _, err := s.RegisterExApp(reg); err != nil {
				t.Fatal(err)
			}
			aaEnable(t, s, "hybrid_search")
			excluded := v == "35"
			if got := len(s.Routes("hybrid_search")[1].HeadersToExclude) > 0; got != excluded {
				t.Errorf("stored headers_to_exclude = %v, want excluded=%v", s.Routes("hybrid_search")[1].HeadersToExclude, excluded)
			}
			h := aaBasic("bob", "bob")
			h.Set("Cookie", "c=1")
			resp, _ := aaProxyDo(t, "GET", ts.URL+proxyPrefix+"hybrid_search/anything", h, "")
			if resp.StatusCode != 200 {
				t.Fatalf("proxy = %d", resp.StatusCode)
			}
			c := f.Calls("/anything")[0]
			if got := c.Header.Get("Authorization") != ""; got == excluded {
				t.Errorf("Authorization forwarded = %v on %s, want %v", got, v, !excluded)
			}
			if got := c.Header.Get("Cookie") != ""; got == excluded {
				t.Errorf("Cookie forwarded = %v on %s, want %v", got, v, !excluded)
			}
		})
	}
}
