package search_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// verifyEnv is a Service over verifyDocs with a fake Nextcloud and a
// recording requeue.
type verifyEnv struct {
	svc    *search.Service
	access *fakeAccess
	mu     sync.Mutex
	queued []hs.IndexJob
	failQ  error
}

func newVerifyEnv(t *testing.T, change ...func(*search.Options)) *verifyEnv {
	st := openLocal(t)
	mustIndex(t, st, verifyDocs()...)
	env := &verifyEnv{access: &fakeAccess{}}
	env.svc = mustService(t, st, append([]func(*search.Options){func(o *search.Options) {
		o.Access = env.access
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
	lost := []hs.FileID{before[0], before[2]}
	for _, id := range lost {
		env.access.set("alice", id, hs.Errorf(hs.ENOTFOUND, "gone"))
	}
	calls := env.access.callCount()
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
	if n := env.access.callCount() - calls; n != 2 {
		t.Errorf("%d requests to Nextcloud, want 2 (the page, then its refill)", n)
	}
	if q := env.queuedIDs(); !slices.Equal(q, lost) {
		t.Errorf("queued %v, want %v", q, lost)
	}
	// Paths come from Nextcloud, as the user sees them.
	if p := res.Results[0].Path; p != fmt.Sprintf("/as-alice/%d", got[0]) {
		t.Errorf("path %q, want the one Nextcloud returned", p)
	}
}

// TestVerifyEverySearch: every search asks Nextcloud once per page, and
// nothing is remembered between searches: an unshare is gone from the
// next search, a re-share back in it.
func TestVerifyEverySearch(t *testing.T) {
	env := newVerifyEnv(t)
	first := ids(mustSearch(t, env.svc, "alice", pumpQuery))
	if n := env.access.callCount(); n != 1 {
		t.Errorf("first search made %d requests, want 1 for the page", n)
	}
	env.access.set("alice", first[0], hs.Errorf(hs.ENOTFOUND, "unshared"))
	if got := ids(mustSearch(t, env.svc, "alice", pumpQuery)); slices.Contains(got, first[0]) {
		t.Errorf("the search right after the unshare still lists %d: %v", first[0], got)
	}
	env.access.set("alice", first[0], nil)
	if got := ids(mustSearch(t, env.svc, "alice", pumpQuery)); !slices.Contains(got, first[0]) {
		t.Errorf("the search right after the re-share lacks %d: %v", first[0], got)
	}
	if n := env.access.callCount(); n != 4 {
		t.Errorf("%d requests for three searches, want 4 (one refill after the unshare)", n)
	}
}

// TestVerifyFailsOpenForReaders: when Nextcloud does not answer, a page
// keeps only what the index lists the user as a reader of with a path of
// theirs, and shows that path.
func TestVerifyFailsOpenForReaders(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st,
		doc{ID: 1, Path: "/Plant/Pump 01.md", Text: "Pump maintenance log 1."},
		doc{ID: 2, Path: "/Secret/HR-X/Pump review.md", Readers: []hs.UserID{"alice", "bob"},
			Paths: map[hs.UserID]string{"alice": "/Secret/HR-X/Pump review.md", "bob": "/Pump review.md"}, Text: "Pump maintenance review."},
		doc{ID: 3, Path: "/Shared/Pump 03.md", Readers: []hs.UserID{"alice", "bob"}, Paths: map[hs.UserID]string{"alice": "/Shared/Pump 03.md"},
			Text: "Pump maintenance log 3, path of bob not indexed."},
	)
	access := &fakeAccess{}
	access.set("bob", 2, hs.Errorf(hs.EUNAVAILABLE, "nextcloud: 503"))
	svc := mustService(t, st, func(o *search.Options) { o.Access = access })
	res := mustSearch(t, svc, "bob", pumpQuery)
	if got := ids(res); !slices.Equal(got, []hs.FileID{2}) {
		t.Fatalf("bob's page while Nextcloud is down = %v, want only 2 (3 has no path of his)", got)
	}
	if p := res.Results[0].Path; p != "/Pump review.md" {
		t.Errorf("unverified path %q, want bob's own /Pump review.md", p)
	}
	if v := res.Verification; !slices.Equal(v.Unverified, []hs.FileID{2}) || v.Checked != 0 || v.Dropped != 1 {
		t.Errorf("verification %+v, want 2 unverified, 3 dropped", v)
	}
	if strings.Contains(fmt.Sprint(res), "Secret") {
		t.Errorf("bob's answer names alice's folder: %+v", res)
	}
	// Transient failures queue nothing.
	access.set("alice", 1, errors.New("connection reset"))
	if res := mustSearch(t, svc, "alice", pumpQuery); len(res.Verification.Unverified) != 3 {
		t.Errorf("alice's verification %+v, want 3 unverified", res.Verification)
	}
}

func TestVerifyRefused(t *testing.T) {
	env := newVerifyEnv(t)
	first := ids(mustSearch(t, env.svc, "alice", pumpQuery))
	env.access.set("alice", first[0], hs.Errorf(hs.EUNAUTHORIZED, "nextcloud: 401"))
	res := mustSearch(t, env.svc, "alice", pumpQuery)
	for _, id := range first {
		if slices.Contains(ids(res), id) {
			t.Errorf("file %d of the refused check kept: %v", id, ids(res))
		}
	}
	if v := res.Verification; v.Dropped != 5 || v.Checked != 5 || len(res.Results) != 5 {
		t.Errorf("verification %+v with %d results, want the refused page dropped and refilled", v, len(res.Results))
	}
	if q := env.queuedIDs(); len(q) != 0 {
		t.Errorf("refused check queued %v", q)
	}
}

// TestVerifyMovedOutOfFolder: a file indexed under the requested folder
// that Nextcloud now shows elsewhere is left out of that folder's page.
func TestVerifyMovedOutOfFolder(t *testing.T) {
	env := newVerifyEnv(t)
	req := hs.SearchRequest{Query: "pump maintenance", TopK: 5, Filter: hs.Filter{PathPrefix: "/Plant"}}
	if got := ids(mustSearch(t, env.svc, "alice", req)); len(got) != 0 {
		t.Errorf("files Nextcloud shows under /as-alice listed for /Plant: %v", got)
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

func (b *blockingAccess) FindByIDs(ctx context.Context, user hs.UserID, ids []hs.FileID) (map[hs.FileID]hs.FileInfo, error) {
	b.cancel()
	<-ctx.Done()
	return nil, hs.Errorf(hs.EUNAVAILABLE, "nextcloud: %w", ctx.Err())
}

func openLocalWith(t *testing.T, docs ...doc) testStore {
	st := openLocal(t)
	mustIndex(t, st, docs...)
	return st
}
