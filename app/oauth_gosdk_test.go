package app

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// countingTransport counts the token endpoint's refresh grants.
type countingTransport struct {
	refreshes atomic.Int32
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/oauth/token") && r.Body != nil {
		body, _ := r.GetBody()
		if body != nil {
			var b strings.Builder
			buf := make([]byte, 4096)
			n, _ := body.Read(buf)
			b.Write(buf[:n])
			body.Close()
			if strings.Contains(b.String(), "grant_type=refresh_token") {
				c.refreshes.Add(1)
			}
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestGoSDKOAuthSignIn signs alice in through the simulated AppAPI proxy
// with the official Go SDK's OAuth client (go-sdk v1.8.0,
// auth.AuthorizationCodeHandler: protected-resource and authorization
// server discovery, dynamic registration, PKCE, RFC 9207 iss check); the
// browser part is played by the test's own browser (Nextcloud's login,
// then the consent page). The first access token is handed over as
// expired, so x/oauth2 refreshes it before the first call; after the grant
// is revoked at the revocation endpoint (the SDK has no call for it), the
// next call asks for a new sign-in.
func TestGoSDKOAuthSignIn(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, quiet: true, setup: func(sim *ncsim.Server) {
		sim.SeedFile("alice", "/Notes/upgrade.md", []byte("Kubernetes upgrade plan: drain the nodes one by one."))
	}})
	doc := env.mustStat(t, "alice", "/Notes/upgrade.md")
	env.awaitFile(t, "alice's note indexed", doc.ID, isIndexed(doc.ETag))
	base := env.Sim.BaseURL + "/index.php/apps/app_api/proxy/hybrid_search"
	counter := &countingTransport{}
	httpClient := &http.Client{Transport: counter, Timeout: 30 * time.Second}

	var mu sync.Mutex
	signIns := 0
	allowSignIn := true
	fetch := func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		mu.Lock()
		signIns++
		allowed := allowSignIn
		mu.Unlock()
		if !allowed {
			return nil, errors.New("a new sign-in was asked for")
		}
		b := newBrowser(t, testRedirect)
		login := b.get(args.URL) // signed out: on to Nextcloud's login page
		f := login.fields()
		f.Set("user", "alice")
		f.Set("password", "alice")
		consent := b.do(http.MethodPost, env.Sim.BaseURL+"/index.php/login", f, nil)
		if !strings.Contains(consent.body, `id="consent"`) {
			return nil, errors.New("no consent page after the login: " + consent.body)
		}
		cf := consent.fields()
		cf.Set("decision", "allow")
		done := b.do(http.MethodPost, consent.url, cf, http.Header{"Origin": {env.Sim.BaseURL}})
		back := b.get(done.next)
		u, err := url.Parse(back.url)
		if err != nil || u.Query().Get("code") == "" {
			return nil, errors.New("no code after consent: " + back.url)
		}
		return &auth.AuthorizationResult{Code: u.Query().Get("code"), State: u.Query().Get("state"), Iss: u.Query().Get("iss")}, nil
	}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Go SDK e2e", RedirectURIs: []string{testRedirect}, GrantTypes: []string{"authorization_code", "refresh_token"},
			TokenEndpointAuthMethod: "none",
		}},
		RedirectURL:              testRedirect,
		AuthorizationCodeFetcher: fetch,
		Client:                   httpClient,
		// The first token arrives expired: x/oauth2 must refresh it.
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			expired := *tok
			expired.Expiry = time.Now().Add(-time.Minute)
			return cfg.TokenSource(ctx, &expired), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-oauth-e2e", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: httpClient, OAuthHandler: handler, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect with the Go SDK's OAuth client: %v", err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "nc_semantic_search", Arguments: map[string]any{"query": "kubernetes upgrade"}})
	if err != nil || res.IsError || !strings.Contains(toolText(res), "Kubernetes upgrade plan") {
		t.Fatalf("search as alice: %v %+v", err, res)
	}
	_ = cs.Close()
	if signIns != 1 || counter.refreshes.Load() < 1 {
		t.Errorf("sign-ins %d (want 1), refresh grants %d (want at least 1)", signIns, counter.refreshes.Load())
	}

	// Revoke the grant by its refresh token (RFC 7009).
	ts, err := handler.TokenSource(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ts.Token()
	if err != nil || tok.RefreshToken == "" {
		t.Fatalf("current token: %v %+v", err, tok)
	}
	var clientID string
	for _, g := range (&oauthEnv{testEnv: env}).grants(t) {
		clientID = g.Client
	}
	if status, body := postForm(t, base+"/oauth/revoke", url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {clientID}}); status != http.StatusOK {
		t.Fatalf("revoke: %d %v", status, body)
	}
	mu.Lock()
	allowSignIn = false
	mu.Unlock()
	cs, err = client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: httpClient, OAuthHandler: handler, MaxRetries: -1}, nil)
	if err == nil {
		_ = cs.Close()
		t.Fatal("connected after the grant was revoked")
	}
	if signIns < 2 {
		t.Errorf("after revocation: %d sign-ins asked for, want a new one (%v)", signIns, err)
	}
	t.Logf("go-sdk v1.8.0: dynamic registration, signed in, %d refresh grant(s), revoked, asked to sign in again", counter.refreshes.Load())
}
