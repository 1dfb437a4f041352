package tokens_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/tokens"
)

// nextcloudUsers is a settable tokens.UserChecker: the users that exist,
// or down to fail every call as an unreachable Nextcloud does.
type nextcloudUsers struct {
	mu    sync.Mutex
	users map[hs.UserID]bool
	down  bool
	calls int
}

func (n *nextcloudUsers) UserExists(ctx context.Context, u hs.UserID) (bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.calls++
	if n.down {
		return false, hs.WrapError(hs.EUNAVAILABLE, errors.New("dial tcp: connection refused"), "nextcloud: unreachable")
	}
	return n.users[u], nil
}

func (n *nextcloudUsers) set(f func(n *nextcloudUsers)) { n.mu.Lock(); f(n); n.mu.Unlock() }

// TestDeletedUsersTokens: tokens and OAuth grants of a user Nextcloud no
// longer has stop verifying; while Nextcloud cannot be asked, a user it
// confirmed within the grace keeps access and anyone else gets
// EUNAVAILABLE, never access on a guess.
func TestDeletedUsersTokens(t *testing.T) {
	nc := &nextcloudUsers{users: map[hs.UserID]bool{"alice": true, "bob": true}}
	c := newClock()
	s := mustNew(t, tokens.Options{Secret: secret, Audience: audience, Issuer: issuer, Store: newMemStore(),
		Users: nc, UserGrace: time.Minute, Now: c.Now, Logger: quiet()})
	ctx := t.Context()
	aliceTok, _, err := s.Issue(ctx, "alice", "laptop", 0)
	if err != nil {
		t.Fatal(err)
	}
	bobTok, _, err := s.Issue(ctx, "bob", "laptop", 0)
	if err != nil {
		t.Fatal(err)
	}
	grant, err := s.Grant(ctx, "bob", "Claude", "client-1", audience)
	if err != nil {
		t.Fatal(err)
	}
	bobAccess, _, err := s.AccessToken(grant, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{aliceTok, bobTok, bobAccess} {
		if _, _, err := s.Verify(ctx, raw); err != nil {
			t.Fatalf("Verify before any deletion: %v", err)
		}
	}

	nc.set(func(n *nextcloudUsers) { delete(n.users, "bob") })
	for name, raw := range map[string]string{"app token": bobTok, "OAuth access token": bobAccess} {
		if _, _, err := s.Verify(ctx, raw); kind(err) != hs.EUNAUTHORIZED || !strings.Contains(hs.ErrorMessage(err), "no longer exists") {
			t.Errorf("bob's %s after his deletion: %v, want EUNAUTHORIZED naming the reason", name, err)
		}
	}
	if _, err := s.Get(ctx, "bob", grant.ID); kind(err) != hs.ENOTFOUND {
		t.Errorf("Get of bob's grant (an OAuth refresh) after his deletion: %v, want ENOTFOUND", err)
	}
	if _, _, err := s.Verify(ctx, aliceTok); err != nil {
		t.Errorf("alice's token after bob's deletion: %v", err)
	}

	// Nextcloud down: alice, confirmed a moment ago, keeps access for the
	// grace; bob, whom it never confirmed since, does not.
	nc.set(func(n *nextcloudUsers) { n.down = true; n.users["bob"] = true })
	c.Add(30 * time.Second)
	if _, _, err := s.Verify(ctx, aliceTok); err != nil {
		t.Errorf("alice within the grace, Nextcloud down: %v", err)
	}
	if _, _, err := s.Verify(ctx, bobTok); kind(err) != hs.EUNAVAILABLE || strings.Contains(hs.ErrorMessage(err), "refused") {
		t.Errorf("bob, Nextcloud down, not confirmed since: %v, want EUNAVAILABLE without internals", err)
	}
	c.Add(31 * time.Second)
	if _, _, err := s.Verify(ctx, aliceTok); kind(err) != hs.EUNAVAILABLE {
		t.Errorf("alice past the grace, Nextcloud down: %v, want EUNAVAILABLE", err)
	}
	if _, err := s.Get(ctx, "bob", grant.ID); kind(err) != hs.EUNAVAILABLE {
		t.Errorf("Get with Nextcloud down: %v, want EUNAVAILABLE", err)
	}
	nc.set(func(n *nextcloudUsers) { n.down = false })
	if _, _, err := s.Verify(ctx, aliceTok); err != nil {
		t.Errorf("alice once Nextcloud is back: %v", err)
	}
	// A bad token is refused before Nextcloud is asked.
	calls := nc.calls
	if _, _, err := s.Verify(ctx, aliceTok+"x"); kind(err) != hs.EUNAUTHORIZED || nc.calls != calls {
		t.Errorf("tampered token: %v, %d calls to Nextcloud", err, nc.calls-calls)
	}
}
