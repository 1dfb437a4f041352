package oauth_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/oauth"
	"github.com/hybrid-search/hybridsearch/tokens"
)

// TestExpiry checks the lifetimes with a fake clock: codes, pending
// requests, access tokens, refresh tokens and grants.
func TestExpiry(t *testing.T) {
	ctx := t.Context()

	t.Run("code", func(t *testing.T) {
		f := newFixture(t, nil)
		v, c := pkce("a")
		code := f.code(t, c)
		f.clock.Add(oauth.CodeTTL + time.Second)
		if _, err := f.exchange(t, code, v); oauthCode(err) != oauth.ErrInvalidGrant {
			t.Errorf("expired code = %v, want invalid_grant", err)
		}
	})

	t.Run("pending request", func(t *testing.T) {
		f := newFixture(t, nil)
		_, c := pkce("b")
		p, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: f.clientID, RedirectURI: redirect, State: "s", CodeChallenge: c, CodeChallengeMethod: "S256"})
		if err != nil || p.Resource != resource || p.Scope != hs.TokenScope {
			t.Fatalf("Start = %+v, %v", p, err)
		}
		f.clock.Add(oauth.RequestTTL + time.Second)
		if _, err := f.srv.Resume(ctx, p.ID, "alice"); oauthCode(err) != oauth.ErrInvalidRequest {
			t.Errorf("Resume of an expired request = %v, want invalid_request", err)
		}
	})

	t.Run("access and refresh tokens", func(t *testing.T) {
		f := newFixture(t, nil)
		v, c := pkce("c")
		tok, err := f.exchange(t, f.code(t, c), v)
		if err != nil {
			t.Fatal(err)
		}
		if tok.ExpiresIn != int(tokens.AccessTTL.Seconds()) {
			t.Errorf("expires_in = %d", tok.ExpiresIn)
		}
		if u, rec, err := f.tokens.Verify(ctx, tok.AccessToken); err != nil || u != "alice" || rec.Client != f.clientID {
			t.Fatalf("Verify = %s %+v %v", u, rec, err)
		}
		f.clock.Add(tokens.AccessTTL + time.Second)
		if _, _, err := f.tokens.Verify(ctx, tok.AccessToken); hs.ErrorKind(err) != hs.EUNAUTHORIZED || !strings.Contains(err.Error(), "expired") {
			t.Errorf("Verify of an expired access token = %v", err)
		}
		// The refresh token still works and gives a fresh access token.
		tok2, err := f.srv.Token(ctx, oauth.TokenRequest{GrantType: "refresh_token", ClientID: f.clientID, RefreshToken: tok.RefreshToken})
		if err != nil {
			t.Fatalf("refresh: %v", err)
		}
		if _, _, err := f.tokens.Verify(ctx, tok2.AccessToken); err != nil {
			t.Errorf("Verify of the refreshed token: %v", err)
		}
		f.clock.Add(oauth.RefreshTTL + time.Second)
		if _, err := f.srv.Token(ctx, oauth.TokenRequest{GrantType: "refresh_token", ClientID: f.clientID, RefreshToken: tok2.RefreshToken}); oauthCode(err) != oauth.ErrInvalidGrant {
			t.Errorf("expired refresh token = %v, want invalid_grant", err)
		}
	})

	t.Run("grant", func(t *testing.T) {
		f := newFixture(t, nil)
		v, c := pkce("d")
		tok, err := f.exchange(t, f.code(t, c), v)
		if err != nil {
			t.Fatal(err)
		}
		// Refresh every 29 days: the refresh tokens never expire, the grant does.
		for f.clock.Now().Before(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).Add(tokens.GrantTTL - 29*24*time.Hour)) {
			f.clock.Add(29 * 24 * time.Hour)
			if tok, err = f.srv.Token(ctx, oauth.TokenRequest{GrantType: "refresh_token", ClientID: f.clientID, RefreshToken: tok.RefreshToken}); err != nil {
				t.Fatalf("refresh at %s: %v", f.clock.Now(), err)
			}
		}
		f.clock.Add(29 * 24 * time.Hour)
		if _, err := f.srv.Token(ctx, oauth.TokenRequest{GrantType: "refresh_token", ClientID: f.clientID, RefreshToken: tok.RefreshToken}); oauthCode(err) != oauth.ErrInvalidGrant {
			t.Errorf("refresh past the grant's end = %v, want invalid_grant", err)
		}
	})
}

