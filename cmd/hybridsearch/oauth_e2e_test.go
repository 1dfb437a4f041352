package main

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
	b := newBrowser(t, o.redirect)
	b.login(o.Sim.BaseURL, "alice", "alice")
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

// TestOAuthSecurity checks every refusal the issue lists: each gives the
// RFC's error code and issues nothing.
func TestOAuthSecurity(t *testing.T) {
	o := newOAuthEnv(t)
	// Nothing issued: only the three exchanges meant to succeed (code
	// reused, revoked, replayed) leave a grant, and all three end revoked.
	t.Cleanup(func() {
		grants := o.grants(t)
		if len(grants) != 3 {
			t.Errorf("alice has %d OAuth grants after the security tests, want 3: %+v", len(grants), grants)
		}
		for _, g := range grants {
			if !g.Revoked {
				t.Errorf("grant %s (%s) is still active", g.ID, g.Name)
			}
		}
	})

	t.Run("PKCE verifier wrong or missing", func(t *testing.T) {
		_, challenge := pkcePair("pkce")
		code := o.code(t, challenge, "s")
		other, _ := pkcePair("other")
		status, body := o.exchange(t, code, "", nil)
		wantOAuthError(t, "no verifier", status, body, 400, "invalid_request")
		status, body = o.exchange(t, code, other, nil)
		wantOAuthError(t, "wrong verifier", status, body, 400, "invalid_grant")
		// The failed attempt spent the code: the right verifier is too late.
		right, _ := pkcePair("pkce")
		status, body = o.exchange(t, code, right, nil)
		wantOAuthError(t, "right verifier after a wrong one", status, body, 400, "invalid_grant")
		if g := o.grants(t); len(g) != 0 {
			t.Errorf("grants issued: %+v", g)
		}
	})

	t.Run("authorization request without PKCE or state", func(t *testing.T) {
		b := newBrowser(t, o.redirect)
		b.login(o.Sim.BaseURL, "alice", "alice")
		for name, extra := range map[string]url.Values{
			"no challenge":  {"code_challenge": {""}},
			"plain method":  {"code_challenge_method": {"plain"}},
			"no state":      {"state": {""}},
			"token flow":    {"response_type": {"token"}},
			"unknown scope": {"scope": {"files:write"}},
		} {
			_, challenge := pkcePair("x")
			v := b.get(o.authorizeURL(challenge, "s", extra))
			u, _ := url.Parse(v.url)
			want := map[string]string{"token flow": "unsupported_response_type", "unknown scope": "invalid_scope"}[name]
			if want == "" {
				want = "invalid_request"
			}
			if !strings.HasPrefix(v.url, o.redirect) || u.Query().Get("error") != want || u.Query().Get("code") != "" {
				t.Errorf("%s: browser at %s, want the redirect URI with error=%s", name, v.url, want)
			}
		}
	})

	t.Run("code reused", func(t *testing.T) {
		verifier, challenge := pkcePair("reuse")
		code := o.code(t, challenge, "s")
		status, tok := o.exchange(t, code, verifier, nil)
		if status != 200 {
			t.Fatalf("first exchange: %d %v", status, tok)
		}
		status, body := o.exchange(t, code, verifier, nil)
		wantOAuthError(t, "second exchange", status, body, 400, "invalid_grant")
		// RFC 6749 4.1.2: the tokens of the first exchange are revoked.
		if got := o.mcpStatus(t, tok["access_token"].(string)); got != 401 {
			t.Errorf("first exchange's token after the code was replayed: %d, want 401", got)
		}
	})

	t.Run("code for another client", func(t *testing.T) {
		verifier, challenge := pkcePair("other-client")
		code := o.code(t, challenge, "s")
		other := o.register(t, `{"client_name":"Other","redirect_uris":["`+testRedirect+`"]}`)
		status, body := o.exchange(t, code, verifier, url.Values{"client_id": {other}})
		wantOAuthError(t, "another client's code", status, body, 400, "invalid_grant")
		status, body = o.exchange(t, code, verifier, url.Values{"client_id": {"no-such-client"}})
		wantOAuthError(t, "unknown client", status, body, 401, "invalid_client")
	})

	t.Run("redirect URI not registered and open redirects", func(t *testing.T) {
		b := newBrowser(t, "")
		b.login(o.Sim.BaseURL, "alice", "alice")
		for _, bad := range []string{
			"https://evil.example/callback",
			"http://127.0.0.1:9/callback/../evil",
			"http://127.0.0.1:9/callback?next=https://evil.example",
			"http://127.0.0.1:9@evil.example/callback",
			"http://127.0.0.1.evil.example:9/callback",
			"http://evil.example:9/callback",
			"javascript:alert(1)//127.0.0.1:9/callback",
			"//evil.example/callback",
			"",
		} {
			_, challenge := pkcePair("redir")
			v := b.get(o.authorizeURL(challenge, "s", url.Values{"redirect_uri": {bad}}))
			if v.status != http.StatusBadRequest || v.errorCode() != "invalid_request" || v.next != "" ||
				strings.Contains(v.body, "evil.example") && strings.Contains(v.body, "href=") || strings.Contains(v.body, `id="consent"`) {
				t.Errorf("redirect_uri %q: %d at %s:\n%s", bad, v.status, v.url, v.body)
			}
		}
		// The loopback port may differ (RFC 8252), the path may not.
		_, challenge := pkcePair("port")
		o2 := *o
		o2.redirect = "http://127.0.0.1:4711/callback"
		if v := b.get(o2.authorizeURL(challenge, "s", nil)); !strings.Contains(v.body, `id="consent"`) {
			t.Errorf("loopback redirect on another port refused: %d %s", v.status, v.body)
		}
		// Registration refuses what could never be a safe redirect target.
		for _, bad := range []string{"http://evil.example/cb", "javascript:alert(1)", "https://x.example/cb#frag", "data:text/html,hi"} {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, o.base+"/oauth/register", strings.NewReader(`{"redirect_uris":["`+bad+`"]}`))
			req.Header.Set("Content-Type", "application/json")
			resp, body := doReq(t, req)
			if resp.StatusCode != 400 || !strings.Contains(body, `"invalid_redirect_uri"`) {
				t.Errorf("register %q: %d %s", bad, resp.StatusCode, body)
			}
		}
	})

	t.Run("resource of another server", func(t *testing.T) {
		b := newBrowser(t, o.redirect)
		b.login(o.Sim.BaseURL, "alice", "alice")
		_, challenge := pkcePair("res")
		v := b.get(o.authorizeURL(challenge, "s", url.Values{"resource": {"https://other.example/mcp"}}))
		u, _ := url.Parse(v.url)
		if u.Query().Get("error") != "invalid_target" || u.Query().Get("code") != "" {
			t.Errorf("authorize for another resource: browser at %s", v.url)
		}
		verifier, challenge := pkcePair("res2")
		code := o.code(t, challenge, "s")
		status, body := o.exchange(t, code, verifier, url.Values{"resource": {"https://other.example/mcp"}})
		wantOAuthError(t, "token for another resource", status, body, 400, "invalid_target")
	})

	t.Run("revoked and expired tokens", func(t *testing.T) {
		verifier, challenge := pkcePair("revoke")
		code := o.code(t, challenge, "s")
		_, tok := o.exchange(t, code, verifier, nil)
		access, rt := tok["access_token"].(string), tok["refresh_token"].(string)
		// RFC 7009 by the client itself; another client may not.
		other := o.register(t, `{"client_name":"Other","redirect_uris":["`+testRedirect+`"]}`)
		status, body := postForm(t, o.base+"/oauth/revoke", url.Values{"token": {rt}, "client_id": {other}})
		wantOAuthError(t, "revocation by another client", status, body, 400, "unauthorized_client")
		if got := o.mcpStatus(t, access); got != 200 {
			t.Fatalf("token after a refused revocation: %d", got)
		}
		if status, _ := postForm(t, o.base+"/oauth/revoke", url.Values{"token": {rt}, "client_id": {o.clientID}, "token_type_hint": {"refresh_token"}}); status != 200 {
			t.Fatalf("revoke: %d", status)
		}
		if got := o.mcpStatus(t, access); got != 401 {
			t.Errorf("access token after revoking its refresh token: %d, want 401", got)
		}
		status, body = o.refresh(t, rt)
		wantOAuthError(t, "refresh after revocation", status, body, 400, "invalid_grant")
		if status, _ := postForm(t, o.base+"/oauth/revoke", url.Values{"token": {"not-a-token"}, "client_id": {o.clientID}}); status != 200 {
			t.Errorf("revoking an unknown token: %d, want 200", status)
		}
		// Expired: an access token past its exp (forged with the app's own
		// key by the token service's clock is not reachable here; the
		// tokens and oauth packages test expiry with a fake clock).
	})

	t.Run("refresh token replayed after rotation", func(t *testing.T) {
		verifier, challenge := pkcePair("replay")
		code := o.code(t, challenge, "s")
		_, tok := o.exchange(t, code, verifier, nil)
		rt1 := tok["refresh_token"].(string)
		status, tok2 := o.refresh(t, rt1)
		if status != 200 {
			t.Fatalf("refresh: %d %v", status, tok2)
		}
		status, body := o.refresh(t, rt1)
		wantOAuthError(t, "replayed refresh token", status, body, 400, "invalid_grant")
		// The whole family is revoked: the rotated pair is dead too.
		if got := o.mcpStatus(t, tok2["access_token"].(string)); got != 401 {
			t.Errorf("rotated access token after the replay: %d, want 401", got)
		}
		status, body = o.refresh(t, tok2["refresh_token"].(string))
		wantOAuthError(t, "rotated refresh token after the replay", status, body, 400, "invalid_grant")
	})

	t.Run("CSRF on the consent form", func(t *testing.T) {
		_, challenge := pkcePair("csrf")
		alice := newBrowser(t, o.redirect)
		alice.login(o.Sim.BaseURL, "alice", "alice")
		v := o.consentPage(t, alice, o.authorizeURL(challenge, "s", nil))
		good := v.fields()
		good.Set("decision", "allow")
		before := len(o.grants(t))
		attempt := func(name string, b *browser, f url.Values, h http.Header, wantStatus int) {
			t.Helper()
			got := b.do(http.MethodPost, v.url, f, h)
			if got.status != wantStatus || got.errorCode() != "invalid_request" && got.errorCode() != "access_denied" || got.next != "" || strings.Contains(got.body, "code=") {
				t.Errorf("%s: %d %q %s", name, got.status, got.errorCode(), got.body)
			}
		}
		noCSRF := url.Values{"request": good["request"], "decision": {"allow"}}
		attempt("no CSRF token", alice, noCSRF, nil, 403)
		wrong := url.Values{"request": good["request"], "csrf": {"forged"}, "decision": {"allow"}}
		attempt("wrong CSRF token", alice, wrong, nil, 403)
		attempt("cross-site Origin", alice, good, http.Header{"Origin": {"https://evil.example"}}, 403)
		attempt("cross-site fetch", alice, good, http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403)
		bob := newBrowser(t, o.redirect)
		bob.login(o.Sim.BaseURL, "bob", "bob")
		attempt("bob posts alice's form", bob, good, nil, 403)
		anon := newBrowser(t, o.redirect)
		attempt("anonymous post", anon, good, nil, 403)
		if n := len(o.grants(t)); n != before {
			t.Errorf("grants after CSRF attempts: %d, want %d", n, before)
		}
		// The real form still works once.
		done := alice.do(http.MethodPost, v.url, good, http.Header{"Origin": {o.Sim.BaseURL}})
		if !strings.Contains(done.next, "code=") {
			t.Errorf("the genuine consent: %d %s", done.status, done.body)
		}
		again := alice.do(http.MethodPost, v.url, good, http.Header{"Origin": {o.Sim.BaseURL}})
		if again.status != 403 || strings.Contains(again.next, "code=") {
			t.Errorf("the consent form posted twice: %d %s", again.status, again.body)
		}
	})

	t.Run("denied consent", func(t *testing.T) {
		_, challenge := pkcePair("deny")
		b := newBrowser(t, o.redirect)
		b.login(o.Sim.BaseURL, "alice", "alice")
		v := o.consentPage(t, b, o.authorizeURL(challenge, "s", nil))
		f := v.fields()
		f.Set("decision", "deny")
		back := b.get(b.do(http.MethodPost, v.url, f, nil).next)
		u, _ := url.Parse(back.url)
		if u.Query().Get("error") != "access_denied" || u.Query().Get("code") != "" || u.Query().Get("state") != "s" {
			t.Errorf("denied: browser at %s", back.url)
		}
	})
}

