package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/oauth"
)

// fakeAuth is a handlers.AuthServer whose answers the test sets.
type fakeAuth struct {
	err     error // returned by every call but the metadata
	pending oauth.Pending
	got     []string // what was called, with the user
}

var _ handlers.AuthServer = (*fakeAuth)(nil)

func (f *fakeAuth) Metadata() oauth.Metadata { return oauth.Metadata{Issuer: proxyBase} }
func (f *fakeAuth) OpenIDMetadata() oauth.OpenIDMetadata {
	return oauth.OpenIDMetadata{Metadata: oauth.Metadata{Issuer: proxyBase}, JWKSURI: proxyBase + oauth.JWKSPath}
}
func (f *fakeAuth) Register(ctx context.Context, body []byte) (oauth.Client, error) {
	f.got = append(f.got, "register")
	return oauth.Client{ID: "c1"}, f.err
}
func (f *fakeAuth) Start(ctx context.Context, r oauth.AuthRequest) (oauth.Pending, error) {
	f.got = append(f.got, "start "+r.ClientID)
	return f.pending, f.err
}
func (f *fakeAuth) Resume(ctx context.Context, id string, user hs.UserID) (oauth.Pending, error) {
	f.got = append(f.got, "resume "+id+" "+string(user))
	p := f.pending
	p.User, p.CSRF = user, "csrf-1"
	return p, f.err
}
func (f *fakeAuth) Decide(ctx context.Context, id string, user hs.UserID, csrf string, allow bool) (string, error) {
	f.got = append(f.got, "decide "+id+" "+string(user)+" "+csrf)
	return "http://127.0.0.1:9/cb?code=abc&state=s", f.err
}
func (f *fakeAuth) Token(ctx context.Context, r oauth.TokenRequest) (oauth.TokenResponse, error) {
	f.got = append(f.got, "token "+r.GrantType)
	return oauth.TokenResponse{AccessToken: "a", TokenType: "Bearer"}, f.err
}
func (f *fakeAuth) Revoke(ctx context.Context, token, hint, clientID string) error {
	f.got = append(f.got, "revoke")
	return f.err
}