// TestTokenRequests covers malformed token and revocation requests.
func TestTokenRequests(t *testing.T) {
	f := newFixture(t, nil)
	ctx := t.Context()
	for _, tt := range []struct {
		name string
		r    oauth.TokenRequest
		want string
	}{
		{"no client", oauth.TokenRequest{GrantType: "authorization_code", Code: "x"}, oauth.ErrInvalidRequest},
		{"no grant type", oauth.TokenRequest{ClientID: f.clientID}, oauth.ErrInvalidRequest},
		{"password grant", oauth.TokenRequest{GrantType: "password", ClientID: f.clientID}, oauth.ErrUnsupportedGrantType},
		{"client credentials", oauth.TokenRequest{GrantType: "client_credentials", ClientID: f.clientID}, oauth.ErrUnsupportedGrantType},
		{"unknown code", oauth.TokenRequest{GrantType: "authorization_code", ClientID: f.clientID, Code: "nope", RedirectURI: redirect, CodeVerifier: strings.Repeat("v", 43)}, oauth.ErrInvalidGrant},
		{"no redirect uri", oauth.TokenRequest{GrantType: "authorization_code", ClientID: f.clientID, Code: "nope", CodeVerifier: strings.Repeat("v", 43)}, oauth.ErrInvalidRequest},
		{"unknown refresh token", oauth.TokenRequest{GrantType: "refresh_token", ClientID: f.clientID, RefreshToken: "nope"}, oauth.ErrInvalidGrant},
		{"no refresh token", oauth.TokenRequest{GrantType: "refresh_token", ClientID: f.clientID}, oauth.ErrInvalidRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := f.srv.Token(ctx, tt.r); oauthCode(err) != tt.want {
				t.Errorf("Token = %v, want %s", err, tt.want)
			}
		})
	}
	v, c := pkce("e")
	tok, err := f.exchange(t, f.code(t, c), v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.srv.Token(ctx, oauth.TokenRequest{GrantType: "refresh_token", ClientID: f.clientID, RefreshToken: tok.RefreshToken, Scope: "admin"}); oauthCode(err) != oauth.ErrInvalidScope {
		t.Errorf("refresh asking for another scope = %v, want invalid_scope", err)
	}
	if err := f.srv.Revoke(ctx, tok.AccessToken, "bearer", f.clientID); oauthCode(err) != oauth.ErrUnsupportedTokenType {
		t.Errorf("Revoke with an unknown hint = %v", err)
	}
	if err := f.srv.Revoke(ctx, tok.AccessToken, "access_token", f.clientID); err != nil {
		t.Fatalf("Revoke of the access token: %v", err)
	}
	if _, err := f.srv.Token(ctx, oauth.TokenRequest{GrantType: "refresh_token", ClientID: f.clientID, RefreshToken: tok.RefreshToken}); oauthCode(err) != oauth.ErrInvalidGrant {
		t.Errorf("refresh after revoking the access token = %v, want invalid_grant (the grant is gone)", err)
	}
	// A token issued in the app (no client) cannot be revoked by a client.
	raw, _, err := f.tokens.Issue(ctx, "alice", "cli", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.srv.Revoke(ctx, raw, "", f.clientID); oauthCode(err) != oauth.ErrUnauthorizedClient {
		t.Errorf("a client revoking an app token = %v", err)
	}
}

// TestRegister covers registration metadata checks.
func TestRegister(t *testing.T) {
	f := newFixture(t, nil)
	for _, tt := range []struct {
		name, body, want string
	}{
		{"not JSON", `nope`, oauth.ErrInvalidClientMetadata},
		{"no redirect", `{"client_name":"x"}`, oauth.ErrInvalidRedirectURI},
		{"http non-loopback", `{"redirect_uris":["http://example.com/cb"]}`, oauth.ErrInvalidRedirectURI},
		{"fragment", `{"redirect_uris":["https://example.com/cb#x"]}`, oauth.ErrInvalidRedirectURI},
		{"user info", `{"redirect_uris":["https://u:p@example.com/cb"]}`, oauth.ErrInvalidRedirectURI},
		{"javascript", `{"redirect_uris":["javascript:alert(1)"]}`, oauth.ErrInvalidRedirectURI},
		{"implicit", `{"redirect_uris":["https://example.com/cb"],"grant_types":["implicit"]}`, oauth.ErrInvalidClientMetadata},
		{"token response", `{"redirect_uris":["https://example.com/cb"],"response_types":["token"]}`, oauth.ErrInvalidClientMetadata},
		{"private_key_jwt", `{"redirect_uris":["https://example.com/cb"],"token_endpoint_auth_method":"private_key_jwt"}`, oauth.ErrInvalidClientMetadata},
		{"control chars in name", `{"redirect_uris":["https://example.com/cb"],"client_name":"a\u0007b"}`, oauth.ErrInvalidClientMetadata},
		{"too many", `{"redirect_uris":["https://a/1","https://a/2","https://a/3","https://a/4","https://a/5","https://a/6","https://a/7","https://a/8","https://a/9","https://a/10","https://a/11"]}`, oauth.ErrInvalidRedirectURI},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := f.srv.Register(t.Context(), []byte(tt.body)); oauthCode(err) != tt.want {
				t.Errorf("Register(%s) = %v, want %s", tt.body, err, tt.want)
			}
		})
	}
	c, err := f.srv.Register(t.Context(), []byte(`{"redirect_uris":["cursor://anysphere.cursor/oauth/cb","http://localhost/cb"],"token_endpoint_auth_method":"client_secret_basic","client_name":"Cursor"}`))
	if err != nil || c.AuthMethod != "none" || len(c.GrantTypes) != 2 || c.Name != "Cursor" || c.ID == "" {
		t.Errorf("Register of a native client asking for a secret = %+v, %v (want a public client)", c, err)
	}
}

