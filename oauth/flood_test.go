package oauth_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/oauth"
)

// TestAnonymousRequestsStoreNothing: registrations and authorization
// requests come from anyone, so they may not take room in a store that a
// flood could fill: a registration is its client_id (sealed), a pending
// sign-in is its handle until a signed-in user opens it. A sign-in after
// thousands of both works and leaves one small record per step.
func TestAnonymousRequestsStoreNothing(t *testing.T) {
	f := newFixture(t, nil)
	ctx := t.Context()
	state := strings.Repeat("<", 1000)
	long := "http://127.0.0.1/" + strings.Repeat("%3C", 600)
	for i := range 2000 {
		c, err := f.srv.Register(ctx, []byte(`{"client_name":"Flood `+fmt.Sprint(i)+`","redirect_uris":["`+long+`"]}`))
		if err != nil {
			t.Fatalf("registration %d: %v", i, err)
		}
		_, ch := pkce("f")
		if _, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: c.ID, RedirectURI: long, State: state, CodeChallenge: ch, CodeChallengeMethod: "S256"}); err != nil {
			t.Fatalf("authorization request %d: %v", i, err)
		}
	}
	for name, r := range map[string]*memRecords{"clients": f.clients, "requests": f.requests, "codes": f.codes, "refresh": f.refresh} {
		if n, b := r.size(); n != 0 {
			t.Errorf("after 2000 anonymous registrations and authorization requests the %s store holds %d records (%d bytes), want none", name, n, b)
		}
	}

	// A real sign-in: one bound request, one code, one confirmed client,
	// one refresh token, each small and stored once, unescaped.
	c, err := f.srv.Register(ctx, []byte(`{"client_name":"Real <Client>","redirect_uris":["`+long+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	v, ch := pkce("r")
	p, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: c.ID, RedirectURI: long, State: state, CodeChallenge: ch, CodeChallengeMethod: "S256"})
	if err != nil {
		t.Fatal(err)
	}
	if p, err = f.srv.Resume(ctx, p.ID, "alice"); err != nil || p.State != state || p.ClientName != "Real <Client>" {
		t.Fatalf("Resume = %+v, %v", p, err)
	}
	next, err := f.srv.Decide(ctx, p.ID, "alice", p.CSRF, true)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(next)
	if u.Query().Get("state") != state {
		t.Errorf("state came back as %q", u.Query().Get("state"))
	}
	if _, err := f.srv.Token(ctx, oauth.TokenRequest{GrantType: "authorization_code", ClientID: c.ID, Code: u.Query().Get("code"), RedirectURI: long, CodeVerifier: v}); err != nil {
		t.Fatalf("exchange: %v", err)
	}
	for name, r := range map[string]*memRecords{"clients": f.clients, "requests": f.requests, "codes": f.codes, "refresh": f.refresh} {
		n, b := r.size()
		if n != 1 || b > 3*len(long)/2 {
			t.Errorf("after one sign-in the %s store holds %d records of %d bytes, want 1 small one", name, n, b)
		}
		for _, v := range r.values() {
			if strings.Contains(v, `\u003c`) || strings.Contains(v, "%3C%3C") && strings.Count(v, "%3C") > 600 {
				t.Errorf("%s record stores escaped or repeated text: %.200s", name, v)
			}
		}
	}
}

