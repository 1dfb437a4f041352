package search_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/search"
)

// verifyDocs are twelve documents that all match "pump maintenance",
// read by alice; 7 is also read by bob.
func verifyDocs() []doc {
	var docs []doc
	for i := 1; i <= 12; i++ {
		d := doc{ID: hs.FileID(i), Path: fmt.Sprintf("/Plant/Pump %02d.md", i), Text: fmt.Sprintf("# Pump %d\n\nPump maintenance log %d: bearings greased, seals checked.", i, i)}
		if i == 7 {
			d.Readers = []hs.UserID{"alice", "bob"}
		}
		docs = append(docs, d)
	}
	return docs
}

// verifyEnv is a Service over verifyDocs with a fake Nextcloud, a clock
// and a recording requeue.
type verifyEnv struct {
	svc    *search.Service
	access *fakeAccess
	clock  *fakeClock
	mu     sync.Mutex
	queued []hs.IndexJob
	failQ  error
}

func newVerifyEnv(t *testing.T, change ...func(*search.Options)) *verifyEnv {
	st := openLocal(t)
	mustIndex(t, st, verifyDocs()...)
	env := &verifyEnv{access: &fakeAccess{}, clock: &fakeClock{t: baseTime}}
	env.svc = mustService(t, st, append([]func(*search.Options){func(o *search.Options) {
		o.Access, o.Now = env.access, env.clock.now
		o.Requeue = func(_ context.Context, jobs ...hs.IndexJob) error {
			env.mu.Lock()
			defer env.mu.Unlock()
			env.queued = append(env.queued, jobs...)
			return env.failQ
		}
	}}, change...)...)
	return env
}

func (e *verifyEnv) queuedIDs() []hs.FileID {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []hs.FileID
	for _, j := range e.queued {
		out = append(out, j.FileID)
	}
	return out
}

var pumpQuery = hs.SearchRequest{Query: "pump maintenance", TopK: 5}

func TestVerifyRefillsThePage(t *testing.T) {
	env := newVerifyEnv(t)
	before := ids(mustSearch(t, env.svc, "alice", pumpQuery))
	env.clock.advance(search.DefaultAccessCacheTTL)
	lost := []hs.FileID{before[0], before[2]}
	for _, id := range lost {
		env.access.set("alice", id, hs.Errorf(hs.ENOTFOUND, "gone"))
	}
	res := mustSearch(t, env.svc, "alice", pumpQuery)
	got := ids(res)
	if len(got) != 5 {
		t.Fatalf("page of %d after dropping 2, want 5 (refilled): %v", len(got), got)
	}
	for _, id := range lost {
		if slices.Contains(got, id) {
			t.Errorf("lost file %d still listed", id)
		}
	}
	if want := []hs.FileID{before[1], before[3], before[4]}; !slices.Equal(got[:3], want) {
		t.Errorf("page %v, want the survivors %v first, in order", got, want)
	}
	if v := res.Verification; v.Dropped != 2 || v.Checked != 7 || len(v.Unverified) != 0 {
		t.Errorf("verification %+v, want 7 checked, 2 dropped", v)
	}
	if q := env.queuedIDs(); !slices.Equal(q, lost) {
		t.Errorf("queued %v, want %v", q, lost)
	}
	// Paths come from Nextcloud, as the user sees them.
	if p := res.Results[0].Path; p != fmt.Sprintf("/as-alice/%d", got[0]) {
		t.Errorf("path %q, want the one FindByID returned", p)
	}
}

func TestVerifyCache(t *testing.T) {
	env := newVerifyEnv(t)
	mustSearch(t, env.svc, "alice", pumpQuery)
	calls := env.access.callCount()
	if calls != 5 {
		t.Errorf("first search made %d checks, want 5", calls)
	}
	env.access.set("alice", 1, hs.Errorf(hs.ENOTFOUND, "gone"))
	env.clock.advance(search.DefaultAccessCacheTTL / 2)
	res := mustSearch(t, env.svc, "alice", pumpQuery)
	if env.access.callCount() != calls {
		t.Errorf("a search within the TTL asked Nextcloud again (%d checks)", env.access.callCount()-calls)
	}
	if res.Verification.Checked != 5 {
		t.Errorf("cached checks count as checked: %+v", res.Verification)
	}
	mustSearch(t, env.svc, "bob", pumpQuery) // other users are not served from alice's answers
	if got := env.access.callCount() - calls; got != 1 {
		t.Errorf("bob's search made %d checks, want 1", got)
	}
	env.clock.advance(search.DefaultAccessCacheTTL / 2)
	mustSearch(t, env.svc, "alice", pumpQuery)
	if env.access.callCount() == calls+1 {
		t.Error("expired answers were reused")
	}
}

