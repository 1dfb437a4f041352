package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/oauth"
	"github.com/hybrid-search/hybridsearch/tokens"
)

const (
	issuer   = "https://nc.example/index.php/apps/app_api/proxy/hybrid_search"
	resource = issuer + "/mcp"
	redirect = "http://127.0.0.1:9/cb"
)

// memRecords is an in-memory oauth.Records with revisions.
type memRecords struct {
	mu  sync.Mutex
	rev uint64
	m   map[string]memEntry
}

type memEntry struct {
	val []byte
	rev uint64
}

var _ oauth.Records = (*memRecords)(nil)

func newMem() *memRecords { return &memRecords{m: map[string]memEntry{}} }

func (r *memRecords) Create(_ context.Context, key string, v []byte) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[key]; ok {
		return 0, hs.Errorf(hs.ECONFLICT, "exists")
	}
	r.rev++
	r.m[key] = memEntry{append([]byte(nil), v...), r.rev}
	return r.rev, nil
}

func (r *memRecords) Get(_ context.Context, key string) ([]byte, uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.m[key]
	if !ok {
		return nil, 0, hs.Errorf(hs.ENOTFOUND, "none")
	}
	return e.val, e.rev, nil
}

func (r *memRecords) Update(_ context.Context, key string, v []byte, rev uint64) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.m[key]
	if !ok || e.rev != rev {
		return 0, hs.Errorf(hs.ECONFLICT, "changed")
	}
	r.rev++
	r.m[key] = memEntry{append([]byte(nil), v...), r.rev}
	return r.rev, nil
}

// size returns the number of records and the bytes of their values.
func (r *memRecords) size() (n, bytes int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.m {
		n, bytes = n+1, bytes+len(e.val)
	}
	return n, bytes
}

// values returns every record's value.
func (r *memRecords) values() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.m {
		out = append(out, string(e.val))
	}
	return out
}

func (r *memRecords) Delete(_ context.Context, key string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, key)
	return nil
}

// memTokens is an in-memory tokens.Store.
type memTokens struct {
	mu sync.Mutex
	m  map[string]hs.Token
}

func (s *memTokens) Create(_ context.Context, t hs.Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[string(t.User)+"/"+t.ID] = t
	return nil
}
func (s *memTokens) Put(ctx context.Context, t hs.Token) error { return s.Create(ctx, t) }
func (s *memTokens) Get(_ context.Context, u hs.UserID, id string) (hs.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.m[string(u)+"/"+id]
	if !ok {
		return hs.Token{}, hs.Errorf(hs.ENOTFOUND, "none")
	}
	return t, nil
}
func (s *memTokens) List(_ context.Context, u hs.UserID) ([]hs.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []hs.Token
	for _, t := range s.m {
		if t.User == u {
			out = append(out, t)
		}
	}
	return out, nil
}
func (s *memTokens) Delete(_ context.Context, u hs.UserID, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, string(u)+"/"+id)
	return nil
}

// clock is a settable fake clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fixture is a Server over in-memory stores and a fake clock, with one
// registered client.
type fixture struct {
	srv      *oauth.Server
	tokens   *tokens.Service
	clock    *clock
	clientID string
	// clients, requests, codes and refresh are the server's stores.
	clients, requests, codes, refresh *memRecords
}

func newFixture(t *testing.T, fetcher *oauth.Fetcher, change ...func(*oauth.Options)) *fixture {
	t.Helper()
	c := &clock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ts, err := tokens.New(tokens.Options{Secret: "s3cret", Audience: resource, Issuer: issuer, Store: &memTokens{m: map[string]hs.Token{}}, Now: c.Now, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{tokens: ts, clock: c, clients: newMem(), requests: newMem(), codes: newMem(), refresh: newMem()}
	o := oauth.Options{Issuer: issuer, Resource: resource, Secret: []byte("app secret"), Grants: ts, Clients: f.clients, Requests: f.requests,
		Codes: f.codes, Refresh: f.refresh, Fetcher: fetcher, Now: c.Now, Logger: log}
	for _, fn := range change {
		fn(&o)
	}
	srv, err := oauth.New(o)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := srv.Register(t.Context(), []byte(`{"client_name":"Unit","redirect_uris":["`+redirect+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	f.srv, f.clientID = srv, cl.ID
	return f
}

func pkce(seed string) (verifier, challenge string) {
	verifier = strings.Repeat(seed, 64)[:64]
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// code runs an authorization as alice and returns the code.
func (f *fixture) code(t *testing.T, challenge string) string {
	t.Helper()
	ctx := t.Context()
	p, err := f.srv.Start(ctx, oauth.AuthRequest{ResponseType: "code", ClientID: f.clientID, RedirectURI: redirect, State: "st",
		CodeChallenge: challenge, CodeChallengeMethod: "S256", Resources: []string{resource}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	p, err = f.srv.Resume(ctx, p.ID, "alice")
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	next, err := f.srv.Decide(ctx, p.ID, "alice", p.CSRF, true)
	if err != nil {
		t.Fatalf("Decide: %v", err)
	}
	u, _ := url.Parse(next)
	return u.Query().Get("code")
}

func (f *fixture) exchange(t *testing.T, code, verifier string) (oauth.TokenResponse, error) {
	return f.srv.Token(t.Context(), oauth.TokenRequest{GrantType: "authorization_code", ClientID: f.clientID, Code: code,
		RedirectURI: redirect, CodeVerifier: verifier, Resources: []string{resource}})
}

// oauthCode returns the OAuth error code of err ("" for nil or others).
func oauthCode(err error) string {
	if e, ok := err.(*oauth.Error); ok {
		return e.Code
	}
	return ""
}
