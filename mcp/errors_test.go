package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/mcp"
)

// TestToolErrors: bad arguments and failures are tool results with
// isError and a clear message, never protocol errors.
func TestToolErrors(t *testing.T) {
	idx := newFakeIndex()
	url, _ := serve(t, idx, mcp.Options{})
	cs := connect(t, url, "alice", "2026-07-28")
	tests := []struct {
		name  string
		tool  string
		args  map[string]any
		setup func()
		want  string
	}{
		{"missing query", mcp.ToolSearch, map[string]any{}, nil, `missing properties: ["query"]`},
		{"blank query", mcp.ToolSearch, map[string]any{"query": "   "}, nil, "query is empty"},
		{"query of the wrong type", mcp.ToolSearch, map[string]any{"query": 42}, nil, "query"},
		{"limit of the wrong type", mcp.ToolSearch, map[string]any{"query": "q", "limit": "ten"}, nil, "limit"},
		{"fractional limit", mcp.ToolSearch, map[string]any{"query": "q", "limit": 2.5}, nil, "limit"},
		{"unknown argument", mcp.ToolSearch, map[string]any{"query": "q", "q": "x"}, nil, `unexpected additional properties ["q"]`},
		{"unknown algorithm", mcp.ToolSearch, map[string]any{"query": "q", "algorithm": "magic"}, nil, "algorithm"},
		{"negative weight", mcp.ToolSearch, map[string]any{"query": "q", "semantic_weight": -0.5}, nil, "semantic_weight"},
		{"all weights zero", mcp.ToolSearch, map[string]any{"query": "q", "semantic_weight": 0, "keyword_weight": 0, "fuzzy_weight": 0}, nil, "invalid arguments: at least one weight must be above 0 (semantic_weight 0, keyword_weight 0, fuzzy_weight 0)"},
		{"weights sum over 1", mcp.ToolSearch, map[string]any{"query": "q", "semantic_weight": 0.7, "keyword_weight": 0.2, "fuzzy_weight": 0.2}, nil, "invalid arguments: weights must sum to at most 1, they sum to 1.1 (semantic_weight 0.7, keyword_weight 0.2, fuzzy_weight 0.2)"},
		{"one weight over 1 with the defaults", mcp.ToolSearch, map[string]any{"query": "q", "semantic_weight": 1}, nil, "they sum to 1.5 (semantic_weight 1, keyword_weight 0.3 (default), fuzzy_weight 0.2 (default))"},
		{"limit over the largest page", mcp.ToolSearch, map[string]any{"query": "q", "limit": 1000000}, nil, "invalid argument limit: maximum: 1000000 is greater than 50"},
		{"huge threshold", mcp.ToolSearch, map[string]any{"query": "q", "score_threshold": 1e21}, nil, "invalid argument score_threshold: maximum: 1e21 is greater than 1"},
		{"900 KB query", mcp.ToolSearch, map[string]any{"query": strings.Repeat("x", 900<<10)}, nil, "(921600 characters)"},
		{"long unknown algorithm", mcp.ToolSearch, map[string]any{"query": "q", "algorithm": strings.Repeat("z", 3000)}, nil, "invalid argument algorithm: enum: " + strings.Repeat("z", 100) + "… (3000 characters)"},
		{"long bad date", mcp.ToolSearch, map[string]any{"query": "q", "modified_after": strings.Repeat("y", 5000)}, nil, `modified_after "` + strings.Repeat("y", 100) + `"… (5000 characters) is not an RFC 3339 date`},
		{"long path prefix", mcp.ToolSearch, map[string]any{"query": "q", "path_prefix": strings.Repeat("p", 5000)}, nil, "(5000 characters)"},
		{"long unknown argument", mcp.ToolSearch, map[string]any{"query": "q", strings.Repeat("k", 5000): 1}, nil, "unexpected additional properties"},
		{"weight of the wrong type", mcp.ToolSearch, map[string]any{"query": "q", "keyword_weight": "high"}, nil, "keyword_weight"},
		{"unknown doc type", mcp.ToolSearch, map[string]any{"query": "q", "doc_types": []string{"pdf"}}, nil, "doc_types"},
		{"bad date", mcp.ToolSearch, map[string]any{"query": "q", "modified_after": "last tuesday"}, nil, `modified_after "last tuesday" is not an RFC 3339 date`},
		{"threshold out of range", mcp.ToolSearch, map[string]any{"query": "q", "score_threshold": 7}, nil, "score_threshold"},
		{"long query", mcp.ToolSearch, map[string]any{"query": strings.Repeat("x", 1001)}, nil, "query"},
		{"search refuses", mcp.ToolSearch, map[string]any{"query": "q"}, func() { idx.searchErr = hs.Errorf(hs.EINVALID, "search: fusion auto chooses the weights itself") }, "invalid arguments: search: fusion auto chooses the weights itself"},
		{"search unavailable", mcp.ToolSearch, map[string]any{"query": "q"}, func() { idx.searchErr = hs.Errorf(hs.EUNAVAILABLE, "no retrieval leg could run") }, "temporarily unavailable, try again shortly: no retrieval leg could run"},
		{"internal error is not shown", mcp.ToolSearch, map[string]any{"query": "q"}, func() { idx.searchErr = errors.New("qdrant: secret detail at 10.0.0.3") }, "internal error (the app's log has the details)"},
		{"cancelled", mcp.ToolSearch, map[string]any{"query": "q"}, func() { idx.searchErr = fmt.Errorf("search: %w", context.Canceled) }, "cancelled or timed out"},
		{"missing file id", mcp.ToolDocument, map[string]any{}, nil, `missing properties: ["file_id"]`},
		{"file id of the wrong type", mcp.ToolDocument, map[string]any{"file_id": "eleven"}, nil, "file_id"},
		{"zero file id", mcp.ToolDocument, map[string]any{"file_id": 0}, nil, "file_id"},
		{"unknown file id", mcp.ToolDocument, map[string]any{"file_id": 404}, nil, "not found: no document with file_id 404 that you can read is indexed"},
		{"chunk out of range", mcp.ToolDocument, map[string]any{"file_id": 11, "chunk": 9}, nil, "chunk 9 is out of range: the document has chunks 0 to 2"},
		{"offset past the end", mcp.ToolDocument, map[string]any{"file_id": 11, "offset": 5000}, nil, "offset 5000 is past the end of the text (86 characters)"},
		{"max_chars too small", mcp.ToolDocument, map[string]any{"file_id": 11, "max_chars": 10}, nil, "max_chars"},
		{"window too large", mcp.ToolDocument, map[string]any{"file_id": 11, "chunk": 1, "window": 50}, nil, "window"},
		{"nextcloud unavailable", mcp.ToolDocument, map[string]any{"file_id": 11}, func() { idx.accessErr = hs.Errorf(hs.EUNAVAILABLE, "nextcloud: 503") }, "temporarily unavailable, try again shortly: Nextcloud did not confirm that you can read this document"},
		{"status arguments", mcp.ToolStatus, map[string]any{"everyone": true}, nil, "unexpected additional properties"},
		{"status unavailable", mcp.ToolStatus, nil, func() { idx.statusErr = hs.Errorf(hs.EUNAVAILABLE, "queue unavailable") }, "temporarily unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx.searchErr, idx.accessErr, idx.statusErr = nil, nil, nil
			if tt.setup != nil {
				tt.setup()
			}
			res := call(t, cs, tt.tool, tt.args)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Errorf("isError %v, text %q; want an error containing %q", res.IsError, text(res), tt.want)
			}
			if strings.Contains(text(res), "10.0.0.3") {
				t.Errorf("internal detail leaked: %s", text(res))
			}
			if n := len(text(res)); n > 600 {
				t.Errorf("an error of %d bytes: %.600s…", n, text(res))
			}
		})
	}
}

