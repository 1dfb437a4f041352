package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/mcp"
)

// harpKey is the HP_SHARED_KEY of the HaRP tests: AppAPI sends it on the
// requests it makes through HaRP (AppAPICommonService::buildAppAPIAuthHeaders),
// HaRP passes it on, a client never knows it.
const harpKey = "harp-shared-key-0123456789"

// newTrustServer is the handler with OAuth, behind HaRP when key is set.
func newTrustServer(t *testing.T, key string) http.Handler {
	t.Helper()
	env := newMCPEnv(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	endpoint, err := mcp.NewHandler(mcp.Options{Search: userDocs{}, Chunks: userDocs{}, Access: userDocs{}, Status: userDocs{},
		NextcloudURL: ncURL, AllowedOrigins: []string{ncURL}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	s, err := handlers.New(handlers.Deps{
		AppID: testAppID, AppSecret: testSecret, HaRPKey: key, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{}, Publish: &fakeQueue{}, Operator: &fakeOperator{},
		Assets: fstest.MapFS{}, Logger: quiet,
		MCP: &handlers.MCPDeps{Handler: endpoint, Tokens: env.tokens, Users: knownUsers{"alice", "bob"}, NextcloudURL: ncURL, OAuth: &fakeAuth{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}

// onPort puts the connection's local address into r, as net/http does.
func onPort(addr string) func(*http.Request) {
	return func(r *http.Request) {
		a, _ := net.ResolveTCPAddr("tcp", addr)
		*r = *r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, a))
	}
}

// TestClientHeadersDecideNothing: a client sets Host, X-Forwarded-Proto
// and AA-REQUEST-ID as it likes (HaRP passes client headers through), so
// none of them may choose a URL the app announces, a trust decision or a
// cached answer: on the app's own port the metadata and the 401 name the
// address the connection came in on, never the Host sent; behind HaRP,
// only AppAPI's shared key (not AA-REQUEST-ID) tells AppAPI's proxy from
// HaRP's own /exapps/ route; a request id is taken over only from AppAPI.
func TestClientHeadersDecideNothing(t *testing.T) {
	h := newTrustServer(t, "")
	evil := func(r *http.Request) {
		r.Host = "evil.example"
		r.Header.Set("X-Forwarded-Host", "evil.example")
		r.Header.Set("X-Forwarded-Proto", "https")
	}
	direct := onPort("127.0.0.1:23000")

	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		direct(r)
		evil(r)
		w := do(h, r)
		if w.Code != 200 || strings.Contains(w.Body.String(), "evil") || !strings.Contains(w.Body.String(), `"resource":"http://127.0.0.1:23000/mcp"`) ||
			strings.Contains(w.Body.String(), "authorization_servers") || !strings.Contains(w.Body.String(), "app tokens only") {
			t.Errorf("direct %s with a forged Host: %d %s", path, w.Code, w.Body.String())
		}
	}
	w := do(h, mcpRequest(mcp.ToolStatus, `{}`, direct, evil))
	if ch := w.Header().Get("WWW-Authenticate"); w.Code != 401 || strings.Contains(ch, "evil") || strings.Contains(w.Body.String(), "evil") ||
		strings.Contains(ch, "resource_metadata") || !strings.Contains(w.Body.String(), "app tokens only") || !strings.Contains(w.Body.String(), mcpAudience) {
		t.Errorf("direct 401 with a forged Host: %d %q %s", w.Code, ch, w.Body.String())
	}
	// The authorization server is the proxy's: its documents are not
	// served on the app's own port, where no OAuth sign-in happens.
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		direct(r)
		if w := do(h, r); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "app tokens only") {
			t.Errorf("direct %s: %d %s, want 404 saying app tokens only", path, w.Code, w.Body.String())
		}
	}

	// A request id is AppAPI's only when AppAPI signed the request.
	r := httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource", nil)
	r.Header.Set("AA-REQUEST-ID", "forged-id")
	if got := do(h, r).Header().Get(handlers.RequestIDHeader); got == "forged-id" || got == "" {
		t.Errorf("an unsigned request's AA-REQUEST-ID was taken over: %q", got)
	}
	r = signed(httptest.NewRequest(http.MethodGet, "/api/status", nil), "alice")
	r.Header.Set("AA-REQUEST-ID", "nc-request-1")
	if got := do(h, r).Header().Get(handlers.RequestIDHeader); got != "nc-request-1" {
		t.Errorf("AppAPI's request id = %q, want it taken over", got)
	}

	// Behind HaRP.
	h = newTrustServer(t, harpKey)
	harpURL := ncURL + "/exapps/" + testAppID
	for _, tt := range []struct {
		name string
		opt  func(*http.Request)
		want string
	}{
		{"HaRP's own route", func(*http.Request) {}, harpURL},
		{"HaRP's own route, a client's AA-REQUEST-ID", func(r *http.Request) { r.Header.Set("AA-REQUEST-ID", "abc") }, harpURL},
		{"HaRP's own route, a wrong key", func(r *http.Request) { r.Header.Set("harp-shared-key", "guess") }, harpURL},
		{"AppAPI's proxy", func(r *http.Request) { r.Header.Set("AA-REQUEST-ID", "abc"); r.Header.Set("harp-shared-key", harpKey) }, proxyBase},
	} {
		w := do(h, mcpRequest(mcp.ToolStatus, `{}`, asAppAPI(""), tt.opt))
		if ch := w.Header().Get("WWW-Authenticate"); w.Code != 401 || !strings.HasPrefix(ch, `Bearer resource_metadata="`+tt.want+`/.well-known/`) {
			t.Errorf("%s: 401 challenge %q, want metadata under %s", tt.name, ch, tt.want)
		}
		r := httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil)
		asAppAPI("")(r)
		tt.opt(r)
		if w := do(h, r); !strings.Contains(w.Body.String(), `"resource":"`+tt.want+`/mcp"`) {
			t.Errorf("%s: metadata %s, want resource %s/mcp", tt.name, w.Body.String(), tt.want)
		}
	}
	r = signed(httptest.NewRequest(http.MethodGet, "/api/status", nil), "alice")
	r.Header.Set("AA-REQUEST-ID", "forged-id")
	if got := do(h, r).Header().Get(handlers.RequestIDHeader); got == "forged-id" {
		t.Errorf("behind HaRP, a client's AA-REQUEST-ID on HaRP's own route was taken over")
	}
	r.Header.Set("harp-shared-key", harpKey)
	if got := do(h, r).Header().Get(handlers.RequestIDHeader); got != "forged-id" {
		t.Errorf("behind HaRP, AppAPI's request id = %q, want it taken over", got)
	}
}

// TestAuthorizeLimits: anonymous authorization requests count against the
// caller's address (30 at once); a signed-in user's against the user, who
// may open more (each sign-in is a small record; 60 at once), so signing in
// often is not refused while no one user can fill the store.
func TestAuthorizeLimits(t *testing.T) {
	h := newOAuthServer(t, &fakeAuth{})
	count := func(user string, n int) (limited int) {
		for range n {
			r := signed(httptest.NewRequest(http.MethodGet, "/oauth/authorize?client_id=c1", nil), user)
			r.Header.Set("X-Origin-Ip", "198.51.100.7")
			if do(h, r).Code == http.StatusTooManyRequests {
				limited++
			}
		}
		return limited
	}
	if n := count("", 40); n != 10 {
		t.Errorf("40 anonymous authorization requests from one address: %d refused, want 10", n)
	}
	if n := count("alice", 60); n != 0 {
		t.Errorf("60 of alice's authorization requests from that address: %d refused, want none", n)
	}
	if n := count("alice", 5); n == 0 {
		t.Errorf("alice's 61st to 65th authorization requests at once: none refused")
	}
}
