package tokens_test

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/tokens"
)

const (
	secret   = "app-secret-from-appapi"
	audience = "http://nc.test/index.php/apps/app_api/proxy/hybrid_search/mcp"
	issuer   = "http://nc.test/index.php/apps/app_api/proxy/hybrid_search"
)

// memStore is an in-memory tokens.Store; err, if set, fails every call.
type memStore struct {
	mu   sync.Mutex
	recs map[string]hs.Token
	err  error
}

var _ tokens.Store = (*memStore)(nil)

func newMemStore() *memStore { return &memStore{recs: map[string]hs.Token{}} }

func key(u hs.UserID, id string) string { return string(u) + "\x00" + id }

func (m *memStore) Create(ctx context.Context, t hs.Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	if _, ok := m.recs[key(t.User, t.ID)]; ok {
		return hs.Errorf(hs.ECONFLICT, "exists")
	}
	m.recs[key(t.User, t.ID)] = t
	return nil
}

func (m *memStore) Put(ctx context.Context, t hs.Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.recs[key(t.User, t.ID)] = t
	return nil
}

func (m *memStore) Get(ctx context.Context, u hs.UserID, id string) (hs.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return hs.Token{}, m.err
	}
	t, ok := m.recs[key(u, id)]
	if !ok {
		return hs.Token{}, hs.Errorf(hs.ENOTFOUND, "no token")
	}
	return t, nil
}

func (m *memStore) List(ctx context.Context, u hs.UserID) ([]hs.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return nil, m.err
	}
	var out []hs.Token
	for _, t := range m.recs {
		if t.User == u {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b hs.Token) int { return a.Created.Compare(b.Created) })
	return out, nil
}

