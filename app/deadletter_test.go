package app

import (
	"slices"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
	"github.com/hybrid-search/hybridsearch/queue"
)

// TestDeadLetterLeavesSharedFileIndexed: bob's job on alice's shared file
// fails for good right after bob is deleted (Nextcloud refuses calls as
// him while the user list still vouches for him, so it is retried until
// it is a dead letter). Alice's file stays indexed, and the scan that
// finds bob gone takes him off it, in the state and in the index (the
// flake of TestDeletedUserLosesAccess, made certain).
func TestDeadLetterLeavesSharedFileIndexed(t *testing.T) {
	t.Parallel()
	clock := &listClock{}
	env := newTestEnv(t, envOptions{install: true, setup: func(sim *ncsim.Server) {
		sim.SeedFile("alice", "/Team/plan.md", []byte("Alice's okapi plan, shared with bob."))
	}, adjust: func(c *Config) { c.UserListClock = clock.Now }})
	ctx := t.Context()
	env.Sim.Share("alice", "/Team/plan.md", "bob")
	if err := env.Main.Scanner.ScanAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	plan := env.mustStat(t, "alice", "/Team/plan.md")
	readers := func(want ...hs.UserID) func(ix indexed) bool {
		return func(ix indexed) bool {
			return len(ix.points) > 0 && ix.state.Status == hs.StatusIndexed && slices.Equal(ix.state.Readers, want) &&
				slices.Equal(ix.points[0].File.Readers, want)
		}
	}
	env.awaitFile(t, "alice's shared file indexed for both", plan.ID, readers("alice", "bob"))

	// The user list is fresh: it vouches for bob for userListMaxAge.
	if ok, err := env.Main.users.UserExists(ctx, "bob"); err != nil || !ok {
		t.Fatalf("bob exists: %v, %v", ok, err)
	}
	env.Sim.DeleteUser("bob")
	deleted := time.Now()
	if err := env.Main.Queue.Publish(ctx, hs.IndexJob{FileID: hs.FileID(plan.ID), User: "bob", Reason: hs.ReasonScan, Time: deleted}); err != nil {
		t.Fatal(err)
	}
	await(t, "bob's job a dead letter", userListMaxAge, func() bool {
		dead, _ := env.Main.Queue.DeadLetters(ctx)
		return slices.ContainsFunc(dead, func(d queue.DeadLetter) bool { return d.Job.FileID == hs.FileID(plan.ID) && d.Job.User == "bob" })
	})
	if ix := env.lookup(t, plan.ID); ix.state.Status != hs.StatusIndexed {
		t.Errorf("alice's file after bob's dead letter: %s (%s), want indexed", ix.state.Status, ix.state.Error)
	}

	// Once the list no longer vouches for him, a full scan forgets him.
	clock.Advance(userListMaxAge)
	if err := env.Main.Scanner.ScanAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	env.awaitFile(t, "bob off alice's shared file", plan.ID, readers("alice"))
}

// listClock runs at real speed plus whatever Advance added: the user
// list's age passes at once when a test says so.
type listClock struct {
	mu    sync.Mutex
	extra time.Duration
}

// Now is the real time plus what Advance added.
func (c *listClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.extra)
}

// Advance moves the clock forward by d.
func (c *listClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.extra += d
}