// TestRedirectMatching covers exact matching and the loopback port rule.
func TestRedirectMatching(t *testing.T) {
	f := newFixture(t, nil)
	ctx := t.Context()
	c, err := f.srv.Register(ctx, []byte(`{"redirect_uris":["http://127.0.0.1/cb","http://[::1]:8080/cb?x=1","https://app.example/cb","com.example.app:/oauth"]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ch := pkce("m")
	for _, tt := range []struct {
		uri string
		ok  bool
	}{
		{"http://127.0.0.1/cb", true},
		{"http://127.0.0.1:51234/cb", true},
		{"http://[::1]:1/cb?x=1", true},
		{"com.example.app:/oauth", true},
		{"https://app.example/cb", true},
		{"http://127.0.0.1:51234/cb2", false},
		{"http://127.0.0.1:51234/cb?y=1", false},
		{"http://localhost:51234/cb", false},
		{"http://[::1]:8080/cb", false},
		{"https://app.example:444/cb", false},
		{"https://app.example/cb/", false},
		{"https://APP.example/cb", false},
		{"http://app.example/cb", false},
		{"com.example.app:/oauth2", false},
	} {
		_, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: c.ID, RedirectURI: tt.uri, State: "s", CodeChallenge: ch, CodeChallengeMethod: "S256"})
		e, _ := err.(*oauth.Error)
		switch {
		case tt.ok && err != nil:
			t.Errorf("%s refused: %v", tt.uri, err)
		case !tt.ok && (e == nil || e.Redirect != ""):
			t.Errorf("%s = %v, want a refusal that does not redirect", tt.uri, err)
		}
	}
}

// TestResourceAliases: a resource named by one of its aliases (HaRP's
// URL) is bound into the token's audience beside the canonical one.
func TestResourceAliases(t *testing.T) {
	const harp = "https://nc.example/exapps/hybrid_search/mcp"
	f := newFixture(t, nil, func(o *oauth.Options) { o.Aliases = []string{harp} })
	ctx := t.Context()
	v, c := pkce("alias")
	p, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: f.clientID, RedirectURI: redirect, State: "s",
		CodeChallenge: c, CodeChallengeMethod: "S256", Resources: []string{harp}})
	if err != nil || p.Resource != harp {
		t.Fatalf("Start for the alias = %+v, %v", p, err)
	}
	p, _ = f.srv.Resume(ctx, p.ID, "alice")
	next, err := f.srv.Decide(ctx, p.ID, "alice", p.CSRF, true)
	if err != nil {
		t.Fatal(err)
	}
	code := next[strings.Index(next, "code=")+5:]
	code = code[:strings.IndexAny(code+"&", "&")]
	if _, err := f.srv.Token(ctx, oauth.TokenRequest{GrantType: "authorization_code", ClientID: f.clientID, Code: code, RedirectURI: redirect,
		CodeVerifier: v, Resources: []string{resource}}); oauthCode(err) != oauth.ErrInvalidTarget {
		t.Errorf("exchange naming another resource than authorized = %v, want invalid_target", err)
	}
	if _, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: f.clientID, RedirectURI: redirect, State: "s",
		CodeChallenge: c, CodeChallengeMethod: "S256", Resources: []string{harp, resource}}); oauthCode(err) != oauth.ErrInvalidTarget {
		t.Errorf("two resources = %v, want invalid_target", err)
	}
	p, _ = f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: f.clientID, RedirectURI: redirect, State: "s",
		CodeChallenge: c, CodeChallengeMethod: "S256", Resources: []string{harp}})
	p, _ = f.srv.Resume(ctx, p.ID, "alice")
	next, _ = f.srv.Decide(ctx, p.ID, "alice", p.CSRF, true)
	code = next[strings.Index(next, "code=")+5:]
	code = code[:strings.IndexAny(code+"&", "&")]
	tok, err := f.srv.Token(ctx, oauth.TokenRequest{GrantType: "authorization_code", ClientID: f.clientID, Code: code, RedirectURI: redirect,
		CodeVerifier: v, Resources: []string{harp}})
	if err != nil {
		t.Fatal(err)
	}
	if _, rec, err := f.tokens.Verify(ctx, tok.AccessToken); err != nil || rec.Resource != harp {
		t.Errorf("Verify = %+v %v", rec, err)
	}
	var claims jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(tok.AccessToken, &claims); err != nil {
		t.Fatal(err)
	}
	if aud, _ := claims.GetAudience(); !slices.Equal(aud, []string{harp, resource}) {
		t.Errorf("aud = %v, want the alias and the canonical resource", aud)
	}
}

// TestNoRoom: a user with tokens.MaxActive active tokens is told so on
// the consent page, and no code is issued.
func TestNoRoom(t *testing.T) {
	f := newFixture(t, nil)
	ctx := t.Context()
	for range tokens.MaxActive {
		if _, _, err := f.tokens.Issue(ctx, "alice", "t", 0); err != nil {
			t.Fatal(err)
		}
	}
	_, c := pkce("room")
	p, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: f.clientID, RedirectURI: redirect, State: "s", CodeChallenge: c, CodeChallengeMethod: "S256"})
	if err != nil {
		t.Fatal(err)
	}
	p, _ = f.srv.Resume(ctx, p.ID, "alice")
	next, err := f.srv.Decide(ctx, p.ID, "alice", p.CSRF, true)
	e, _ := err.(*oauth.Error)
	if e == nil || e.Code != oauth.ErrAccessDenied || e.Redirect != "" || !strings.Contains(e.Description, "revoke one first") || next != "" {
		t.Errorf("Decide with no room = %q, %v", next, err)
	}
	// Declining still works and tells the client.
	if next, err := f.srv.Decide(ctx, p.ID, "alice", p.CSRF, false); err != nil || !strings.Contains(next, "error=access_denied") {
		t.Errorf("Decide deny = %q, %v", next, err)
	}
}
