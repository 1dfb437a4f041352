package handlers_test

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/mcp"
	"github.com/hybrid-search/hybridsearch/tokens"
)

const (
	ncURL       = "http://nc.test"
	proxyBase   = ncURL + "/index.php/apps/app_api/proxy/" + testAppID
	mcpAudience = proxyBase + "/mcp"
)

// tokenRecords is an in-memory tokens.Store; down makes it unavailable.
type tokenRecords struct {
	mu   sync.Mutex
	recs map[string]hs.Token
	down bool
}

func (m *tokenRecords) fail() error {
	if m.down {
		return hs.Errorf(hs.EUNAVAILABLE, "nats down")
	}
	return nil
}

func (m *tokenRecords) Create(ctx context.Context, t hs.Token) error { return m.Put(ctx, t) }

func (m *tokenRecords) Put(ctx context.Context, t hs.Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return err
	}
	m.recs[string(t.User)+"/"+t.ID] = t
	return nil
}

func (m *tokenRecords) Get(ctx context.Context, u hs.UserID, id string) (hs.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return hs.Token{}, err
	}
	t, ok := m.recs[string(u)+"/"+id]
	if !ok {
		return hs.Token{}, hs.Errorf(hs.ENOTFOUND, "no token")
	}
	return t, nil
}

func (m *tokenRecords) List(ctx context.Context, u hs.UserID) ([]hs.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fail(); err != nil {
		return nil, err
	}
	var out []hs.Token
	for _, t := range m.recs {
		if t.User == u {
			out = append(out, t)
		}
	}
	return out, nil
}

func (m *tokenRecords) Delete(ctx context.Context, u hs.UserID, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.recs, string(u)+"/"+id)
	return nil
}

// userDocs is a tiny index: one private document per user.
type userDocs struct{}

var docs = map[hs.FileID]struct {
	owner hs.UserID
	title string
	text  string
}{
	1: {"alice", "Alice plan", "alice's zebracorn plan"},
	2: {"bob", "Bob salaries", "bob's private zebracorn salaries"},
}

func (userDocs) Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error) {
	res := hs.SearchResult{Query: req.Query, Algorithm: "hybrid"}
	for id, d := range docs {
		if d.owner == user && strings.Contains(d.text, req.Query) {
			res.Results = append(res.Results, hs.DocumentResult{FileID: id, Title: d.title, Path: "/" + d.title, Type: hs.DocFile,
				Excerpt: hs.Excerpt{Text: d.text}, Relevance: 1})
		}
	}
	return res, nil
}

func (userDocs) FilePoints(ctx context.Context, id hs.FileID, _ bool) ([]hs.Point, error) {
	d, ok := docs[id]
	if !ok {
		return nil, nil
	}
	return []hs.Point{{Chunk: hs.Chunk{FileID: id, Text: d.text, End: len(d.text)}, File: hs.FileMeta{ID: id, Title: d.title, Readers: []hs.UserID{d.owner}}}}, nil
}

func (userDocs) FindByID(ctx context.Context, user hs.UserID, id hs.FileID) (hs.FileInfo, error) {
	if d, ok := docs[id]; ok && d.owner == user {
		return hs.FileInfo{ID: id, Path: "/" + d.title}, nil
	}
	return hs.FileInfo{}, hs.Errorf(hs.ENOTFOUND, "not visible")
}

func (userDocs) Status(ctx context.Context, user hs.UserID, all bool) (hs.IndexStatus, error) {
	return hs.IndexStatus{Files: hs.FileCounts{Indexed: 1}}, nil
}

// mcpEnv is the app's handler with the real MCP endpoint and token
// service over fakes.
type mcpEnv struct {
	h       http.Handler
	tokens  *tokens.Service
	records *tokenRecords
	now     time.Time
	mu      sync.Mutex
}

func (m *mcpEnv) clock() time.Time { m.mu.Lock(); defer m.mu.Unlock(); return m.now }
func (m *mcpEnv) advance(d time.Duration) {
	m.mu.Lock()
	m.now = m.now.Add(d)
	m.mu.Unlock()
}