// TestOAuthRateLimits checks that registration and token requests from
// one address are limited (429 temporarily_unavailable, Retry-After).
func TestOAuthRateLimits(t *testing.T) {
	o := newOAuthEnv(t)
	limited := func(path, contentType, body string, n int) int {
		t.Helper()
		count := 0
		for range n {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, o.base+path, strings.NewReader(body))
			req.Header.Set("Content-Type", contentType)
			resp, b := doReq(t, req)
			if resp.StatusCode == http.StatusTooManyRequests {
				if !strings.Contains(b, `"temporarily_unavailable"`) || resp.Header.Get("Retry-After") == "" {
					t.Errorf("429 from %s: %s, Retry-After %q", path, b, resp.Header.Get("Retry-After"))
				}
				count++
			}
		}
		return count
	}
	if n := limited("/oauth/register", "application/json", `{"redirect_uris":["`+testRedirect+`"]}`, 15); n < 5 {
		t.Errorf("15 registrations in a row: %d refused, want at least 5", n)
	}
	if n := limited("/oauth/token", "application/x-www-form-urlencoded", "grant_type=refresh_token&client_id="+o.clientID+"&refresh_token=x", 40); n < 9 {
		t.Errorf("40 token requests in a row: %d refused, want at least 9", n)
	}
}
