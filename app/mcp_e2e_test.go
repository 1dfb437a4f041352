package app

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// bobMarker is a word only bob's private document contains.
const bobMarker = "quokkasalary"

// tsResult is what client.mjs prints.
type tsResult struct {
	ConnectError    string `json:"connect_error"`
	Code            int    `json:"code"` // the HTTP status of a failed connect
	ProtocolVersion string `json:"protocolVersion"`
	ServerInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Tools []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Annotations struct {
			ReadOnlyHint  bool  `json:"readOnlyHint"`
			OpenWorldHint *bool `json:"openWorldHint"`
		} `json:"annotations"`
		HasOutputSchema bool `json:"hasOutputSchema"`
	} `json:"tools"`
	Calls       map[string]tsCall `json:"calls"`
	UnknownTool string            `json:"unknownTool"`
	raw         string
}

// runTSClient runs client.mjs against url with args.
func runTSClient(t *testing.T, node, url string, args ...string) tsResult {
	t.Helper()
	var r tsResult
	r.raw = runNodeJSON(t, node, 30*time.Second, "client.mjs", append([]string{url}, args...), &r)
	return r
}

// checkTSRun checks one full client run as alice.
func checkTSRun(t *testing.T, how string, r tsResult, aliceDoc, bobDoc int64) {
	t.Helper()
	if r.ConnectError != "" {
		t.Fatalf("%s: connect: %s", how, r.ConnectError)
	}
	if r.ProtocolVersion != "2025-11-25" || r.ServerInfo.Name != "hybrid_search" {
		t.Errorf("%s: protocol %q, server %+v", how, r.ProtocolVersion, r.ServerInfo)
	}
	var names []string
	for _, tl := range r.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || !tl.HasOutputSchema || !tl.Annotations.ReadOnlyHint || tl.Annotations.OpenWorldHint == nil || *tl.Annotations.OpenWorldHint {
			t.Errorf("%s: tool %+v lacks a description, output schema or read-only annotations", how, tl)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"nc_get_document", "nc_index_status", "nc_semantic_search"}) {
		t.Errorf("%s: tools %v", how, names)
	}
	var search struct {
		Results []struct {
			FileID int64  `json:"file_id"`
			Path   string `json:"path"`
			Link   string `json:"link"`
		} `json:"results"`
	}
	s := r.Calls["search"]
	if err := json.Unmarshal(s.StructuredContent, &search); err != nil || s.IsError || len(search.Results) == 0 || search.Results[0].FileID != aliceDoc ||
		!strings.HasSuffix(search.Results[0].Link, "/index.php/f/"+itoa(aliceDoc)) || !strings.Contains(s.Text, "zebracorn") {
		t.Errorf("%s: search = %s", how, r.Calls["search"].Text)
	}
	for _, res := range search.Results {
		if res.FileID == bobDoc {
			t.Errorf("%s: alice's search returned bob's document %d", how, bobDoc)
		}
	}
	if d := r.Calls["document"]; d.IsError || !strings.Contains(d.Text, "The zebracorn migration starts on Monday") || !strings.Contains(d.Text, "Rollback plan") {
		t.Errorf("%s: document = %s", how, d.Text)
	}
	if w := r.Calls["window"]; w.IsError || !strings.Contains(w.Text, "Chunks ") {
		t.Errorf("%s: window = %s", how, w.Text)
	}
	if f := r.Calls["forbidden"]; !f.IsError || !strings.Contains(f.Text, "not found") {
		t.Errorf("%s: bob's document by id = %+v", how, f)
	}
	if b := r.Calls["badArgs"]; !b.IsError || !strings.Contains(b.Text, "limit") {
		t.Errorf("%s: bad arguments = %+v", how, b)
	}
	if st := r.Calls["status"]; st.IsError || !strings.Contains(st.Text, "2 indexed") {
		t.Errorf("%s: status = %s", how, st.Text)
	}
	if !strings.Contains(r.UnknownTool, "unknown tool") {
		t.Errorf("%s: unknown tool = %q", how, r.UnknownTool)
	}
	if strings.Contains(strings.ToLower(r.raw), bobMarker) || strings.Contains(r.raw, "Bob salaries") {
		t.Errorf("%s: bob's private document appears in alice's session:\n%s", how, r.raw)
	}
}

// basicAuth sends a Nextcloud app password as Basic authorization.
type basicAuth struct{ user, password string }