func newMCPEnv(t *testing.T) *mcpEnv {
	t.Helper()
	env := &mcpEnv{records: &tokenRecords{recs: map[string]hs.Token{}}, now: time.Now().Truncate(time.Second)}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var err error
	env.tokens, err = tokens.New(tokens.Options{Secret: testSecret, Audience: mcpAudience, Issuer: proxyBase, Store: env.records, Now: env.clock, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	endpoint, err := mcp.NewHandler(mcp.Options{Search: userDocs{}, Chunks: userDocs{}, Access: userDocs{}, Status: userDocs{},
		NextcloudURL: ncURL, AllowedOrigins: []string{ncURL}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	s, err := handlers.New(handlers.Deps{
		AppID: testAppID, AppSecret: testSecret, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{}, Publish: &fakeQueue{}, Operator: &fakeOperator{},
		Assets: fstest.MapFS{}, Logger: quiet,
		MCP: &handlers.MCPDeps{Handler: endpoint, Tokens: env.tokens, Users: knownUsers{"alice", "bob"}, NextcloudURL: ncURL},
	})
	if err != nil {
		t.Fatal(err)
	}
	env.h = s.Handler()
	return env
}

// mcpRequest is a 2026-07-28 tools/call to /mcp, changed by opts.
func mcpRequest(tool, args string, opts ...func(*http.Request)) *http.Request {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	r := httptest.NewRequest(http.MethodPost, "http://app.test:23000/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", "tools/call")
	r.Header.Set("Mcp-Name", tool)
	for _, o := range opts {
		o(r)
	}
	return r
}

func bearer(tok string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
}

func asAppAPI(user string) func(*http.Request) {
	return func(r *http.Request) { signed(r, user) }
}

// toolResult decodes a tools/call answer.
func toolResult(t *testing.T, body string) (isError bool, text string) {
	t.Helper()
	var msg struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		t.Fatalf("not a JSON-RPC answer: %s", body)
	}
	for _, c := range msg.Result.Content {
		text += c.Text
	}
	return msg.Result.IsError, text
}

func TestMCPBearerTokens(t *testing.T) {
	env := newMCPEnv(t)
	ctx := t.Context()
	alice, rec, err := env.tokens.Issue(ctx, "alice", "laptop", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	revoked, old, _ := env.tokens.Issue(ctx, "alice", "old", time.Hour)
	if err := env.tokens.Revoke(ctx, "alice", old.ID); err != nil {
		t.Fatal(err)
	}
	expiring, _, _ := env.tokens.Issue(ctx, "alice", "short", time.Minute)

	// Alice's token finds alice's document and never bob's.
	w := do(env.h, mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, bearer(alice)))
	if isErr, txt := toolResult(t, w.Body.String()); w.Code != 200 || isErr || !strings.Contains(txt, "Alice plan") || strings.Contains(txt, "Bob") {
		t.Fatalf("search with alice's token: %d %s", w.Code, w.Body.String())
	}
	w = do(env.h, mcpRequest(mcp.ToolDocument, `{"file_id":2}`, bearer(alice)))
	if isErr, txt := toolResult(t, w.Body.String()); !isErr || strings.Contains(txt, "salaries") {
		t.Errorf("alice's token reading bob's document: %s", w.Body.String())
	}
	// A foreign browser origin is refused even with a good token.
	w = do(env.h, mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, bearer(alice), func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }))
	if w.Code != http.StatusForbidden {
		t.Errorf("foreign origin: %d, want 403", w.Code)
	}

	key, _ := tokens.DeriveKey(testSecret)
	forge := func(method jwt.SigningMethod, k any, change func(jwt.MapClaims)) string {
		c := jwt.MapClaims{"iss": proxyBase, "sub": "alice", "aud": mcpAudience, "jti": rec.ID, "scope": hs.TokenScope,
			"iat": env.clock().Unix(), "exp": env.clock().Add(time.Hour).Unix()}
		if change != nil {
			change(c)
		}
		raw, err := jwt.NewWithClaims(method, c).SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	parts := strings.Split(alice, ".")
	head := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(head + "." + parts[1]))
	confused := head + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"alice"`, `"bob"`, 1))) + "." + parts[2]
	env.advance(2 * time.Minute) // the one-minute token is now expired

	tests := []struct {
		name    string
		opt     func(*http.Request)
		invalid bool // error="invalid_token" in the challenge
	}{
		{"missing", func(*http.Request) {}, false},
		{"empty bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer ") }, false},
		{"app password as Basic, directly", func(r *http.Request) { r.SetBasicAuth("alice", "app-password") }, false},
		{"expired", bearer(expiring), true},
		{"wrong audience", bearer(forge(jwt.SigningMethodHS256, key, func(c jwt.MapClaims) { c["aud"] = "http://other.test/mcp" })), true},
		{"alg none", bearer(forge(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, nil)), true},
		{"RS256 with the HMAC key", bearer(confused), true},
		{"RS256 with an RSA key", bearer(forge(jwt.SigningMethodRS256, rsaKey, nil)), true},
		{"signed with the raw app secret", bearer(forge(jwt.SigningMethodHS256, []byte(testSecret), nil)), true},
		{"tampered", bearer(tampered), true},
		{"revoked", bearer(revoked), true},
		{"unknown jti", bearer(forge(jwt.SigningMethodHS256, key, func(c jwt.MapClaims) { c["jti"] = "never" })), true},
		{"garbage", bearer("garbage"), true},
		{"forged AppAPI headers", func(r *http.Request) {
			r.Header.Set("EX-APP-ID", testAppID)
			r.Header.Set("EX-APP-VERSION", "1")
			r.Header.Set("AUTHORIZATION-APP-API", base64.StdEncoding.EncodeToString([]byte("alice:guess")))
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(env.h, mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, tt.opt))
			if w.Code != http.StatusUnauthorized || strings.Contains(w.Body.String(), "Alice plan") {
				t.Fatalf("%d %s, want 401", w.Code, w.Body.String())
			}
			ch := w.Header().Get("WWW-Authenticate")
			// The app's own port takes app tokens only: no metadata to follow.
			if !strings.HasPrefix(ch, `Bearer realm="Hybrid Search (app tokens only)"`) || strings.Contains(ch, "resource_metadata") ||
				!strings.Contains(ch, `scope="search:read"`) || strings.Contains(ch, `error="invalid_token"`) != tt.invalid {
				t.Errorf("WWW-Authenticate = %q", ch)
			}
		})
	}
	// The good token still works (the clock moved two minutes).
	if w := do(env.h, mcpRequest(mcp.ToolStatus, `{}`, bearer(alice))); w.Code != 200 {
		t.Errorf("good token after the bad ones: %d %s", w.Code, w.Body.String())
	}
	// With the token store down the answer is 503, not a 401 for a good token.
	env.records.down = true
	if w := do(env.h, mcpRequest(mcp.ToolStatus, `{}`, bearer(alice))); w.Code != http.StatusServiceUnavailable {
		t.Errorf("token store down: %d %s, want 503", w.Code, w.Body.String())
	}
}

func TestMCPThroughTheProxy(t *testing.T) {
	env := newMCPEnv(t)
	// AppAPI authenticated alice's app password and names her.
	w := do(env.h, mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, asAppAPI("alice")))
	if isErr, txt := toolResult(t, w.Body.String()); w.Code != 200 || isErr || !strings.Contains(txt, "Alice plan") || strings.Contains(txt, "Bob") {
		t.Fatalf("proxied search as alice: %d %s", w.Code, w.Body.String())
	}
	// Anonymous through the proxy: 401 pointing at the proxied metadata.
	w = do(env.h, mcpRequest(mcp.ToolSearch, `{"query":"zebracorn"}`, asAppAPI("")))
	if w.Code != 401 || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), `Bearer resource_metadata="`+proxyBase+`/.well-known/oauth-protected-resource/mcp"`) ||
		!strings.Contains(w.Body.String(), "app password") {
		t.Errorf("anonymous through the proxy: %d %v %s", w.Code, w.Header(), w.Body.String())
	}
	// Oversized and malformed requests get clear errors, not a crash.
	w = do(env.h, mcpRequest(mcp.ToolSearch, `{"query":"`+strings.Repeat("x", 2<<20)+`"}`, asAppAPI("alice")))
	if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "too large") {
		t.Errorf("2 MiB request: %d %.200s", w.Code, w.Body.String())
	}
	bad := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0",`))
	bad.Header.Set("Content-Type", "application/json")
	bad.Header.Set("Accept", "application/json, text/event-stream")
	if w = do(env.h, signed(bad, "alice")); w.Code != http.StatusBadRequest {
		t.Errorf("broken JSON: %d %s", w.Code, w.Body.String())
	}
	// Nextcloud's own pages may call it (same origin as Nextcloud).
	w = do(env.h, mcpRequest(mcp.ToolStatus, `{}`, asAppAPI("alice"), func(r *http.Request) { r.Header.Set("Origin", ncURL) }))
	if w.Code != 200 {
		t.Errorf("Nextcloud origin: %d %s", w.Code, w.Body.String())
	}
}