func newOAuthServer(t *testing.T, auth *fakeAuth) http.Handler {
	t.Helper()
	env := newMCPEnv(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := handlers.New(handlers.Deps{
		AppID: testAppID, AppSecret: testSecret, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{}, Publish: &fakeQueue{}, Operator: &fakeOperator{},
		Assets: fstest.MapFS{}, Logger: quiet,
		MCP: &handlers.MCPDeps{Handler: http.NotFoundHandler(), Tokens: env.tokens, Users: knownUsers{"alice", "bob"}, NextcloudURL: ncURL, OAuth: auth},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}

func form(method, target, body string) *http.Request {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

func TestOAuthEndpoints(t *testing.T) {
	auth := &fakeAuth{pending: oauth.Pending{ID: "p1", ClientID: "c1", ClientName: "Claude <b>", RedirectURI: "http://127.0.0.1:9/cb"}}
	h := newOAuthServer(t, auth)
	oauthErr := func(rec *httptest.ResponseRecorder) string {
		var e struct{ Error string }
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		return e.Error
	}

	// The resource metadata names the authorization server only through the proxy.
	rec := do(h, signed(httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil), ""))
	if !strings.Contains(rec.Body.String(), `"authorization_servers":["`+proxyBase+`"]`) {
		t.Errorf("proxied resource metadata: %s", rec.Body.String())
	}
	rec = do(h, httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil))
	if strings.Contains(rec.Body.String(), "authorization_servers") {
		t.Errorf("direct resource metadata: %s", rec.Body.String())
	}
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration", "/oauth/jwks"} {
		if rec := do(h, signed(httptest.NewRequest(http.MethodGet, p, nil), "")); rec.Code != 200 || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s = %d %v", p, rec.Code, rec.Header())
		}
	}

	// Anonymous through the proxy: a page that goes on to Nextcloud's
	// login with a local redirect back; never a 3xx (the proxy would
	// follow it itself).
	rec = do(h, signed(httptest.NewRequest(http.MethodGet, "/oauth/authorize?client_id=c1&response_type=code", nil), ""))
	body := rec.Body.String()
	wantLogin := ncURL + "/index.php/login?redirect_url=%2Findex.php%2Fapps%2Fapp_api%2Fproxy%2F" + testAppID + "%2Foauth%2Fauthorize%3Frequest%3Dp1"
	if rec.Code != 200 || !strings.Contains(body, `content="0;url=`+strings.ReplaceAll(wantLogin, "&", "&amp;")+`"`) || strings.Contains(body, "<b>") {
		t.Errorf("anonymous authorize: %d\n%s", rec.Code, body)
	}
	csp := rec.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") || rec.Header().Get("X-Frame-Options") != "DENY" || rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("page headers: %v", rec.Header())
	}
	// Signed in: the consent page with the CSRF token; the name is escaped.
	rec = do(h, signed(httptest.NewRequest(http.MethodGet, "/oauth/authorize?request=p1", nil), "alice"))
	if body := rec.Body.String(); rec.Code != 200 || !strings.Contains(body, `name="csrf" value="csrf-1"`) || !strings.Contains(body, "Claude &lt;b&gt;") || !strings.Contains(body, "127.0.0.1:9") {
		t.Errorf("consent page: %d\n%s", rec.Code, body)
	}
	// A parameter twice is refused before anything else.
	rec = do(h, signed(httptest.NewRequest(http.MethodGet, "/oauth/authorize?client_id=c1&client_id=c2", nil), "alice"))
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "invalid_request") {
		t.Errorf("repeated parameter: %d %s", rec.Code, rec.Body.String())
	}

	// The consent post: user and CSRF go to Decide; the answer is a page.
	rec = do(h, signed(form(http.MethodPost, "/oauth/authorize", "request=p1&csrf=csrf-1&decision=allow"), "alice"))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `content="0;url=http://127.0.0.1:9/cb?code=abc&amp;state=s"`) || auth.got[len(auth.got)-1] != "decide p1 alice csrf-1" {
		t.Errorf("consent post: %d %v\n%s", rec.Code, auth.got, rec.Body.String())
	}
	r := signed(form(http.MethodPost, "/oauth/authorize", "request=p1&csrf=csrf-1&decision=allow"), "alice")
	r.Header.Set("Origin", "https://evil.example")
	if rec := do(h, r); rec.Code != 403 {
		t.Errorf("cross-site consent post: %d", rec.Code)
	}

	// Token and registration requests: their formats, limits and errors.
	if rec := do(h, httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(`{"grant_type":"x"}`))); rec.Code != 400 || oauthErr(rec) != "invalid_request" {
		t.Errorf("JSON token request: %d %s", rec.Code, rec.Body.String())
	}
	r = form(http.MethodPost, "/oauth/token", "grant_type=authorization_code&code=a&code=b")
	if rec := do(h, r); rec.Code != 400 || oauthErr(rec) != "invalid_request" {
		t.Errorf("repeated token parameter: %d %s", rec.Code, rec.Body.String())
	}
	r = form(http.MethodPost, "/oauth/token", "grant_type=authorization_code&client_id=c1")
	r.SetBasicAuth("c1", "secret")
	if rec := do(h, r); rec.Code != 401 || oauthErr(rec) != "invalid_client" {
		t.Errorf("client secret sent: %d %s", rec.Code, rec.Body.String())
	}
	r = httptest.NewRequest(http.MethodPost, "/oauth/register", strings.NewReader(`{"redirect_uris":["`+strings.Repeat("a", 20<<10)+`"]}`))
	r.Header.Set("Content-Type", "application/json")
	if rec := do(h, r); rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized registration: %d", rec.Code)
	}
	// An unavailable store is temporarily_unavailable, not a 500.
	auth.err = hs.Errorf(hs.EUNAVAILABLE, "nats down")
	if rec := do(h, form(http.MethodPost, "/oauth/token", "grant_type=refresh_token&client_id=c1&refresh_token=x")); rec.Code != 503 || oauthErr(rec) != "temporarily_unavailable" || rec.Header().Get("Retry-After") == "" {
		t.Errorf("token with the store down: %d %s", rec.Code, rec.Body.String())
	}
	if rec := do(h, signed(httptest.NewRequest(http.MethodGet, "/oauth/authorize?client_id=c1", nil), "alice")); rec.Code != 503 || !strings.Contains(rec.Body.String(), "temporarily_unavailable") {
		t.Errorf("authorize with the store down: %d %s", rec.Code, rec.Body.String())
	}
	auth.err = &oauth.Error{Code: oauth.ErrInvalidGrant, Description: "nope", Status: 400}
	if rec := do(h, form(http.MethodPost, "/oauth/token", "grant_type=refresh_token&client_id=c1&refresh_token=x")); rec.Code != 400 || oauthErr(rec) != "invalid_grant" || rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("refused token request: %d %s %v", rec.Code, rec.Body.String(), rec.Header())
	}
}
