package app

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// proxyDo sends method path with body through the simulated AppAPI proxy
// as user (by app password).
func (e *testEnv) proxyDo(t *testing.T, u *ncsim.User, method, path, ctype, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, e.Sim.BaseURL+"/index.php/apps/app_api/proxy/hybrid_search/"+strings.TrimPrefix(path, "/"), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.SetBasicAuth(u.UID, u.AppPassword)
	return doReq(t, req)
}

// mcpCall calls one MCP tool through the simulated AppAPI proxy as user,
// with the Go SDK's client.
func (e *testEnv) mcpCall(t *testing.T, u *ncsim.User, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "go-e2e", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: e.Main.Config.MCPURL(), MaxRetries: -1,
		HTTPClient: &http.Client{Transport: basicAuth{u.UID, u.AppPassword}}}, nil)
	if err != nil {
		t.Fatalf("MCP connect as %s: %v", u.UID, err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("MCP %s as %s: %v", tool, u.UID, err)
	}
	return res
}

// toolText is the text content of a tool result.
func toolText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// internalAddress matches what would name an internal endpoint in a text
// shown to a user: a URL or a host:port.
var internalAddress = regexp.MustCompile(`[a-z]+://|127\.0\.0\.1|localhost|:\d{4,5}\b`)

// TestSearchRequestRules: a POST body with data after the JSON object is
// refused; semantic-only search without a model is the caller's error
// (400, and a tool error in MCP), not a 503; with the model down, what the
// user sees names no internal address.
func TestSearchRequestRules(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, setup: func(sim *ncsim.Server) {
		sim.SeedFile("alice", "/ibis.md", []byte("The sacred ibis wades in the marsh."))
	}})
	f := env.mustStat(t, "alice", "/ibis.md")
	env.awaitFile(t, "indexed", f.ID, isIndexed(f.ETag))

	for _, tt := range []struct{ name, body string }{
		{"second object", `{"query":"ibis"}{"query":"marsh"}`},
		{"garbage", `{"query":"ibis"} trailing`},
		{"stray brace", `{"query":"ibis"}}`},
	} {
		resp, body := env.proxyDo(t, &env.Alice, http.MethodPost, "api/search", "application/json", tt.body)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "after the JSON object") {
			t.Errorf("%s: POST api/search = %d %s, want 400", tt.name, resp.StatusCode, body)
		}
	}
	resp, body := env.proxyDo(t, &env.Alice, http.MethodPost, "api/search", "application/json", "{\"query\":\"ibis\"}\n \t")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"file_id":`+itoa(f.ID)) {
		t.Errorf("POST with trailing white space = %d %s, want the result", resp.StatusCode, body)
	}

	// No embedding model (OLLAMA_HOST=off): semantic alone cannot run.
	resp, body = env.proxyGet(t, &env.Alice, "api/search?q=ibis&algorithm=semantic")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "semantic search is off") {
		t.Errorf("semantic-only search without a model = %d %s, want 400 with the reason", resp.StatusCode, body)
	}
	resp, body = env.proxyGet(t, &env.Alice, "api/search?q=ibis&semantic_weight=1&keyword_weight=0&fuzzy_weight=0")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "semantic search is off") {
		t.Errorf("hybrid with only a semantic weight, without a model = %d %s, want 400", resp.StatusCode, body)
	}
	res := env.mcpCall(t, &env.Alice, "nc_semantic_search", map[string]any{"query": "ibis", "algorithm": "semantic"})
	if txt := toolText(res); !res.IsError || !strings.Contains(txt, "invalid arguments") || !strings.Contains(txt, "semantic search is off") {
		t.Errorf("MCP semantic-only search without a model: isError %v %q, want a permanent tool error", res.IsError, txt)
	}
}

// TestErrorTextsNameNoEndpoints: with the embedding model configured but
// down, the 503, the skipped leg's reason, the MCP tool error and a
// non-admin's status say what is wrong without naming where it runs.
func TestErrorTextsNameNoEndpoints(t *testing.T) {
	t.Parallel()
	ollama, o := withOllama(t)
	o.setup = func(sim *ncsim.Server) {
		sim.SeedFile("bob", "/ibis.md", []byte("The sacred ibis wades in the marsh."))
	}
	env := newTestEnv(t, o)
	f := env.mustStat(t, "bob", "/ibis.md")
	env.awaitFile(t, "indexed", f.ID, isIndexed(f.ETag))
	ollama.Down()
	g := env.Sim.PutFile("bob", "/later.md", []byte("Written while the model is down: quoll."))
	env.awaitFile(t, "pending with a reason", g.ID, func(ix indexed) bool { return ix.state.Error != "" })

	links := regexp.MustCompile(`"link":"[^"]*"`) // Nextcloud's public address, on purpose
	check := func(what, text string) {
		t.Helper()
		if internalAddress.MatchString(links.ReplaceAllString(text, "")) {
			t.Errorf("%s names an internal address: %s", what, text)
		}
	}
	resp, body := env.proxyGet(t, &env.Bob, "api/search?q=ibis&algorithm=semantic")
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("semantic-only search with the model down = %d %s, want 503", resp.StatusCode, body)
	}
	check("the 503", body)
	resp, body = env.proxyGet(t, &env.Bob, "api/search?q=ibis")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"skipped_legs":[{"leg":"semantic"`) {
		t.Errorf("hybrid search with the model down = %d %s", resp.StatusCode, body)
	}
	check("the skipped leg", body)
	res := env.mcpCall(t, &env.Bob, "nc_semantic_search", map[string]any{"query": "ibis", "algorithm": "semantic"})
	if !res.IsError {
		t.Errorf("MCP semantic-only with the model down: %q, want a tool error", toolText(res))
	}
	check("the MCP tool error", toolText(res))
	resp, body = env.proxyGet(t, &env.Bob, "api/status")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"embedder":{"ok":false`) || !strings.Contains(body, "later.md") {
		t.Errorf("bob's status = %d %s", resp.StatusCode, body)
	}
	check("bob's status", body)
}

