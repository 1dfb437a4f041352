package kv

import (
	"slices"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestTokenStore(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	ctx := t.Context()
	s, err := q.Tokens(ctx)
	if err != nil {
		t.Fatalf("Tokens: %v", err)
	}
	if _, err := q.Tokens(ctx); err != nil {
		t.Fatalf("Tokens again: %v", err)
	}
	kindOf := hs.ErrorKind
	now := time.Now().UTC().Truncate(time.Second)
	tok := func(user hs.UserID, id string, created time.Time) hs.Token {
		return hs.Token{ID: id, User: user, Name: "n " + id, Scope: hs.TokenScope, Created: created, Expires: created.Add(time.Hour)}
	}

	if got, err := s.List(ctx, "alice"); err != nil || len(got) != 0 {
		t.Fatalf("List of an empty bucket = %v, %v; want none", got, err)
	}
	// A user id that needs encoding (dots, @, spaces) and one that is a
	// prefix of another must not see each other's tokens.
	users := []hs.UserID{"alice", "alice.b@example.com", "al", "Bob Builder"}
	for i, u := range users {
		for j, id := range []string{"t2", "t1"} {
			if err := s.Create(ctx, tok(u, id, now.Add(time.Duration(i*10+(1-j))*time.Second))); err != nil {
				t.Fatalf("Create %s/%s: %v", u, id, err)
			}
		}
	}
	if err := s.Create(ctx, tok("alice", "t1", now)); kindOf(err) != hs.ECONFLICT {
		t.Errorf("Create of an existing id = %v, want ECONFLICT", err)
	}
	for _, u := range users {
		got, err := s.List(ctx, u)
		if err != nil {
			t.Fatalf("List %s: %v", u, err)
		}
		if len(got) != 2 || got[0].ID != "t1" || got[1].ID != "t2" || got[0].User != u || got[1].User != u {
			t.Errorf("List %q = %+v, want its t1 then t2 (oldest first)", u, got)
		}
	}

	got, err := s.Get(ctx, "alice", "t1")
	if err != nil || got.Name != "n t1" || got.Scope != hs.TokenScope || !got.Created.Equal(now) {
		t.Errorf("Get = %+v, %v", got, err)
	}
	got.Revoked, got.RevokedAt = true, now
	if err := s.Put(ctx, got); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if again, err := s.Get(ctx, "alice", "t1"); err != nil || !again.Revoked || !again.RevokedAt.Equal(now) {
		t.Errorf("Get after Put = %+v, %v; want revoked", again, err)
	}
	if _, err := s.Get(ctx, "bob", "t1"); kindOf(err) != hs.ENOTFOUND {
		t.Errorf("Get of another user's id = %v, want ENOTFOUND", err)
	}
	if err := s.Delete(ctx, "alice", "t1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := s.Delete(ctx, "alice", "t1"); err != nil {
		t.Errorf("Delete again: %v", err)
	}
	if _, err := s.Get(ctx, "alice", "t1"); kindOf(err) != hs.ENOTFOUND {
		t.Errorf("Get after Delete = %v, want ENOTFOUND", err)
	}
	if got, _ := s.List(ctx, "alice"); len(got) != 1 || got[0].ID != "t2" {
		t.Errorf("List after Delete = %+v, want t2 only", got)
	}

	bad := []struct {
		name string
		err  error
		want string
	}{
		{"create with empty user", s.Create(ctx, tok("", "x", now)), hs.EINVALID},
		{"create with a dotted id", s.Create(ctx, tok("alice", "a.b", now)), hs.EINVALID},
		{"create with a wildcard id", s.Create(ctx, tok("alice", "*", now)), hs.EINVALID},
		{"put with empty id", s.Put(ctx, tok("alice", "", now)), hs.EINVALID},
		{"delete with empty user", s.Delete(ctx, "", "t2"), hs.EINVALID},
		{"get of a malformed id", func() error { _, err := s.Get(ctx, "alice", "a>b"); return err }(), hs.ENOTFOUND},
		{"list of the empty user", func() error { _, err := s.List(ctx, ""); return err }(), hs.EINVALID},
	}
	for _, tt := range bad {
		if got := kindOf(tt.err); got != tt.want {
			t.Errorf("%s: %v (kind %q), want %q", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestTokenStoreUnavailable(t *testing.T) {
	t.Parallel()
	q, srv, _ := mustOpen(t, Options{})
	s, err := q.Tokens(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	srv.Shutdown()
	ctx, cancel := contextWithTimeout(t, time.Second)
	defer cancel()
	if _, err := s.Get(ctx, "alice", "t1"); hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Errorf("Get with NATS down: %v, want EUNAVAILABLE", err)
	}
	if _, err := q.Tokens(ctx); hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Errorf("Tokens with NATS down: %v, want EUNAVAILABLE", err)
	}
}

// TestForgetUsers: the users with token records or share lists are
// listed, and forgetting one deletes only theirs.
func TestForgetUsers(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	ctx := t.Context()
	toks, err := q.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := q.ShareLists(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := toks.Users(ctx); err != nil || len(u) != 0 {
		t.Fatalf("token users of an empty bucket = %v, %v", u, err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	for _, u := range []hs.UserID{"bob", "bob.b@example.com", "alice"} {
		for _, id := range []string{"t1", "g1"} {
			if err := toks.Create(ctx, hs.Token{ID: id, User: u, Scope: hs.TokenScope, Created: now, Expires: now.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := lists.Put(ctx, u, []hs.Share{{ID: "1", FileID: 5, Path: "/x"}}); err != nil {
			t.Fatal(err)
		}
	}
	want := []hs.UserID{"alice", "bob", "bob.b@example.com"}
	for name, users := range map[string]func() ([]hs.UserID, error){
		"tokens": func() ([]hs.UserID, error) { return toks.Users(ctx) },
		"shares": func() ([]hs.UserID, error) { return lists.Users(ctx) },
	} {
		if got, err := users(); err != nil || !slices.Equal(got, want) {
			t.Errorf("users with %s = %v, %v; want %v", name, got, err, want)
		}
	}
	if err := toks.Forget(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if err := lists.Forget(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if err := lists.Forget(ctx, "nobody"); err != nil {
		t.Errorf("forgetting a user without a list: %v", err)
	}
	if got, _ := toks.List(ctx, "bob"); len(got) != 0 {
		t.Errorf("bob's tokens after Forget: %+v", got)
	}
	if _, err := lists.Get(ctx, "bob"); hs.ErrorKind(err) != hs.ENOTFOUND {
		t.Errorf("bob's share list after Forget: %v", err)
	}
	want = []hs.UserID{"alice", "bob.b@example.com"}
	if got, _ := toks.Users(ctx); !slices.Equal(got, want) {
		t.Errorf("token users after Forget = %v, want %v", got, want)
	}
	if got, _ := lists.Users(ctx); !slices.Equal(got, want) {
		t.Errorf("share-list users after Forget = %v, want %v", got, want)
	}
}