func TestVerifyCacheOff(t *testing.T) {
	env := newVerifyEnv(t, func(o *search.Options) { o.AccessCacheTTL = -1 })
	mustSearch(t, env.svc, "alice", pumpQuery)
	mustSearch(t, env.svc, "alice", pumpQuery)
	if got := env.access.callCount(); got != 10 {
		t.Errorf("%d checks for two searches without a cache, want 10", got)
	}
}

func TestVerifyFailsOpenForReaders(t *testing.T) {
	env := newVerifyEnv(t)
	first := ids(mustSearch(t, env.svc, "alice", pumpQuery))
	env.clock.advance(search.DefaultAccessCacheTTL)
	env.access.set("alice", first[1], hs.Errorf(hs.EUNAVAILABLE, "nextcloud: 503"))
	env.access.set("alice", first[3], errors.New("connection reset"))
	res := mustSearch(t, env.svc, "alice", pumpQuery)
	if got := ids(res); !slices.Equal(got, first) {
		t.Errorf("page %v, want %v kept", got, first)
	}
	want := []hs.FileID{first[1], first[3]}
	if v := res.Verification; !slices.Equal(v.Unverified, want) || v.Checked != 3 || v.Dropped != 0 {
		t.Errorf("verification %+v, want %v unverified", v, want)
	}
	// Unknown answers are not cached: the next search asks again.
	calls := env.access.callCount()
	mustSearch(t, env.svc, "alice", pumpQuery)
	if got := env.access.callCount() - calls; got != 2 {
		t.Errorf("%d checks after failures, want 2 (the failed ones again)", got)
	}
	if q := env.queuedIDs(); len(q) != 0 {
		t.Errorf("transient failures queued %v", q)
	}
}

func TestVerifyRefused(t *testing.T) {
	env := newVerifyEnv(t)
	first := ids(mustSearch(t, env.svc, "alice", pumpQuery))
	env.clock.advance(search.DefaultAccessCacheTTL)
	env.access.set("alice", first[0], hs.Errorf(hs.EUNAUTHORIZED, "nextcloud: 401"))
	res := mustSearch(t, env.svc, "alice", pumpQuery)
	if slices.Contains(ids(res), first[0]) || res.Verification.Dropped != 1 {
		t.Errorf("refused check kept the file: %v %+v", ids(res), res.Verification)
	}
	if q := env.queuedIDs(); len(q) != 0 {
		t.Errorf("refused check queued %v", q)
	}
}

func TestVerifyRequeueFailureIsNotFatal(t *testing.T) {
	env := newVerifyEnv(t)
	env.failQ = hs.Errorf(hs.EUNAVAILABLE, "queue: nats down")
	env.access.set("alice", 1, hs.Errorf(hs.ENOTFOUND, "gone"))
	res := mustSearch(t, env.svc, "alice", hs.SearchRequest{Query: "pump 1 maintenance"})
	if slices.Contains(ids(res), 1) || len(res.Results) == 0 {
		t.Errorf("results %v", ids(res))
	}
}

func TestVerifyEverythingLost(t *testing.T) {
	env := newVerifyEnv(t)
	for i := 1; i <= 12; i++ {
		env.access.set("alice", hs.FileID(i), hs.Errorf(hs.ENOTFOUND, "gone"))
	}
	res := mustSearch(t, env.svc, "alice", pumpQuery)
	if len(res.Results) != 0 || res.Verification.Dropped != 12 {
		t.Errorf("results %v verification %+v, want none and 12 dropped", ids(res), res.Verification)
	}
	if res.Results == nil {
		t.Error("Results is nil; want an empty list so JSON shows []")
	}
}

func TestVerifyCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	blocking := &blockingAccess{cancel: cancel}
	svc := mustService(t, openLocalWith(t, verifyDocs()...), func(o *search.Options) { o.Access = blocking })
	if _, err := svc.Search(ctx, "alice", pumpQuery); !errors.Is(err, context.Canceled) {
		t.Errorf("Search cancelled during verification = %v, want context.Canceled", err)
	}
}

// blockingAccess cancels the search on the first check and answers
// after the context ends.
type blockingAccess struct {
	cancel context.CancelFunc
}

func (b *blockingAccess) FindByID(ctx context.Context, user hs.UserID, id hs.FileID) (hs.FileInfo, error) {
	b.cancel()
	<-ctx.Done()
	return hs.FileInfo{}, hs.Errorf(hs.EUNAVAILABLE, "nextcloud: %w", ctx.Err())
}

func openLocalWith(t *testing.T, docs ...doc) testStore {
	st := openLocal(t)
	mustIndex(t, st, docs...)
	return st
}