// TestStatusOwnFiguresOnly: a user who is not an admin sees counts of the
// files they can read and nothing of the instance (queue totals, rates,
// the scan, pipeline counters); an admin sees both.
func TestStatusOwnFiguresOnly(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, setup: func(sim *ncsim.Server) {
		for i := range 5 {
			sim.SeedFile("alice", "/a"+itoa(int64(i))+".md", []byte("alpha"))
		}
		sim.SeedFile("bob", "/c.md", []byte("charlie"))
	}})
	c := env.mustStat(t, "bob", "/c.md")
	env.awaitFile(t, "bob's file indexed", c.ID, isIndexed(c.ETag))
	var rep map[string]json.RawMessage
	resp, body := env.proxyGet(t, &env.Bob, "api/status")
	if err := json.Unmarshal([]byte(body), &rep); err != nil || resp.StatusCode != 200 {
		t.Fatalf("bob's status = %d %s", resp.StatusCode, body)
	}
	for _, key := range []string{"counters", "scan", "per_user"} {
		if _, ok := rep[key]; ok {
			t.Errorf("bob's status shows the instance's %q: %s", key, rep[key])
		}
	}
	var q struct {
		Pending       *int     `json:"pending"`
		JobsPerSecond *float64 `json:"jobs_per_second"`
	}
	if err := json.Unmarshal(rep["queue"], &q); err != nil || q.Pending == nil || *q.Pending != 0 || (q.JobsPerSecond != nil && *q.JobsPerSecond != 0) {
		t.Errorf("bob's queue = %s, want his own pending files only", rep["queue"])
	}
	_, body = env.proxyGet(t, &env.Alice, "api/status")
	if !strings.Contains(body, `"counters"`) || !strings.Contains(body, `"scan"`) {
		t.Errorf("admin status lacks the instance figures: %s", body)
	}
}

// TestTokensOnlyForExistingUsers: the token CLI signs its requests with
// the app secret and can name any user; a token is issued only for a user
// Nextcloud knows.
func TestTokensOnlyForExistingUsers(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true})
	var out, errb strings.Builder
	err := runToken(t.Context(), []string{"issue", "--user", "mallory", "--json"}, env.getenv, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "no Nextcloud user") {
		t.Errorf("token for a user Nextcloud does not know = %v %q, want a 404", err, out.String())
	}
	if list, _ := env.Main.Tokens.List(t.Context(), "mallory"); len(list) != 0 {
		t.Errorf("mallory has %d tokens", len(list))
	}
	out.Reset()
	if err := runToken(t.Context(), []string{"issue", "--user", "bob", "--json"}, env.getenv, &out, &errb); err != nil || !strings.Contains(out.String(), `"token"`) {
		t.Errorf("token for bob = %v %q", err, out.String())
	}
	// A user created a moment ago gets one too, once the app's list of
	// users (at most 2 s old when it says no) has been read again.
	env.Sim.AddUser("dora", "Dora", false)
	await(t, "a token for a new user", 5*time.Second, func() bool {
		return runToken(t.Context(), []string{"issue", "--user", "dora", "--json"}, env.getenv, &out, &errb) == nil
	})
}