// TestRegistrationLivesShortUntilUsed: a registration that no sign-in
// ever completes ends after UnconfirmedClientTTL; one that did lives
// ClientTTL after its last use.
func TestRegistrationLivesShortUntilUsed(t *testing.T) {
	f := newFixture(t, nil)
	ctx := t.Context()
	start := func(id string) error {
		_, ch := pkce("s")
		_, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: id, RedirectURI: redirect, State: "s", CodeChallenge: ch, CodeChallengeMethod: "S256"})
		return err
	}
	idle, err := f.srv.Register(ctx, []byte(`{"redirect_uris":["`+redirect+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	v, ch := pkce("u")
	if _, err := f.exchange(t, f.code(t, ch), v); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(oauth.UnconfirmedClientTTL + time.Minute)
	if err := start(idle.ID); oauthCode(err) != oauth.ErrInvalidClient || !strings.Contains(err.(*oauth.Error).Description, "register") {
		t.Errorf("a registration never used, after %s: %v, want invalid_client asking to register again", oauth.UnconfirmedClientTTL, err)
	}
	if err := start(f.clientID); err != nil {
		t.Errorf("a client that signed someone in, after %s: %v", oauth.UnconfirmedClientTTL, err)
	}
	f.clock.Add(oauth.ClientTTL + time.Minute)
	if err := start(f.clientID); oauthCode(err) != oauth.ErrInvalidClient {
		t.Errorf("a client unused for %s: %v, want invalid_client", oauth.ClientTTL, err)
	}
}

// TestSealedHandlesResistTampering: a client_id or a sign-in handle that
// was changed, or made with another app's secret, is unknown.
func TestSealedHandlesResistTampering(t *testing.T) {
	f := newFixture(t, nil)
	other := newFixture(t, nil, func(o *oauth.Options) { o.Secret = []byte("another app") })
	ctx := t.Context()
	_, ch := pkce("t")
	flip := func(s string) string {
		b := []byte(s)
		i := len(b) / 2
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	for name, id := range map[string]string{"changed": flip(f.clientID), "another app's": other.clientID} {
		_, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: id, RedirectURI: redirect, State: "s", CodeChallenge: ch, CodeChallengeMethod: "S256"})
		if oauthCode(err) != oauth.ErrInvalidClient {
			t.Errorf("%s client_id: %v, want invalid_client", name, err)
		}
	}
	p, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: f.clientID, RedirectURI: redirect, State: "s", CodeChallenge: ch, CodeChallengeMethod: "S256"})
	if err != nil {
		t.Fatal(err)
	}
	q, err := other.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: other.clientID, RedirectURI: redirect, State: "s", CodeChallenge: ch, CodeChallengeMethod: "S256"})
	if err != nil {
		t.Fatal(err)
	}
	for name, id := range map[string]string{"changed": flip(p.ID), "another app's": q.ID, "a client_id": f.clientID} {
		if _, err := f.srv.Resume(ctx, id, "alice"); oauthCode(err) != oauth.ErrInvalidRequest {
			t.Errorf("Resume of a %s handle: %v, want invalid_request", name, err)
		}
	}
}

// TestStateOptionalWithPKCE: OAuth 2.1 makes state optional when PKCE
// protects the code; the redirect then carries none.
func TestStateOptionalWithPKCE(t *testing.T) {
	f := newFixture(t, nil)
	ctx := t.Context()
	_, ch := pkce("o")
	p, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: f.clientID, RedirectURI: redirect, CodeChallenge: ch, CodeChallengeMethod: "S256"})
	if err != nil {
		t.Fatalf("Start without state: %v", err)
	}
	p, _ = f.srv.Resume(ctx, p.ID, "alice")
	next, err := f.srv.Decide(ctx, p.ID, "alice", p.CSRF, true)
	if u, _ := url.Parse(next); err != nil || u.Query().Has("state") || u.Query().Get("code") == "" {
		t.Errorf("Decide without state = %q, %v", next, err)
	}
}

// TestRegistrationResponse: the answer is RFC 7591 client information,
// no internal fields.
func TestRegistrationResponse(t *testing.T) {
	f := newFixture(t, nil)
	c, err := f.srv.Register(t.Context(), []byte(`{"client_name":"R","redirect_uris":["`+redirect+`"],"software_id":"x","client_uri":"https://r.example"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for k := range m {
		switch k {
		case "client_id", "client_name", "redirect_uris", "grant_types", "response_types", "token_endpoint_auth_method", "scope",
			"client_uri", "software_id", "software_version", "client_id_issued_at":
		default:
			t.Errorf("registration response has %q: %s", k, b)
		}
	}
	if m["client_id_issued_at"] == nil || m["client_uri"] != "https://r.example" {
		t.Errorf("registration response %s", b)
	}
	_ = hs.TokenScope
}
