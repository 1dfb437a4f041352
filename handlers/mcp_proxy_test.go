package handlers_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/mcp"
)

// TestMCPBearerBehindProxies: Nextcloud's proxy and HaRP sign every request
// they forward, with user "" when nobody logged in to Nextcloud, which is
// the case for an app-issued token (Nextcloud does not know it). The app
// must then verify the bearer token itself; with a Nextcloud user, the
// Authorization header is ignored.
func TestMCPBearerBehindProxies(t *testing.T) {
	env := newMCPEnv(t)
	alice, _, err := env.tokens.Issue(t.Context(), "alice", "laptop", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	w := do(env.h, mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, asAppAPI(""), bearer(alice)))
	if isErr, txt := toolResult(t, w.Body.String()); w.Code != 200 || isErr || !strings.Contains(txt, "Alice plan") || strings.Contains(txt, "Bob") {
		t.Fatalf("alice's token through the proxy: %d %s", w.Code, w.Body.String())
	}
	w = do(env.h, mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, asAppAPI(""), bearer("not.a.token")))
	if ch := w.Header().Get("WWW-Authenticate"); w.Code != 401 || !strings.Contains(ch, `error="invalid_token"`) ||
		!strings.HasPrefix(ch, `Bearer resource_metadata="`+proxyBase+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("bad token through the proxy: %d %q", w.Code, ch)
	}
	// bob's Nextcloud login wins over whatever Authorization carries.
	w = do(env.h, mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, asAppAPI("bob"), bearer(alice)))
	if _, txt := toolResult(t, w.Body.String()); w.Code != 200 || strings.Contains(txt, "Alice plan") {
		t.Errorf("bob's login with alice's token: %d %s", w.Code, w.Body.String())
	}
	// A forged signature is refused even with a good token.
	w = do(env.h, mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, bearer(alice), func(r *http.Request) {
		asAppAPI("")(r)
		r.Header.Set("AUTHORIZATION-APP-API", "Zm9yZ2VkOnNlY3JldA==")
	}))
	if w.Code != 401 {
		t.Errorf("forged AppAPI signature with a good token: %d", w.Code)
	}
}

// TestMCPChallengeBehindHaRP: behind HaRP, requests HaRP signed itself
// (without AppAPI's shared key) came through <nextcloud>/exapps/<app>/, so
// the challenge and the metadata name that URL; AppAPI's own proxy still
// reaches the app under HaRP and sends the key.
func TestMCPChallengeBehindHaRP(t *testing.T) {
	env := newMCPEnv(t)
	endpoint, err := mcp.NewHandler(mcp.Options{Search: userDocs{}, Chunks: userDocs{}, Access: userDocs{}, Status: userDocs{},
		NextcloudURL: ncURL, AllowedOrigins: []string{ncURL}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := handlers.New(handlers.Deps{
		AppID: testAppID, AppSecret: testSecret, HaRPKey: harpKey, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{}, Publish: &fakeQueue{}, Operator: &fakeOperator{},
		Assets: fstest.MapFS{}, MCP: &handlers.MCPDeps{Handler: endpoint, Tokens: env.tokens, Users: knownUsers{"alice", "bob"}, NextcloudURL: ncURL},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	w := do(h, mcpRequest(mcp.ToolSearch, `{"query":"x"}`, asAppAPI("")))
	want := `Bearer resource_metadata="` + ncURL + `/exapps/` + testAppID + `/.well-known/oauth-protected-resource/mcp"`
	if ch := w.Header().Get("WWW-Authenticate"); w.Code != 401 || !strings.HasPrefix(ch, want) {
		t.Errorf("through HaRP: %d %q, want prefix %q", w.Code, ch, want)
	}
	w = do(h, mcpRequest(mcp.ToolSearch, `{"query":"x"}`, asAppAPI(""), func(r *http.Request) { r.Header.Set("harp-shared-key", harpKey) }))
	if ch := w.Header().Get("WWW-Authenticate"); !strings.HasPrefix(ch, `Bearer resource_metadata="`+proxyBase) {
		t.Errorf("through AppAPI's proxy under HaRP: %q", ch)
	}
}

// TestAuthorizationLeavesNoTrace: a proxied request carries the caller's
// Authorization header (Nextcloud 32-34 ignore headers_to_exclude from
// info.xml; HaRP never strips it). Whatever happens to the request, the
// app password or token must not appear in the app's logs or answers.
func TestAuthorizationLeavesNoTrace(t *testing.T) {
	const secretPW = "AppPassw0rd-7Qx9-Zk2L-secret"
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	endpoint, err := mcp.NewHandler(mcp.Options{Search: userDocs{}, Chunks: userDocs{}, Access: userDocs{}, Status: userDocs{},
		NextcloudURL: ncURL, AllowedOrigins: []string{ncURL}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	env := newMCPEnv(t)
	s, err := handlers.New(handlers.Deps{
		AppID: testAppID, AppSecret: testSecret, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{}, Publish: &fakeQueue{}, Operator: &fakeOperator{},
		Assets: fstest.MapFS{}, Logger: logger, MCP: &handlers.MCPDeps{Handler: endpoint, Tokens: env.tokens, Users: knownUsers{"alice", "bob"}, NextcloudURL: ncURL},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	basic := func(r *http.Request) { r.SetBasicAuth("alice", secretPW) }
	bearerPW := bearer(secretPW)
	requests := []*http.Request{
		mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, asAppAPI("alice"), basic),
		mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, asAppAPI("alice"), bearerPW),
		mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, asAppAPI(""), bearerPW), // refused: not an app token
		mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, bearerPW),               // direct, refused
		mcpRequest(mcp.ToolSearch, `{"query":"`+strings.Repeat("x", 2<<20)+`"}`, asAppAPI("alice"), bearerPW),
		signed(httptestRequest(http.MethodGet, "/api/status", basic), "alice"),
		signed(httptestRequest(http.MethodGet, "/api/search?q=zebracorn", bearerPW), "alice"),
		signed(httptestRequest(http.MethodGet, "/api/no-such-route", basic), "alice"),
		signed(httptestRequest(http.MethodPost, "/webhook", basic), "alice"),
		signed(httptestRequest(http.MethodGet, "/api/tokens", bearerPW), "alice"),
		httptestRequest(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", bearerPW),
	}
	for _, r := range requests {
		w := do(h, r)
		for k, vs := range w.Header() {
			for _, v := range vs {
				if strings.Contains(v, secretPW) {
					t.Errorf("%s %s: answer header %s echoes the credential", r.Method, r.URL.Path, k)
				}
			}
		}
		if strings.Contains(w.Body.String(), secretPW) {
			t.Errorf("%s %s: answer body echoes the credential", r.Method, r.URL.Path)
		}
	}
	if strings.Contains(logs.String(), secretPW) || strings.Contains(logs.String(), "YWxpY2U6QXBwUGFzc3cwcmQ") {
		t.Errorf("logs contain the credential:\n%s", logs.String())
	}
	if logs.Len() == 0 {
		t.Error("nothing was logged; the test would not notice a leak")
	}
}

func httptestRequest(method, target string, opts ...func(*http.Request)) *http.Request {
	r, _ := http.NewRequest(method, "http://app.test:23000"+target, strings.NewReader(`{"event":{"class":"x"}}`))
	r.RemoteAddr = "192.0.2.1:1234"
	for _, o := range opts {
		o(r)
	}
	return r
}
