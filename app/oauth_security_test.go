package app

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestOAuthSecurity checks every refusal the issue lists: each gives the
// RFC's error code and issues nothing.
func TestOAuthSecurity(t *testing.T) {
	t.Parallel()
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

	t.Run("authorization request without PKCE", func(t *testing.T) {
		b := newBrowser(t, o.redirect)
		b.login(o.Sim.BaseURL, "alice", "alice")
		for name, extra := range map[string]url.Values{
			"no challenge":  {"code_challenge": {""}},
			"plain method":  {"code_challenge_method": {"plain"}},
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
// The requests go out at once, so a slow machine cannot let the limiter
// refill in between.
func TestOAuthRateLimits(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t)
	limited := func(path, contentType, body string, n int) int {
		t.Helper()
		var mu sync.Mutex
		var wg sync.WaitGroup
		count := 0
		for range n {
			wg.Go(func() {
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, o.base+path, strings.NewReader(body))
				req.Header.Set("Content-Type", contentType)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Errorf("POST %s: %v", path, err)
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusTooManyRequests {
					return
				}
				if !strings.Contains(string(b), `"temporarily_unavailable"`) || resp.Header.Get("Retry-After") == "" {
					t.Errorf("429 from %s: %s, Retry-After %q", path, b, resp.Header.Get("Retry-After"))
				}
				mu.Lock()
				count++
				mu.Unlock()
			})
		}
		wg.Wait()
		return count
	}
	if n := limited("/oauth/register", "application/json", `{"redirect_uris":["`+testRedirect+`"]}`, 30); n == 0 {
		t.Errorf("30 registrations at once: none refused")
	}
	if n := limited("/oauth/token", "application/x-www-form-urlencoded", "grant_type=refresh_token&client_id="+o.clientID+"&refresh_token=x", 80); n == 0 {
		t.Errorf("80 token requests at once: none refused")
	}
}
