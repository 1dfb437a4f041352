package app

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/exapp"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// TestPrettyURLsAndPHPQueries: on an instance with pretty URLs (the
// official Docker image) users reach AppAPI's proxy as
// /apps/app_api/proxy/… without /index.php, and the panel's generateUrl
// writes that form, while the OAuth metadata names the /index.php form.
// Both spellings are one resource: an MCP client that signs in naming the
// pretty one, through it, gets a token that works on both. The proxy
// passes on PHP's $_GET rebuilt by http_build_query (ncsim phpquery.go),
// which every route reads as it is. The app tells users the /index.php
// form (mcp_url in the panel's initial state): it works with and without
// pretty URLs, and it is the one the OAuth metadata names.
func TestPrettyURLsAndPHPQueries(t *testing.T) {
	t.Parallel()
	var doc ncsim.FileInfo
	env := newTestEnv(t, envOptions{install: true, setup: func(sim *ncsim.Server) {
		sim.PrettyURLs = true
		doc = sim.SeedFile("alice", "/Reise Pläne/紅葉 trip.md", []byte("# Kyoto\n\nThe maple season plan: 紅葉 and quinces."))
	}})
	index := env.Sim.BaseURL + "/index.php/apps/app_api/proxy/hybrid_search"
	pretty := env.Sim.BaseURL + "/apps/app_api/proxy/hybrid_search"

	var info exapp.PanelInfo
	for _, st := range env.Sim.InitialStates("hybrid_search") {
		if st.Key == exapp.InitialStateKey {
			_ = json.Unmarshal(st.Value, &info)
		}
	}
	if info.MCPURL != index+"/mcp" {
		t.Errorf("the panel's initial state names MCP URL %q, want %q", info.MCPURL, index+"/mcp")
	}

	// Every GET route through the pretty proxy, with queries PHP rewrites
	// (a repeated name keeps its last value, "." in a name becomes "_").
	env.awaitFile(t, "the seeded file", doc.ID, isIndexed(doc.ETag))
	alice := func(path string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, pretty+"/"+path, nil)
		req.SetBasicAuth("alice", env.Alice.AppPassword)
		resp, body := doReq(t, req)
		return resp.StatusCode, body
	}
	for _, path := range []string{
		"api/search?q=ignored&q=" + url.QueryEscape("紅葉 quinces") + "&algorithm=keyword&top_k=5&path_prefix=" + url.QueryEscape("/Reise Pläne") + "&x.y=1",
		"api/search?q=maple&algorithm=hybrid&fusion=linear&semantic_weight=0.5&keyword_weight=0.3&fuzzy_weight=0.2&types=file",
		"api/similar?file_ids=" + url.QueryEscape(strconv.FormatInt(doc.ID, 10)) + "&top_k=3",
		"api/status?all=1",
		"api/settings",
	} {
		status, body := alice(path)
		if status != http.StatusOK {
			t.Errorf("GET %s = %d %s", path, status, body)
		}
		if strings.HasPrefix(path, "api/search?q=ignored") && !strings.Contains(body, "trip.md") {
			t.Errorf("GET %s did not find the file: %s", path, body)
		}
	}

	// OAuth through the pretty proxy, naming the pretty MCP URL.
	o := &oauthEnv{testEnv: env, base: pretty, redirect: testRedirect}
	o.clientID = o.register(t, `{"client_name":"Pretty Assistant","redirect_uris":["`+testRedirect+`"],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"]}`)
	verifier, challenge := pkcePair("pretty")
	b := newBrowser(t, testRedirect)
	b.login(env.Sim.BaseURL, "alice", "alice")
	v := b.get(o.authorizeURL(challenge, "s1", nil))
	if v.status != http.StatusOK || !strings.Contains(v.body, `id="consent"`) {
		t.Fatalf("authorize naming the pretty MCP URL: %d %s %s %s", v.status, v.url, v.errorCode(), v.body)
	}
	f := v.fields()
	f.Set("decision", "allow")
	done := b.do(http.MethodPost, v.url, f, http.Header{"Origin": {env.Sim.BaseURL}})
	back, err := url.Parse(b.get(done.next).url)
	if err != nil || back.Query().Get("code") == "" {
		t.Fatalf("no code after consent: %v %d %s", err, done.status, done.body)
	}
	status, tok := o.exchange(t, back.Query().Get("code"), verifier, nil)
	access, _ := tok["access_token"].(string)
	if status != http.StatusOK || access == "" {
		t.Fatalf("token = %d %v", status, tok)
	}
	for _, mcpURL := range []string{pretty + "/mcp", index + "/mcp"} {
		text, err := mcpSearch(t, mcpURL, http.Header{"Authorization": {"Bearer " + access}}, "maple season")
		if err != nil || !strings.Contains(text, "trip.md") {
			t.Errorf("MCP at %s with the token: %v %.200s", mcpURL, err, text)
		}
	}
}
