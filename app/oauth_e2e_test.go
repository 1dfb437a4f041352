package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

// oauthEnv is a running app with a dynamically registered client, driven
// through the simulator's AppAPI proxy.
type oauthEnv struct {
	*testEnv
	base     string // the issuer: the app's proxy URL
	clientID string
	redirect string
}

const testRedirect = "http://127.0.0.1:9/callback"

func newOAuthEnv(t *testing.T) *oauthEnv {
	t.Helper()
	env := newTestEnv(t, envOptions{install: true})
	o := &oauthEnv{testEnv: env, base: env.Sim.BaseURL + "/index.php/apps/app_api/proxy/hybrid_search", redirect: testRedirect}
	o.clientID = o.register(t, `{"client_name":"Test Assistant","redirect_uris":["`+testRedirect+`"],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"]}`)
	return o
}

// register registers a client through the proxy and returns its id.
func (o *oauthEnv) register(t *testing.T, metadata string) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, o.base+"/oauth/register", strings.NewReader(metadata))
	req.Header.Set("Content-Type", "application/json")
	resp, body := doReq(t, req)
	var c struct {
		ClientID   string `json:"client_id"`
		AuthMethod string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil || resp.StatusCode != http.StatusCreated || c.ClientID == "" || c.AuthMethod != "none" {
		t.Fatalf("register: %d %s", resp.StatusCode, body)
	}
	return c.ClientID
}

// authorizeURL is an authorization request of o's client.
func (o *oauthEnv) authorizeURL(challenge, state string, extra url.Values) string {
	q := url.Values{"response_type": {"code"}, "client_id": {o.clientID}, "redirect_uri": {o.redirect}, "state": {state},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "scope": {hs.TokenScope}, "resource": {o.base + "/mcp"}}
	for k, vs := range extra {
		q[k] = vs
	}
	return o.base + "/oauth/authorize?" + q.Encode()
}

// consentPage signs b in as alice (unless it is signed in) and opens the
// consent page of an authorization request.
func (o *oauthEnv) consentPage(t *testing.T, b *browser, authURL string) visit {
	t.Helper()
	v := b.get(authURL)
	if v.status != http.StatusOK || !strings.Contains(v.body, `id="consent"`) {
		t.Fatalf("consent page: %d %s", v.status, v.body)
	}
	return v
}

// code runs the browser part as alice and returns the code.
func (o *oauthEnv) code(t *testing.T, challenge, state string) string {
	t.Helper()
	return o.codeAs(t, "alice", challenge, state)
}

// codeAs runs the browser part as uid (password = uid) and returns the code.
func (o *oauthEnv) codeAs(t *testing.T, uid, challenge, state string) string {
	t.Helper()
	b := newBrowser(t, o.redirect)
	b.login(o.Sim.BaseURL, uid, uid)
	v := o.consentPage(t, b, o.authorizeURL(challenge, state, nil))
	f := v.fields()
	f.Set("decision", "allow")
	done := b.do(http.MethodPost, v.url, f, http.Header{"Origin": {o.Sim.BaseURL}})
	back := b.get(done.next)
	u, err := url.Parse(back.url)
	if err != nil || !strings.HasPrefix(back.url, o.redirect) || u.Query().Get("state") != state || u.Query().Get("iss") != o.base {
		t.Fatalf("after consent the browser is at %q (%d %s)", back.url, done.status, done.body)
	}
	return u.Query().Get("code")
}

// exchange trades a code for tokens.
func (o *oauthEnv) exchange(t *testing.T, code, verifier string, change url.Values) (int, map[string]any) {
	t.Helper()
	f := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {o.redirect}, "client_id": {o.clientID},
		"code_verifier": {verifier}, "resource": {o.base + "/mcp"}}
	for k, vs := range change {
		f[k] = vs
	}
	return postForm(t, o.base+"/oauth/token", f)
}

func (o *oauthEnv) refresh(t *testing.T, rt string) (int, map[string]any) {
	t.Helper()
	return postForm(t, o.base+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {o.clientID}, "resource": {o.base + "/mcp"}})
}

// grants returns alice's OAuth token records.
func (o *oauthEnv) grants(t *testing.T) []hs.Token {
	t.Helper()
	list, err := o.Main.Tokens.List(context.Background(), "alice") // also from a Cleanup
	if err != nil {
		t.Fatal(err)
	}
	var out []hs.Token
	for _, tk := range list {
		if tk.Client != "" {
			out = append(out, tk)
		}
	}
	return out
}

// mcpStatus calls tools/list on the app's own /mcp with token and returns
// the HTTP status.
func (o *oauthEnv) mcpStatus(t *testing.T, token string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, o.Main.DirectMCPURL(),
		bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, _ := doReq(t, req)
	return resp.StatusCode
}

// wantOAuthError checks an OAuth JSON error response.
func wantOAuthError(t *testing.T, what string, status int, body map[string]any, wantStatus int, wantCode string) {
	t.Helper()
	if status != wantStatus || body["error"] != wantCode || body["access_token"] != nil || body["refresh_token"] != nil {
		t.Errorf("%s: %d %v, want %d %s and no token", what, status, body, wantStatus, wantCode)
	}
}

