package tokens_test

import (
	"slices"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/tokens"
)

func TestGrant(t *testing.T) {
	s, _, c := newService(t)
	ctx := t.Context()
	if _, err := s.Grant(ctx, "", "App", "client-1", audience); kind(err) != hs.EUNAUTHORIZED {
		t.Errorf("Grant without a user = %v", err)
	}
	if _, err := s.Grant(ctx, "alice", "App", "", audience); kind(err) != hs.EINVALID {
		t.Errorf("Grant without a client = %v", err)
	}
	rec, err := s.Grant(ctx, "alice", "Claude", "client-1", audience)
	if err != nil || rec.Client != "client-1" || rec.Resource != audience || rec.Name != "Claude" || !rec.Expires.Equal(rec.Created.Add(tokens.GrantTTL)) {
		t.Fatalf("Grant = %+v, %v", rec, err)
	}
	raw, exp, err := s.AccessToken(rec, 0)
	if err != nil || !exp.Equal(c.Now().Add(tokens.AccessTTL)) {
		t.Fatalf("AccessToken = %v %v", exp, err)
	}
	var cl jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(raw, &cl); err != nil {
		t.Fatal(err)
	}
	aud, _ := cl.GetAudience()
	if cl["grant"] != rec.ID || cl["jti"] == rec.ID || !slices.Equal(aud, []string{audience}) || cl["scope"] != hs.TokenScope {
		t.Errorf("claims = %v", cl)
	}
	raw2, _, _ := s.AccessToken(rec, 0)
	for _, r := range []string{raw, raw2} {
		if u, got, err := s.Verify(ctx, r); err != nil || u != "alice" || got.ID != rec.ID {
			t.Errorf("Verify = %s %+v %v", u, got, err)
		}
	}
	list, _ := s.List(ctx, "alice")
	if len(list) != 1 || list[0].ID != rec.ID {
		t.Errorf("List = %+v", list)
	}
	// Access tokens never outlive the grant.
	c.Add(tokens.GrantTTL - 10*time.Minute)
	if _, exp, err := s.AccessToken(rec, 0); err != nil || !exp.Equal(rec.Expires) {
		t.Errorf("AccessToken near the grant's end expires %v (%v), want %v", exp, err, rec.Expires)
	}
	c.Add(time.Hour)
	if _, _, err := s.AccessToken(rec, 0); kind(err) != hs.EUNAUTHORIZED {
		t.Errorf("AccessToken after the grant's end = %v", err)
	}
	if _, _, err := s.Verify(ctx, raw); kind(err) != hs.EUNAUTHORIZED {
		t.Errorf("Verify of an old access token = %v", err)
	}
}

func TestGrantRevoke(t *testing.T) {
	s, _, _ := newService(t)
	ctx := t.Context()
	rec, _ := s.Grant(ctx, "alice", "Claude", "client-1", audience)
	raw, _, _ := s.AccessToken(rec, 0)
	appRaw, appRec, _ := s.Issue(ctx, "alice", "cli", 0)
	if err := s.Revoke(ctx, "alice", rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Verify(ctx, raw); kind(err) != hs.EUNAUTHORIZED {
		t.Errorf("Verify after revoking the grant = %v", err)
	}
	if _, _, err := s.Verify(ctx, appRaw); err != nil {
		t.Errorf("the app token died with the grant: %v", err)
	}
	// A grant claim that names an app token's record is refused, and an
	// access token cannot be minted for a record that is no grant.
	if _, _, err := s.AccessToken(appRec, 0); kind(err) != hs.EINVALID {
		t.Errorf("AccessToken for an app token = %v", err)
	}
	key, _ := tokens.DeriveKey(secret)
	forged := sign(t, jwt.SigningMethodHS256, key, jwt.MapClaims{"iss": issuer, "sub": "alice", "aud": audience, "jti": "x1",
		"exp": time.Now().Add(time.Hour).Unix() + 1e6, "scope": hs.TokenScope, "grant": appRec.ID})
	if _, _, err := s.Verify(ctx, forged); kind(err) != hs.EUNAUTHORIZED {
		t.Errorf("Verify of a grant claim naming an app token = %v", err)
	}
	if got, err := s.Get(ctx, "alice", rec.ID); err != nil || !got.Revoked {
		t.Errorf("Get = %+v %v", got, err)
	}
	if _, err := s.Get(ctx, "bob", rec.ID); kind(err) != hs.ENOTFOUND {
		t.Errorf("bob's Get of alice's grant = %v", err)
	}
}