func TestProtectedResourceMetadata(t *testing.T) {
	env := newMCPEnv(t)
	tests := []struct {
		name, path string
		opt        func(*http.Request)
		want       string
	}{
		{"direct", "/.well-known/oauth-protected-resource", onPort("10.0.0.5:23000"), "http://10.0.0.5:23000/mcp"},
		{"direct, resource form", "/.well-known/oauth-protected-resource/mcp", onPort("10.0.0.5:23000"), "http://10.0.0.5:23000/mcp"},
		{"direct, IPv6", "/.well-known/oauth-protected-resource/mcp", onPort("[::1]:23000"), "http://[::1]:23000/mcp"},
		{"direct, a client's X-Forwarded-Proto", "/.well-known/oauth-protected-resource/mcp", func(r *http.Request) {
			onPort("10.0.0.5:23000")(r)
			r.Header.Set("X-Forwarded-Proto", "https")
		}, "http://10.0.0.5:23000/mcp"},
		{"through the proxy", "/.well-known/oauth-protected-resource/mcp", asAppAPI(""), mcpAudience},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "http://app.test:23000"+tt.path, nil)
			tt.opt(r)
			w := do(env.h, r)
			var md struct {
				Resource string   `json:"resource"`
				Scopes   []string `json:"scopes_supported"`
				Methods  []string `json:"bearer_methods_supported"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &md); err != nil || w.Code != 200 {
				t.Fatalf("%d %s", w.Code, w.Body.String())
			}
			if md.Resource != tt.want || !slices.Equal(md.Scopes, []string{"search:read"}) || !slices.Equal(md.Methods, []string{"header"}) {
				t.Errorf("metadata = %+v, want resource %s", md, tt.want)
			}
		})
	}
}

func TestTokenAPI(t *testing.T) {
	env := newMCPEnv(t)
	api := func(method, path, user, body string, opts ...func(*http.Request)) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		if user != "-" {
			signed(r, user)
		}
		for _, o := range opts {
			o(r)
		}
		return do(env.h, r)
	}
	w := api(http.MethodPost, "/api/tokens", "alice", `{"name":"Claude Desktop","ttl_days":30}`)
	var issued struct {
		Token   string    `json:"token"`
		ID      string    `json:"id"`
		Name    string    `json:"name"`
		User    string    `json:"user"`
		Expires time.Time `json:"expires"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &issued); err != nil || w.Code != 201 || issued.Token == "" || issued.Name != "Claude Desktop" ||
		issued.User != "alice" || w.Header().Get("Cache-Control") != "no-store" || issued.Expires.Sub(env.clock()) != 30*24*time.Hour {
		t.Fatalf("issue: %d %v %s", w.Code, w.Header(), w.Body.String())
	}
	if w := do(env.h, mcpRequest(mcp.ToolStatus, `{}`, bearer(issued.Token))); w.Code != 200 {
		t.Errorf("new token on /mcp: %d", w.Code)
	}
	w = api(http.MethodGet, "/api/tokens", "alice", "")
	if w.Code != 200 || !strings.Contains(w.Body.String(), issued.ID) || strings.Contains(w.Body.String(), issued.Token) {
		t.Errorf("list: %d %s (must list the record, never the token)", w.Code, w.Body.String())
	}
	if w := api(http.MethodGet, "/api/tokens", "bob", ""); strings.Contains(w.Body.String(), issued.ID) {
		t.Errorf("bob's list shows alice's token: %s", w.Body.String())
	}
	if w := api(http.MethodDelete, "/api/tokens/"+issued.ID, "bob", ""); w.Code != 404 {
		t.Errorf("bob revoking alice's token: %d, want 404", w.Code)
	}
	if w := api(http.MethodDelete, "/api/tokens/"+issued.ID, "alice", ""); w.Code != 204 {
		t.Errorf("revoke: %d %s", w.Code, w.Body.String())
	}
	if w := do(env.h, mcpRequest(mcp.ToolStatus, `{}`, bearer(issued.Token))); w.Code != 401 {
		t.Errorf("revoked token on /mcp: %d, want 401", w.Code)
	}

	bad := []struct {
		name, method, path, user, body string
		opts                           []func(*http.Request)
		want                           int
	}{
		{"no user", http.MethodPost, "/api/tokens", "", `{}`, nil, 401},
		{"no AppAPI auth", http.MethodGet, "/api/tokens", "-", ``, nil, 401},
		{"a bearer token cannot manage tokens", http.MethodPost, "/api/tokens", "-", `{}`, []func(*http.Request){bearer(issued.Token)}, 401},
		{"unknown field", http.MethodPost, "/api/tokens", "alice", `{"name":"x","scope":"admin"}`, nil, 400},
		{"not JSON", http.MethodPost, "/api/tokens", "alice", `name=x`, nil, 400},
		{"ttl over a year", http.MethodPost, "/api/tokens", "alice", `{"ttl_days":400}`, nil, 400},
		{"negative ttl", http.MethodPost, "/api/tokens", "alice", `{"ttl_days":-1}`, nil, 400},
		{"huge ttl", http.MethodPost, "/api/tokens", "alice", `{"ttl_days":9999999999}`, nil, 400},
		{"long name", http.MethodPost, "/api/tokens", "alice", `{"name":"` + strings.Repeat("n", 101) + `"}`, nil, 400},
	}
	for _, tt := range bad {
		if w := api(tt.method, tt.path, tt.user, tt.body, tt.opts...); w.Code != tt.want {
			t.Errorf("%s: %d %s, want %d", tt.name, w.Code, w.Body.String(), tt.want)
		}
	}
	// No body at all means the defaults.
	if w := api(http.MethodPost, "/api/tokens", "alice", ""); w.Code != 201 || !strings.Contains(w.Body.String(), tokens.DefaultName) {
		t.Errorf("issue without a body: %d %s", w.Code, w.Body.String())
	}
}