func (a basicAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.SetBasicAuth(a.user, a.password)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPWithTypeScriptClient connects the official TypeScript SDK client
// through the simulator's AppAPI proxy with alice's app password and
// directly with her bearer token, calls every tool, and checks that bob's
// private document never shows.
func TestMCPWithTypeScriptClient(t *testing.T) {
	t.Parallel()
	node := needTSClient(t)
	plan := "# Zebracorn migration\n\nThe zebracorn migration starts on Monday. " + strings.Repeat("Each team moves its services one by one and checks the dashboards. ", 30) +
		"\n\n## Rollback plan\n\nIf the zebracorn cut-over fails, we roll back within the hour. " + strings.Repeat("The on-call engineer decides and writes the incident note. ", 30)
	env := newTestEnv(t, envOptions{install: true, setup: func(sim *ncsim.Server) {
		sim.SeedFile("alice", "/Projects/zebracorn.md", []byte(plan))
		sim.SeedFile("alice", "/Notes/groceries.md", []byte("Milk, eggs, bread."))
		sim.SeedFile("bob", "/Private/salaries.md", []byte("Bob salaries: the zebracorn team "+bobMarker+" list, confidential."))
	}})
	aliceDoc := env.mustStat(t, "alice", "/Projects/zebracorn.md")
	bobDoc := env.mustStat(t, "bob", "/Private/salaries.md")
	for _, f := range []ncsim.FileInfo{aliceDoc, bobDoc, env.mustStat(t, "alice", "/Notes/groceries.md")} {
		env.awaitFile(t, "seeded file indexed", f.ID, isIndexed(f.ETag))
	}
	proxied := env.Sim.BaseURL + "/index.php/apps/app_api/proxy/hybrid_search/mcp"
	if proxied != env.Main.Config.MCPURL() {
		t.Fatalf("proxied MCP URL %s, config says %s", proxied, env.Main.Config.MCPURL())
	}
	forbidden := []string{"--forbidden-id", itoa(bobDoc.ID)}

	// 1. Through the proxy with alice's app password, as Basic and as Bearer.
	r := runTSClient(t, node, proxied, append([]string{"--basic", "alice:" + env.Alice.AppPassword}, forbidden...)...)
	checkTSRun(t, "proxy, Basic", r, aliceDoc.ID, bobDoc.ID)
	r = runTSClient(t, node, proxied, append([]string{"--bearer", env.Alice.AppPassword}, forbidden...)...)
	checkTSRun(t, "proxy, app password as Bearer", r, aliceDoc.ID, bobDoc.ID)

	// The Go SDK's 2026-07-28 client (no initialize, per-request _meta and
	// Mcp-* headers) through the same proxy.
	goClient := sdk.NewClient(&sdk.Implementation{Name: "go-e2e", Version: "1"}, nil)
	cs, err := goClient.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: proxied, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: basicAuth{"alice", env.Alice.AppPassword}}}, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("Go SDK client through the proxy: %v", err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "nc_semantic_search", Arguments: map[string]any{"query": "rollback"}})
	if err != nil || res.IsError || cs.InitializeResult().ProtocolVersion != "2026-07-28" {
		t.Errorf("2026-07-28 search through the proxy: %v %+v", err, res)
	} else if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"file_id":`+itoa(aliceDoc.ID)) || strings.Contains(string(b), bobMarker) {
		t.Errorf("2026-07-28 search result: %s", b)
	}
	_ = cs.Close()

	// 2. Directly with a token issued by the CLI.
	var out, errb strings.Builder
	if err := runToken(t.Context(), []string{"issue", "--user", "alice", "--name", "TS client", "--json"}, env.getenv, &out, &errb); err != nil {
		t.Fatalf("token issue: %v\n%s", err, errb.String())
	}
	var issued struct {
		Token string `json:"token"`
		ID    string `json:"id"`
	}
	if err := json.Unmarshal([]byte(out.String()), &issued); err != nil || issued.Token == "" {
		t.Fatalf("token issue printed %q", out.String())
	}
	direct := env.Main.DirectMCPURL()
	r = runTSClient(t, node, direct, append([]string{"--bearer", issued.Token}, forbidden...)...)
	checkTSRun(t, "direct, bearer token", r, aliceDoc.ID, bobDoc.ID)
	// The same token through Nextcloud's proxy and through HaRP: Nextcloud
	// does not know it, logs nobody in and forwards it; the app verifies it.
	r = runTSClient(t, node, proxied, append([]string{"--bearer", issued.Token}, forbidden...)...)
	checkTSRun(t, "proxy, bearer token", r, aliceDoc.ID, bobDoc.ID)
	r = runTSClient(t, node, env.Sim.BaseURL+"/exapps/hybrid_search/mcp", append([]string{"--bearer", issued.Token}, forbidden...)...)
	checkTSRun(t, "HaRP, bearer token", r, aliceDoc.ID, bobDoc.ID)

	// 3. Refusals a real client sees: no credentials through the proxy, a
	// wrong app password, a token nobody issued, an app password sent
	// directly to the app (only Nextcloud can check it).
	for _, tt := range []struct {
		name, url string
		args      []string
	}{
		{"proxy, anonymous", proxied, nil},
		{"proxy, wrong app password", proxied, []string{"--basic", "alice:wrong"}},
		{"proxy, a token nobody issued", proxied, []string{"--bearer", "eyJhbGciOiJIUzI1NiJ9.e30.forged"}},
		{"direct, app password", direct, []string{"--basic", "alice:" + env.Alice.AppPassword}},
		{"direct, no token", direct, nil},
	} {
		if r := runTSClient(t, node, tt.url, tt.args...); r.Code != 401 || !strings.Contains(r.ConnectError, "unauthorized") {
			t.Errorf("%s: connect error %d %q, want a 401", tt.name, r.Code, r.ConnectError)
		}
	}

	// 4. Discovery: the proxy's 401 names metadata the client can reach
	// the same way; the app's own port takes app tokens only and says so,
	// its metadata naming no authorization server.
	for _, base := range []string{proxied, direct} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, body := doReq(t, req)
		ch := resp.Header.Get("WWW-Authenticate")
		_, rest, _ := strings.Cut(ch, `resource_metadata="`)
		metaURL, _, _ := strings.Cut(rest, `"`)
		if base == direct {
			if resp.StatusCode != 401 || metaURL != "" || !strings.Contains(body, "app tokens only") || !strings.Contains(body, proxied) {
				t.Errorf("%s: %d, WWW-Authenticate %q, %s", base, resp.StatusCode, ch, body)
			}
			metaURL = strings.TrimSuffix(base, "/mcp") + "/.well-known/oauth-protected-resource/mcp"
		} else if resp.StatusCode != 401 || !strings.HasPrefix(metaURL, strings.TrimSuffix(base, "/mcp")) {
			t.Errorf("%s: %d, WWW-Authenticate %q", base, resp.StatusCode, ch)
			continue
		}
		mreq, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, metaURL, nil)
		mresp, body := doReq(t, mreq)
		var md struct {
			Resource string `json:"resource"`
		}
		if err := json.Unmarshal([]byte(body), &md); err != nil || mresp.StatusCode != 200 || md.Resource != base {
			t.Errorf("metadata at %s: %d %s, want resource %s", metaURL, mresp.StatusCode, body, base)
		}
	}

	// 5. Listed, then revoked: the client is refused at once.
	out.Reset()
	if err := runToken(t.Context(), []string{"list", "--user", "alice"}, env.getenv, &out, &errb); err != nil || !strings.Contains(out.String(), issued.ID) || !strings.Contains(out.String(), "active") {
		t.Errorf("token list = %v\n%s", err, out.String())
	}
	out.Reset()
	if err := runToken(t.Context(), []string{"revoke", "--user", "alice", issued.ID}, env.getenv, &out, &errb); err != nil {
		t.Fatalf("token revoke: %v\n%s", err, errb.String())
	}
	if r := runTSClient(t, node, direct, "--bearer", issued.Token); r.Code != 401 || !strings.Contains(r.ConnectError, "revoked") {
		t.Errorf("revoked token: connect error %d %q, want a 401", r.Code, r.ConnectError)
	}
	out.Reset()
	if err := runToken(t.Context(), []string{"list", "--user", "alice"}, env.getenv, &out, &errb); err != nil || !strings.Contains(out.String(), "revoked") {
		t.Errorf("token list after revoke = %v\n%s", err, out.String())
	}
	if err := runToken(t.Context(), []string{"revoke", "--user", "bob", issued.ID}, env.getenv, &out, &errb); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("bob revoking alice's token = %v", err)
	}
}