// TestOAuthDiscovery checks what an MCP client finds: the resource
// metadata through the proxy names the app as authorization server, the
// RFC 8414 and OpenID discovery documents agree, and the path-inserted
// discovery URLs on Nextcloud's own /.well-known/ are 404 (not 5xx), so
// clients move on to the ones that reach the app.
func TestOAuthDiscovery(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t)
	get := func(u string) (int, map[string]any) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
		resp, body := doReq(t, req)
		var m map[string]any
		_ = json.Unmarshal([]byte(body), &m)
		return resp.StatusCode, m
	}
	status, prm := get(o.base + "/.well-known/oauth-protected-resource/mcp")
	if as, _ := prm["authorization_servers"].([]any); status != 200 || len(as) != 1 || as[0] != o.base || prm["resource"] != o.base+"/mcp" {
		t.Errorf("resource metadata through the proxy: %d %v", status, prm)
	}
	if status, prm := get(o.appURL() + "/.well-known/oauth-protected-resource/mcp"); status != 200 || prm["authorization_servers"] != nil {
		t.Errorf("resource metadata on the app's port names an authorization server: %v", prm)
	}
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		status, md := get(o.base + p)
		if status != 200 || md["issuer"] != o.base || md["authorization_endpoint"] != o.base+"/oauth/authorize" ||
			md["token_endpoint"] != o.base+"/oauth/token" || md["registration_endpoint"] != o.base+"/oauth/register" ||
			md["client_id_metadata_document_supported"] != true || !strings.Contains(jsonString(md["code_challenge_methods_supported"]), `["S256"]`) {
			t.Errorf("%s: %d %v", p, status, md)
		}
	}
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		if status, _ := get(o.Sim.BaseURL + p + "/index.php/apps/app_api/proxy/hybrid_search"); status != http.StatusNotFound {
			t.Errorf("Nextcloud %s/<issuer path> = %d, want 404", p, status)
		}
	}
}

func jsonString(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestOAuthFlow runs the whole flow through the proxy by hand: register,
// authorize (anonymous, so the browser goes through Nextcloud's login
// and comes back), consent, code, tokens, a tool call, refresh with
// rotation, listing and revocation through /api/tokens' service.
func TestOAuthFlow(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t)
	verifier, challenge := pkcePair("flow")
	b := newBrowser(t, o.redirect)

	// Anonymous: the page sends the browser to Nextcloud's login, with a
	// redirect back to the pending request through the proxy.
	v := b.get(o.authorizeURL(challenge, "st-1", nil))
	if !strings.Contains(v.url, "/index.php/login?redirect_url=") || !strings.Contains(v.body, `name="password"`) {
		t.Fatalf("anonymous authorize ended at %s:\n%s", v.url, v.body)
	}
	f := v.fields()
	f.Set("user", "alice")
	f.Set("password", "alice")
	v = b.do(http.MethodPost, o.Sim.BaseURL+"/index.php/login", f, nil)
	if v.status != 200 || !strings.Contains(v.body, `id="consent"`) || !strings.Contains(v.body, "Test Assistant") ||
		!strings.Contains(v.body, "127.0.0.1:9") || !strings.Contains(v.url, "/proxy/hybrid_search/oauth/authorize?request=") {
		t.Fatalf("after login: %d at %s:\n%s", v.status, v.url, v.body)
	}
	f = v.fields()
	f.Set("decision", "allow")
	done := b.do(http.MethodPost, v.url, f, http.Header{"Origin": {o.Sim.BaseURL}, "Sec-Fetch-Site": {"same-origin"}})
	back := b.get(done.next)
	cb, _ := url.Parse(back.url)
	code := cb.Query().Get("code")
	if code == "" || cb.Query().Get("state") != "st-1" {
		t.Fatalf("callback %q", back.url)
	}

	status, tok := o.exchange(t, code, verifier, nil)
	access, _ := tok["access_token"].(string)
	rt, _ := tok["refresh_token"].(string)
	if status != 200 || access == "" || rt == "" || tok["token_type"] != "Bearer" || tok["scope"] != hs.TokenScope || tok["expires_in"].(float64) < 3500 {
		t.Fatalf("token: %d %v", status, tok)
	}
	if got := o.mcpStatus(t, access); got != 200 {
		t.Errorf("MCP with the access token: %d", got)
	}
	grants := o.grants(t)
	if len(grants) != 1 || grants[0].Client != o.clientID || grants[0].Name != "Test Assistant" || grants[0].Resource != o.base+"/mcp" {
		t.Fatalf("alice's OAuth grants: %+v", grants)
	}

	// Refresh rotates: a new pair; the old access token stays valid until
	// it expires, the old refresh token is spent.
	status, tok2 := o.refresh(t, rt)
	access2, _ := tok2["access_token"].(string)
	rt2, _ := tok2["refresh_token"].(string)
	if status != 200 || access2 == "" || rt2 == "" || rt2 == rt || access2 == access {
		t.Fatalf("refresh: %d %v", status, tok2)
	}
	if got := o.mcpStatus(t, access2); got != 200 {
		t.Errorf("MCP with the refreshed token: %d", got)
	}
	if len(o.grants(t)) != 1 {
		t.Errorf("a refresh added a token record: %+v", o.grants(t))
	}

	// "hybridsearch token list" shows the grant; revoking it there (or in
	// the panel) stops every token of it.
	var out, errb strings.Builder
	if err := runToken(t.Context(), []string{"list", "--user", "alice"}, o.getenv, &out, &errb); err != nil ||
		!strings.Contains(out.String(), grants[0].ID) || !strings.Contains(out.String(), "oauth") || !strings.Contains(out.String(), "Test Assistant") {
		t.Errorf("token list = %v\n%s", err, out.String())
	}
	if err := runToken(t.Context(), []string{"revoke", "--user", "alice", grants[0].ID}, o.getenv, &out, &errb); err != nil {
		t.Fatalf("token revoke: %v\n%s", err, errb.String())
	}
	if got := o.mcpStatus(t, access2); got != 401 {
		t.Errorf("MCP after revoking the grant: %d, want 401", got)
	}
	status, body := o.refresh(t, rt2)
	wantOAuthError(t, "refresh after the user revoked the grant", status, body, 400, "invalid_grant")
}