// TestMCPRoutesReachable checks that the proxy reaches /mcp and the
// metadata as anyone (the app answers 401 itself, with discovery), never
// forwards the authorization header, and that the token API is USER.
func TestMCPRoutesReachable(t *testing.T) {
	routes := parseInfoRoutes(t)
	env := newMCPEnv(t)
	e := echo.New()
	s, err := handlers.New(handlers.Deps{AppID: testAppID, AppSecret: "x", Lifecycle: &fakeLifecycle{}, Status: fakeStatus{}, Publish: &fakeQueue{},
		Operator: &fakeOperator{}, Assets: fstest.MapFS{}, MCP: &handlers.MCPDeps{Handler: http.NotFoundHandler(), Tokens: env.tokens, Users: knownUsers{"alice", "bob"}, NextcloudURL: ncURL}})
	if err != nil {
		t.Fatal(err)
	}
	s.Register(e)
	want := map[string]string{"mcp": "PUBLIC", ".well-known/oauth-protected-resource": "PUBLIC", ".well-known/oauth-protected-resource/mcp": "PUBLIC",
		"api/tokens": "USER", "api/tokens/abc": "USER"}
	seen := 0
	for _, r := range e.Routes() {
		path := strings.TrimPrefix(strings.ReplaceAll(r.Path, ":id", "abc"), "/")
		level, ok := want[path]
		if !ok {
			continue
		}
		seen++
		for _, gen := range generationsFor(r.Method) {
			m := matchRoute(t, routes, r.Method, path, gen)
			if m == nil || m.AccessLevel != level {
				t.Errorf("%s /%s (generation %d): route %+v, want access %s", r.Method, path, gen, m, level)
				continue
			}
			if level == "PUBLIC" {
				// App-issued bearer tokens must reach the app on Nextcloud
				// 35 too, which honours headers_to_exclude (32-34 ignore it
				// and HaRP never applies it); the app ignores an
				// Authorization header once Nextcloud named a user.
				var excl []string
				_ = json.Unmarshal([]byte(m.HeadersToExclude), &excl)
				if contains(excl, "authorization") {
					t.Errorf("/%s: Nextcloud 35 would strip app-issued bearer tokens", path)
				}
			}
		}
	}
	if seen != 11 {
		t.Errorf("checked %d MCP routes, want 11 (POST, GET, DELETE and OPTIONS /mcp, 2 metadata and their preflights, 3 token routes)", seen)
	}
	// Without MCP deps the routes are absent; incomplete deps are refused.
	if _, err := handlers.New(handlers.Deps{AppID: testAppID, AppSecret: "x", Lifecycle: &fakeLifecycle{}, Status: fakeStatus{}, Publish: &fakeQueue{},
		Operator: &fakeOperator{}, Assets: fstest.MapFS{}, MCP: &handlers.MCPDeps{Handler: http.NotFoundHandler()}}); err == nil || !strings.Contains(err.Error(), "Tokens") {
		t.Errorf("New with MCP deps missing Tokens = %v", err)
	}
}