func (m *memStore) Delete(ctx context.Context, u hs.UserID, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.recs, key(u, id))
	return nil
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
func newClock() *clock               { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }
func quiet() *slog.Logger            { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
func kind(err error) string          { return hs.ErrorKind(err) }
func b64(b []byte) string            { return base64.RawURLEncoding.EncodeToString(b) }
func mustNew(t *testing.T, o tokens.Options) *tokens.Service {
	t.Helper()
	s, err := tokens.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newService(t *testing.T) (*tokens.Service, *memStore, *clock) {
	st, c := newMemStore(), newClock()
	return mustNew(t, tokens.Options{Secret: secret, Audience: audience, Issuer: issuer, Store: st, Now: c.Now, Logger: quiet()}), st, c
}

func TestNewRequiresOptions(t *testing.T) {
	full := tokens.Options{Secret: secret, Audience: audience, Issuer: issuer, Store: newMemStore()}
	tests := []struct {
		name   string
		change func(o *tokens.Options)
	}{
		{"secret", func(o *tokens.Options) { o.Secret = "" }},
		{"audience", func(o *tokens.Options) { o.Audience = "" }},
		{"issuer", func(o *tokens.Options) { o.Issuer = "" }},
		{"store", func(o *tokens.Options) { o.Store = nil }},
	}
	for _, tt := range tests {
		o := full
		tt.change(&o)
		if _, err := tokens.New(o); err == nil || !strings.Contains(strings.ToLower(err.Error()), tt.name) {
			t.Errorf("New without %s = %v, want an error naming it", tt.name, err)
		}
	}
	if _, err := tokens.New(full); err != nil {
		t.Errorf("New with every option: %v", err)
	}
}

func TestIssueVerifyRevoke(t *testing.T) {
	s, st, c := newService(t)
	ctx := t.Context()
	raw, rec, err := s.Issue(ctx, "alice", "  Claude Desktop ", 0)
	if err != nil {
		t.Fatalf("Issue: %v", err)
	}
	if rec.Name != "Claude Desktop" || rec.User != "alice" || rec.Scope != hs.TokenScope || rec.Revoked ||
		!rec.Expires.Equal(c.Now().Add(tokens.DefaultTTL)) || len(rec.ID) < 20 {
		t.Errorf("record = %+v", rec)
	}
	for _, stored := range st.recs {
		if strings.Contains(stored.Name+stored.ID, raw) || stored.ID == raw {
			t.Errorf("the store holds the raw token")
		}
	}
	// The claims are what the issue promises.
	var got jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got["sub"] != "alice" || got["jti"] != rec.ID || got["scope"] != hs.TokenScope || got["iss"] != issuer {
		t.Errorf("claims = %v", got)
	}
	if aud, _ := got.GetAudience(); !slices.Equal(aud, []string{audience}) {
		t.Errorf("aud = %v, want [%s]", aud, audience)
	}

	user, vrec, err := s.Verify(ctx, raw)
	if err != nil || user != "alice" || vrec.ID != rec.ID {
		t.Fatalf("Verify = %q, %+v, %v", user, vrec, err)
	}
	list, err := s.List(ctx, "alice")
	if err != nil || len(list) != 1 || list[0].ID != rec.ID {
		t.Errorf("List = %+v, %v", list, err)
	}
	if list, _ := s.List(ctx, "bob"); len(list) != 0 {
		t.Errorf("bob's list = %+v, want none", list)
	}
	if err := s.Revoke(ctx, "bob", rec.ID); kind(err) != hs.ENOTFOUND {
		t.Errorf("bob revoking alice's token = %v, want ENOTFOUND", err)
	}
	if _, _, err := s.Verify(ctx, raw); err != nil {
		t.Errorf("Verify after bob's failed revoke: %v", err)
	}
	if err := s.Revoke(ctx, "alice", rec.ID); err != nil {
		t.Fatalf("Revoke: %v", err)
	}
	if err := s.Revoke(ctx, "alice", rec.ID); err != nil {
		t.Errorf("Revoke again: %v", err)
	}
	if _, _, err := s.Verify(ctx, raw); kind(err) != hs.EUNAUTHORIZED || !strings.Contains(err.Error(), "revoked") {
		t.Errorf("Verify of a revoked token = %v, want EUNAUTHORIZED revoked", err)
	}
	if list, _ := s.List(ctx, "alice"); len(list) != 1 || !list[0].Revoked || list[0].RevokedAt.IsZero() {
		t.Errorf("List after revoke = %+v, want it listed as revoked", list)
	}
	// Long after, the revoked record is purged.
	c.Add(31 * 24 * time.Hour)
	if list, _ := s.List(ctx, "alice"); len(list) != 0 {
		t.Errorf("List a month after revoking = %+v, want the record purged", list)
	}
	if err := s.Revoke(ctx, "alice", "no-such-id"); kind(err) != hs.ENOTFOUND {
		t.Errorf("Revoke of an unknown id = %v", err)
	}
}

func TestIssueRefuses(t *testing.T) {
	s, st, _ := newService(t)
	ctx := t.Context()
	tests := []struct {
		name string
		user hs.UserID
		tok  string
		ttl  time.Duration
		want string
	}{
		{"no user", "", "x", 0, hs.EUNAUTHORIZED},
		{"negative ttl", "alice", "x", -time.Hour, hs.EINVALID},
		{"ttl below the minimum", "alice", "x", time.Second, hs.EINVALID},
		{"ttl over a year", "alice", "x", tokens.MaxTTL + time.Hour, hs.EINVALID},
		{"long name", "alice", strings.Repeat("n", tokens.MaxNameLength+1), 0, hs.EINVALID},
		{"control characters", "alice", "bad\x00name", 0, hs.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := s.Issue(ctx, tt.user, tt.tok, tt.ttl); kind(err) != tt.want {
				t.Errorf("Issue = %v, want kind %s", err, tt.want)
			}
		})
	}
	if _, rec, err := s.Issue(ctx, "alice", "", tokens.MaxTTL); err != nil || rec.Name != tokens.DefaultName {
		t.Errorf("Issue with no name and a year = %+v, %v", rec, err)
	}
	for range tokens.MaxActive - 1 {
		if _, _, err := s.Issue(ctx, "alice", "n", time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.Issue(ctx, "alice", "one too many", 0); kind(err) != hs.EINVALID {
		t.Errorf("Issue over MaxActive = %v, want EINVALID", err)
	}
	if _, _, err := s.Issue(ctx, "bob", "bob's first", 0); err != nil {
		t.Errorf("bob is not limited by alice's tokens: %v", err)
	}
	st.err = hs.Errorf(hs.EUNAVAILABLE, "nats down")
	if _, _, err := s.Issue(ctx, "bob", "", 0); kind(err) != hs.EUNAVAILABLE {
		t.Errorf("Issue with the store down = %v, want EUNAVAILABLE", err)
	}
}

// sign signs claims with method and key, bypassing the Service.
func sign(t *testing.T, method jwt.SigningMethod, key any, c jwt.MapClaims) string {
	t.Helper()
	raw, err := jwt.NewWithClaims(method, c).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestVerifyRejects(t *testing.T) {
	s, st, c := newService(t)
	ctx := t.Context()
	good, rec, err := s.Issue(ctx, "alice", "laptop", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	revokedRaw, revoked, _ := s.Issue(ctx, "alice", "old", time.Hour)
	if err := s.Revoke(ctx, "alice", revoked.ID); err != nil {
		t.Fatal(err)
	}
	key, _ := tokens.DeriveKey(secret)
	claims := func(change func(jwt.MapClaims)) jwt.MapClaims {
		m := jwt.MapClaims{"iss": issuer, "sub": "alice", "aud": []string{audience}, "jti": rec.ID,
			"iat": c.Now().Unix(), "exp": c.Now().Add(time.Hour).Unix(), "scope": hs.TokenScope}
		if change != nil {
			change(m)
		}
		return m
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, ".")
	// HMAC with our key over an RS256 header: the classic algorithm
	// confusion, which must fail on the pinned algorithm alone.
	confused := func() string {
		head := b64([]byte(`{"alg":"RS256","typ":"JWT"}`))
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(head + "." + parts[1]))
		return head + "." + parts[1] + "." + b64(mac.Sum(nil))
	}()
	none := sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(nil))
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	tampered := parts[0] + "." + b64([]byte(strings.Replace(string(payload), `"sub":"alice"`, `"sub":"bob"`, 1))) + "." + parts[2]

	tests := []struct {
		name, raw, why string
	}{
		{"empty", "", "missing"},
		{"garbage", "not.a.jwt", "malformed"},
		{"too long", strings.Repeat("a", tokens.MaxTokenBytes+1), "too long"},
		{"alg none", none, ""},
		{"RS256 with the HMAC key", confused, ""},
		{"RS256 with an RSA key", sign(t, jwt.SigningMethodRS256, rsaKey, claims(nil)), ""},
		{"HS512 with the right key", sign(t, jwt.SigningMethodHS512, key, claims(nil)), ""},
		{"signed with the raw secret", sign(t, jwt.SigningMethodHS256, []byte(secret), claims(nil)), "signature"},
		{"tampered subject", tampered, "signature"},
		{"truncated signature", good[:len(good)-4], ""},
		{"wrong audience", sign(t, jwt.SigningMethodHS256, key, claims(func(m jwt.MapClaims) { m["aud"] = "http://elsewhere/mcp" })), "another server"},
		{"no audience", sign(t, jwt.SigningMethodHS256, key, claims(func(m jwt.MapClaims) { delete(m, "aud") })), ""},
		{"wrong issuer", sign(t, jwt.SigningMethodHS256, key, claims(func(m jwt.MapClaims) { m["iss"] = "evil" })), "another server"},
		{"no expiry", sign(t, jwt.SigningMethodHS256, key, claims(func(m jwt.MapClaims) { delete(m, "exp") })), ""},
		{"expired claim", sign(t, jwt.SigningMethodHS256, key, claims(func(m jwt.MapClaims) { m["exp"] = c.Now().Add(-time.Second).Unix() })), "expired"},
		{"no scope", sign(t, jwt.SigningMethodHS256, key, claims(func(m jwt.MapClaims) { delete(m, "scope") })), "scope"},
		{"other scope", sign(t, jwt.SigningMethodHS256, key, claims(func(m jwt.MapClaims) { m["scope"] = "files:write" })), "scope"},
		{"unknown jti", sign(t, jwt.SigningMethodHS256, key, claims(func(m jwt.MapClaims) { m["jti"] = "never-issued" })), "unknown"},
		{"no jti", sign(t, jwt.SigningMethodHS256, key, claims(func(m jwt.MapClaims) { delete(m, "jti") })), ""},
		{"jti of another user", sign(t, jwt.SigningMethodHS256, key, claims(func(m jwt.MapClaims) { m["sub"] = "bob" })), "unknown"},
		{"revoked", revokedRaw, "revoked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user, _, err := s.Verify(ctx, tt.raw)
			if kind(err) != hs.EUNAUTHORIZED || user != "" {
				t.Fatalf("Verify = %q, %v; want EUNAUTHORIZED", user, err)
			}
			if !strings.Contains(err.Error(), tt.why) {
				t.Errorf("Verify error %q does not say %q", err, tt.why)
			}
		})
	}
	// A token whose claim outlives its record (a shortened record) is
	// refused by the record's expiry.
	short := rec
	short.Expires = c.Now().Add(time.Minute)
	_ = st.Put(ctx, short)
	c.Add(2 * time.Minute)
	if _, _, err := s.Verify(ctx, good); kind(err) != hs.EUNAUTHORIZED || !strings.Contains(err.Error(), "expired") {
		t.Errorf("Verify past the record's expiry = %v", err)
	}
	// Past the claim's own expiry.
	c.Add(time.Hour)
	if _, _, err := s.Verify(ctx, good); kind(err) != hs.EUNAUTHORIZED || !strings.Contains(err.Error(), "expired") {
		t.Errorf("Verify of an expired token = %v", err)
	}

	// Another app secret (another installation) cannot verify our tokens.
	other := mustNew(t, tokens.Options{Secret: "another-secret", Audience: audience, Issuer: issuer, Store: st, Now: c.Now, Logger: quiet()})
	raw2, _, _ := s.Issue(ctx, "alice", "fresh", time.Hour)
	if _, _, err := other.Verify(ctx, raw2); kind(err) != hs.EUNAUTHORIZED {
		t.Errorf("Verify with another secret = %v", err)
	}
}

func TestVerifyStoreDown(t *testing.T) {
	s, st, _ := newService(t)
	raw, _, err := s.Issue(t.Context(), "alice", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	st.err = hs.Errorf(hs.EUNAVAILABLE, "nats down")
	_, _, err = s.Verify(t.Context(), raw)
	if kind(err) != hs.EUNAVAILABLE {
		t.Errorf("Verify with the store down = %v, want EUNAVAILABLE (not a 401 for a good token)", err)
	}
}

func TestDeriveKey(t *testing.T) {
	a, _ := tokens.DeriveKey("one")
	b, _ := tokens.DeriveKey("one")
	c, _ := tokens.DeriveKey("two")
	if len(a) != 32 || string(a) != string(b) || string(a) == string(c) || strings.Contains(string(a), "one") {
		t.Errorf("DeriveKey: deterministic 32-byte keys that differ per secret expected")
	}
}