// post sends one raw JSON-RPC body as alice and returns status and body.
func post(t *testing.T, url, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(testUserHeader, "alice")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// modern are the headers and _meta of a 2026-07-28 tools/call.
func modern(tool, args string) (string, map[string]string) {
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}}}`
	return body, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool}
}

// TestBadRequests: malformed traffic gets a clear HTTP or JSON-RPC error
// and the endpoint keeps working.
func TestBadRequests(t *testing.T) {
	url, _ := serve(t, newFakeIndex(), mcp.Options{MaxBodyBytes: 64 << 10})
	call, callHeaders := modern(mcp.ToolSearch, `{"query":"zebracorn"}`)
	unknownTool, unknownHeaders := modern("nc_delete_everything", `{}`)
	tests := []struct {
		name       string
		body       string
		header     map[string]string
		wantStatus int
		want       string
	}{
		{"not JSON", `{"jsonrpc":"2.0",`, nil, 400, ""},
		{"not JSON-RPC", `{"hello":"world"}`, nil, 400, ""},
		{"a JSON-RPC response", `{"jsonrpc":"2.0","id":1,"result":{}}`, nil, 0, ""},
		{"no Accept", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Accept": ""}, 400, "Accept"},
		{"wrong content type", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Content-Type": "text/plain"}, 415, "application/json"},
		{"unsupported protocol version", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"MCP-Protocol-Version": "1999-01-01"}, 400, "unsupported protocol version"},
		{"unknown method, 2026-07-28", strings.Replace(call, "tools/call", "files/delete", 1), map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "files/delete"}, 404, "-32601"},
		{"unknown tool", unknownTool, unknownHeaders, 400, `"code":-32602,"message":"unknown tool \"nc_delete_everything\""`},
		{"unknown tool, legacy", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, nil, 200, `"code":-32602,"message":"unknown tool \"nope\""`},
		{"header and _meta disagree", call, map[string]string{"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/call", "Mcp-Name": mcp.ToolSearch}, 400, ""},
		{"oversized request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nc_semantic_search","arguments":{"query":"` + strings.Repeat("x", 70<<10) + `"}}}`, nil, 413, "exceeds"},
		{"a good 2026-07-28 call", call, callHeaders, 200, `"structuredContent"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := post(t, url, tt.body, tt.header)
			if tt.wantStatus != 0 && status != tt.wantStatus || tt.wantStatus == 0 && status < 400 && status != 202 {
				t.Errorf("status %d, want %d; body %s", status, tt.wantStatus, body)
			}
			if !strings.Contains(body, tt.want) {
				t.Errorf("body %q does not contain %q", body, tt.want)
			}
		})
	}
	// A GET (legacy SSE stream) and a DELETE (legacy session end) are not
	// served by a stateless endpoint.
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequestWithContext(t.Context(), m, url, nil)
		req.Header.Set(testUserHeader, "alice")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, resp.StatusCode)
		}
	}
	// Still serving.
	if status, _, body := post(t, url, call, callHeaders); status != 200 || !strings.Contains(body, "Zebracorn plan") {
		t.Errorf("after bad requests: %d %s", status, body)
	}
}

// TestUserAndOrigin: no acting user gives 401; a browser request from a
// foreign origin gives 403; Nextcloud's origin passes.
func TestUserAndOrigin(t *testing.T) {
	url, _ := serve(t, newFakeIndex(), mcp.Options{AllowedOrigins: []string{"https://cloud.example.com/", "http://localhost:8080/nextcloud"}})
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no user", map[string]string{testUserHeader: ""}, 401},
		{"foreign origin", map[string]string{"Origin": "http://evil.example"}, 403},
		{"rebound name on our port", map[string]string{"Origin": "http://attacker.test:8080"}, 403},
		{"null origin", map[string]string{"Origin": "null"}, 403},
		{"origin with another port", map[string]string{"Origin": "https://cloud.example.com:8443"}, 403},
		{"Nextcloud's origin", map[string]string{"Origin": "https://CLOUD.example.com:443"}, 200},
		{"a second allowed origin", map[string]string{"Origin": "http://localhost:8080"}, 200},
		{"no origin (not a browser)", nil, 200},
		{"the endpoint's own loopback origin", map[string]string{"Host": "localhost:8601", "Origin": "http://localhost:8601"}, 200},
		{"own origin on 127.0.0.1", map[string]string{"Host": "127.0.0.1:8601", "Origin": "http://127.0.0.1:8601"}, 200},
		{"rebound name as Host and Origin", map[string]string{"Host": "evil.example.com", "Origin": "http://evil.example.com"}, 403},
		{"loopback Host, another port's origin", map[string]string{"Host": "localhost:8601", "Origin": "http://localhost:9999"}, 403},
		{"loopback Host, foreign origin", map[string]string{"Host": "localhost:8601", "Origin": "http://evil.example.com"}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := post(t, url, list, tt.header)
			if status != tt.want {
				t.Errorf("status %d, want %d: %s", status, tt.want, body)
			}
			if status == 401 && !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without WWW-Authenticate: %v", h)
			}
		})
	}
}

func TestNewHandlerRequiresDeps(t *testing.T) {
	idx := newFakeIndex()
	full := mcp.Options{Search: idx, Chunks: idx, Access: idx, Status: idx}
	for _, tt := range []struct {
		name   string
		change func(*mcp.Options)
	}{
		{"Search", func(o *mcp.Options) { o.Search = nil }},
		{"Chunks", func(o *mcp.Options) { o.Chunks = nil }},
		{"Access", func(o *mcp.Options) { o.Access = nil }},
		{"Status", func(o *mcp.Options) { o.Status = nil }},
	} {
		o := full
		tt.change(&o)
		if _, err := mcp.NewHandler(o); err == nil || !strings.Contains(err.Error(), tt.name) {
			t.Errorf("NewHandler without %s = %v", tt.name, err)
		}
	}
	if _, err := mcp.NewHandler(full); err != nil {
		t.Errorf("NewHandler: %v", err)
	}
}

// TestAnswersOnlyDeclared: the endpoint declares tools, resources
// (without subscriptions) and prompts, and answers every other request
// (logging, completion, subscriptions, unknown methods) with JSON-RPC
// -32601 on every protocol version: HTTP 404 on 2026-07-28 (SEP-2575),
// 200 before.
func TestAnswersOnlyDeclared(t *testing.T) {
	url, _ := serve(t, newFakeIndex(), mcp.Options{})
	cs := connect(t, url, "alice", "2025-11-25")
	caps := cs.InitializeResult().Capabilities
	//lint:ignore SA1019 the test checks that the deprecated logging capability is not declared
	if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Logging != nil || caps.Completions != nil ||
		caps.Resources.Subscribe || caps.Resources.ListChanged || caps.Prompts.ListChanged || caps.Tools.ListChanged {
		t.Errorf("declared capabilities %+v", caps)
	}
	methods := []struct{ method, params string }{
		{"resources/subscribe", `{"uri":"nextcloud://document/11"}`},
		{"resources/unsubscribe", `{"uri":"nextcloud://document/11"}`},
		{"logging/setLevel", `{"level":"info"}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"search_nextcloud"},"argument":{"name":"question","value":"b"}}`},
		{"files/delete", `{}`},
		{strings.Repeat("m", 5000), `{}`},
	}
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		for _, m := range methods {
			params := m.params
			header := map[string]string{"MCP-Protocol-Version": v}
			want := 200
			if v == "2026-07-28" {
				params = strings.Replace(params, "{", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}},`, 1)
				params = strings.Replace(params, ",}", "}", 1)
				header["Mcp-Method"] = m.method
				want = 404
			}
			body := `{"jsonrpc":"2.0","id":9,"method":"` + m.method + `","params":` + params + `}`
			status, _, got := post(t, url, body, header)
			if status != want || !strings.Contains(got, `"code":-32601`) || !strings.Contains(got, `"id":9`) || len(got) > 400 {
				t.Errorf("%s %.40s: %d %.300s, want %d with -32601", v, m.method, status, got, want)
			}
		}
	}
	// A 2025-03-26 batch reaches the SDK whole; its refused request is
	// still refused, the others answered.
	status, _, got := post(t, url, `[{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		map[string]string{"MCP-Protocol-Version": "2025-03-26"})
	if status != 200 || !strings.Contains(got, `"code":-32601`) || !strings.Contains(got, `"id":2,"result":{}`) {
		t.Errorf("batch: %d %s", status, got)
	}
	// What is declared still works on the same versions.
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		status, _, got := post(t, url, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, map[string]string{"MCP-Protocol-Version": v})
		if status != 200 || !strings.Contains(got, mcp.ToolSearch) {
			t.Errorf("%s tools/list: %d %.200s", v, status, got)
		}
	}
}

// TestDocumentResources: documents are resources by template; reading
// one applies nc_get_document's access checks, and anything the user
// cannot read is "not found", like a URI that names no document.
func TestDocumentResources(t *testing.T) {
	idx := newFakeIndex()
	url, _ := serve(t, idx, mcp.Options{})
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		cs := connect(t, url, "alice", v)
		list, err := cs.ListResources(t.Context(), nil)
		if err != nil || len(list.Resources) != 0 {
			t.Errorf("%s resources/list = %+v, %v; want none", v, list, err)
		}
		tpl, err := cs.ListResourceTemplates(t.Context(), nil)
		if err != nil || len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != mcp.DocumentURIPrefix+"{file_id}" {
			t.Fatalf("%s resources/templates/list = %+v, %v", v, tpl, err)
		}
		res, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: mcp.DocumentURIPrefix + "11"})
		if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "The zebracorn migration starts on Monday.") ||
			res.Contents[0].MIMEType != "text/plain" || res.CacheScope != "private" {
			t.Errorf("%s read alice's document: %+v, %v", v, res, err)
		}
		for _, uri := range []string{mcp.DocumentURIPrefix + "21", mcp.DocumentURIPrefix + "404", mcp.DocumentURIPrefix + "x", mcp.DocumentURIPrefix + "-1", "file:///etc/passwd", mcp.DocumentURIPrefix + strings.Repeat("9", 3000)} {
			_, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri})
			if err == nil || strings.Contains(err.Error(), "Bob") || len(err.Error()) > 400 {
				t.Errorf("%s read %.40s as alice: %.400v, want not found", v, uri, err)
			}
		}
	}
	// Nextcloud no longer lets alice read it: not found, though indexed.
	idx.revoked[11] = true
	cs := connect(t, url, "alice", "2025-11-25")
	if _, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: mcp.DocumentURIPrefix + "11"}); err == nil {
		t.Error("a revoked document was read")
	}
}

// TestSearchPrompt: the prompt puts the user's question into a message
// that names the tools; without a question it is invalid params.
func TestSearchPrompt(t *testing.T) {
	url, _ := serve(t, newFakeIndex(), mcp.Options{})
	cs := connect(t, url, "alice", "2025-11-25")
	list, err := cs.ListPrompts(t.Context(), nil)
	if err != nil || len(list.Prompts) != 1 || list.Prompts[0].Name != mcp.PromptSearch || list.Prompts[0].Description == "" ||
		len(list.Prompts[0].Arguments) != 1 || !list.Prompts[0].Arguments[0].Required {
		t.Fatalf("prompts/list = %+v, %v", list, err)
	}
	res, err := cs.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: mcp.PromptSearch, Arguments: map[string]string{"question": "When does the zebracorn migration start?"}})
	if err != nil || len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("prompts/get = %+v, %v", res, err)
	}
	if tc, ok := res.Messages[0].Content.(*sdk.TextContent); !ok || !strings.Contains(tc.Text, "When does the zebracorn migration start?") || !strings.Contains(tc.Text, mcp.ToolSearch) {
		t.Errorf("prompt message %+v", res.Messages[0].Content)
	}
	if _, err := cs.GetPrompt(t.Context(), &sdk.GetPromptParams{Name: mcp.PromptSearch}); err == nil || !strings.Contains(err.Error(), "question is required") {
		t.Errorf("prompt without a question: %v", err)
	}
}

// TestSearchTakesTheDefaultsInForce: weights a call leaves out are the
// defaults in force at the call (an admin may change them while the app
// runs), not those the endpoint started with.
func TestSearchTakesTheDefaultsInForce(t *testing.T) {
	idx := newFakeIndex()
	var mu sync.Mutex
	defaults := hs.DefaultSearchRules().Defaults
	url, _ := serve(t, idx, mcp.Options{Defaults: func() hs.SearchDefaults {
		mu.Lock()
		defer mu.Unlock()
		return defaults
	}})
	cs := connect(t, url, "alice", "2026-07-28")
	mu.Lock()
	defaults.Weights = hs.Weights{Semantic: 0.1, Keyword: 0.8, Fuzzy: 0.1}
	mu.Unlock()
	if res := call(t, cs, mcp.ToolSearch, map[string]any{"query": "q", "semantic_weight": 0.1}); res.IsError {
		t.Fatalf("semantic_weight 0.1 with the admin's defaults: %s", text(res))
	}
	idx.mu.Lock()
	got := idx.lastReq.Weights
	idx.mu.Unlock()
	if got == nil || *got != (hs.Weights{Semantic: 0.1, Keyword: 0.8, Fuzzy: 0.1}) {
		t.Errorf("weights sent %v, want the given semantic weight and the admin's others", got)
	}
	res := call(t, cs, mcp.ToolSearch, map[string]any{"query": "q", "semantic_weight": 0.5})
	if want := "they sum to 1.4 (semantic_weight 0.5, keyword_weight 0.8 (default), fuzzy_weight 0.1 (default))"; !res.IsError || !strings.Contains(text(res), want) {
		t.Errorf("isError %v, text %q; want an error containing %q", res.IsError, text(res), want)
	}
	// tools/list names the defaults in force, not those at start.
	mu.Lock()
	defaults.Fusion = hs.FusionLinear
	mu.Unlock()
	props := searchSchemaProps(t, cs)
	for prop, want := range map[string]string{"keyword_weight": "currently 0.8;", "semantic_weight": "currently 0.1;", "fusion": "currently linear."} {
		if !strings.Contains(props[prop].Description, want) {
			t.Errorf("%s described as %q, want it to say %q", prop, props[prop].Description, want)
		}
	}
}

// searchSchemaProps lists the tools and returns the search tool's
// argument properties.
func searchSchemaProps(t *testing.T, cs *sdk.ClientSession) map[string]struct{ Description string } {
	t.Helper()
	b, _ := json.Marshal(searchTool(t, cs).InputSchema)
	var s struct {
		Properties map[string]struct{ Description string }
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Properties
}

// searchTool lists the tools and returns the search tool.
func searchTool(t *testing.T, cs *sdk.ClientSession) *sdk.Tool {
	t.Helper()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == mcp.ToolSearch {
			return tool
		}
	}
	t.Fatalf("no %s in tools/list", mcp.ToolSearch)
	return nil
}

// TestSkippedLegsCarryCodes: a leg that could not run is reported with
// its code next to the reason, and the output schema documents the codes.
func TestSkippedLegsCarryCodes(t *testing.T) {
	idx := newFakeIndex()
	idx.skipped = []hs.SkippedLeg{{Leg: hs.AlgorithmSemantic, Code: hs.SkipSemanticOff, Reason: "semantic search is off: no embedding model is configured"}}
	url, _ := serve(t, idx, mcp.Options{})
	cs := connect(t, url, "alice", "2026-07-28")
	res := call(t, cs, mcp.ToolSearch, map[string]any{"query": "zebracorn"})
	var out struct {
		SkippedLegs []hs.SkippedLeg `json:"skipped_legs"`
	}
	structured(t, res, &out)
	if !slices.Equal(out.SkippedLegs, idx.skipped) {
		t.Errorf("skipped_legs %+v, want %+v", out.SkippedLegs, idx.skipped)
	}
	if !strings.Contains(text(res), "semantic search did not run: semantic search is off") {
		t.Errorf("text lacks the skipped leg: %s", text(res))
	}
	b, _ := json.Marshal(searchTool(t, cs).OutputSchema)
	for _, code := range hs.SkipCodes {
		if !strings.Contains(string(b), code) {
			t.Errorf("the output schema does not document %s: %s", code, b)
		}
	}
}