// knownUsers are the users that exist in Nextcloud.
type knownUsers []hs.UserID

func (k knownUsers) UserExists(_ context.Context, u hs.UserID) (bool, error) {
	return slices.Contains(k, u), nil
}

// TestMCPMethods: OPTIONS lists only the methods /mcp answers (POST); GET
// (a legacy SSE stream) and DELETE (a session end) get 405 naming them
// once signed in, and 401 with the challenge before (mcp-remote probes
// the MCP URL with a GET to find the metadata); other methods get 405.
func TestMCPMethods(t *testing.T) {
	env := newMCPEnv(t)
	rec := do(env.h, httptest.NewRequest(http.MethodOptions, "http://app.test:23000/mcp", nil))
	if rec.Code != http.StatusNoContent || rec.Header().Get("Allow") != "OPTIONS, POST" {
		t.Errorf("OPTIONS /mcp = %d, Allow %q; want 204, OPTIONS, POST", rec.Code, rec.Header().Get("Allow"))
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		rec := do(env.h, signed(httptest.NewRequest(m, "http://app.test:23000/mcp", nil), "alice"))
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "OPTIONS, POST" {
			t.Errorf("%s /mcp as alice = %d, Allow %q; want 405, OPTIONS, POST", m, rec.Code, rec.Header().Get("Allow"))
		}
		rec = do(env.h, signed(httptest.NewRequest(m, "http://app.test:23000/mcp", nil), ""))
		if rec.Code != http.StatusUnauthorized || !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), `Bearer resource_metadata="`+proxyBase) {
			t.Errorf("%s /mcp anonymous through the proxy = %d, WWW-Authenticate %q; want 401 with the challenge", m, rec.Code, rec.Header().Get("WWW-Authenticate"))
		}
	}
	if rec := do(env.h, httptest.NewRequest(http.MethodPut, "http://app.test:23000/mcp", nil)); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("PUT /mcp = %d, want 405", rec.Code)
	}
}
