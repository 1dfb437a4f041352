package indexing

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// sharesAbove answers SharedAbove from fixed users and folders, counting
// calls.
type sharesAbove struct {
	users   []hs.UserID
	folders []hs.FileID
	calls   atomic.Int64
}

func (s *sharesAbove) SharedAbove(ctx context.Context, user hs.UserID, p string) ([]hs.UserID, []hs.FileID, error) {
	s.calls.Add(1)
	return s.users, s.folders, nil
}

// shareListIndex is a fixed set of kept share lists.
type shareListIndex map[hs.UserID][]hs.Share

func (l shareListIndex) Users(ctx context.Context) ([]hs.UserID, error) {
	var out []hs.UserID
	for u := range l {
		out = append(out, u)
	}
	return out, nil
}

func (l shareListIndex) Get(ctx context.Context, u hs.UserID) ([]hs.Share, error) {
	list, ok := l[u]
	if !ok {
		return nil, hs.Errorf(hs.ENOTFOUND, "no list")
	}
	return list, nil
}

// TestReach: who a new file reaches, named outright or as members of a
// group share (their kept share list holds the folder), without the
// asking user; one look at Nextcloud per folder serves the events that
// arrived before it began, for MaxAge (on synctest's clock).
func TestReach(t *testing.T) { synctest.Test(t, testReach) }

func testReach(t *testing.T) {
	shares := &sharesAbove{users: []hs.UserID{"alice", "bob", "alice"}, folders: []hs.FileID{7}}
	lists := shareListIndex{
		"carol": {{ID: "3", FileID: 7, Path: "/Team", IsDir: true}},
		"dave":  {{ID: "4", FileID: 8, Path: "/Other", IsDir: true}},
		"erin":  {{ID: "5", FileID: 7, Path: "/Team (2)", IsDir: true}},
	}
	r := &Reach{Shares: shares, Lists: lists, MaxAge: 50 * time.Millisecond}
	ctx := t.Context()
	queued := time.Now().Add(-time.Second) // events that waited in the queue
	got, err := r.Recipients(ctx, "alice", "/Team/a.md", queued)
	if want := []hs.UserID{"bob", "carol", "erin"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Recipients = %v, %v; want %v", got, err, want)
	}
	if got, _ := r.Recipients(ctx, "alice", "/Team/b.md", queued); len(got) != 3 || shares.calls.Load() != 1 {
		t.Errorf("a second queued file of the folder: %v after %d calls, want the same answer from one call", got, shares.calls.Load())
	}
	if _, _ = r.Recipients(ctx, "alice", "/Team/Sub/c.md", queued); shares.calls.Load() != 2 {
		t.Errorf("another folder: %d calls, want 2", shares.calls.Load())
	}
	time.Sleep(60 * time.Millisecond) // MaxAge passes
	if _, _ = r.Recipients(ctx, "alice", "/Team/a.md", queued); shares.calls.Load() != 3 {
		t.Errorf("after MaxAge: %d calls, want 3", shares.calls.Load())
	}
	// Without share lists, only the users Nextcloud names.
	r = &Reach{Shares: shares}
	if got, _ := r.Recipients(ctx, "bob", "/Team/a.md", time.Time{}); !slices.Equal(got, []hs.UserID{"alice"}) {
		t.Errorf("Recipients without lists = %v, want alice", got)
	}
}

// TestReachSeesShareBeforeEvent: a folder shared after one file's event
// was answered, and before the next file's, reaches that next file:
// answers serve only events that arrived before they were asked for.
func TestReachSeesShareBeforeEvent(t *testing.T) {
	shares := &sharesAbove{}
	r := &Reach{Shares: shares}
	ctx := t.Context()
	got, err := r.Recipients(ctx, "alice", "/Team/a.md", time.Now())
	if err != nil || len(got) != 0 {
		t.Fatalf("before the share: %v, %v", got, err)
	}
	shares.users = []hs.UserID{"alice", "bob"} // alice shares /Team with bob
	uploaded := time.Now()                     // then uploads new.md
	got, err = r.Recipients(ctx, "alice", "/Team/new.md", uploaded)
	if err != nil || !slices.Equal(got, []hs.UserID{"bob"}) {
		t.Errorf("the file uploaded after the share reaches %v, %v; want bob", got, err)
	}
	if n := shares.calls.Load(); n != 2 || r.Looks() != 2 {
		t.Errorf("%d calls, %d looks; want 2 (one per event)", n, r.Looks())
	}
}

// TestReachOneLookForConcurrentEvents: events of one folder processed
// while a look that began after they arrived is under way wait for it,
// instead of asking Nextcloud again.
func TestReachOneLookForConcurrentEvents(t *testing.T) {
	synctest.Test(t, testReachOneLookForConcurrentEvents)
}

func testReachOneLookForConcurrentEvents(t *testing.T) {
	release := make(chan struct{})
	shares := &slowShares{sharesAbove: sharesAbove{users: []hs.UserID{"bob"}}, release: release}
	r := &Reach{Shares: shares}
	ctx := t.Context()
	arrived := time.Now().Add(-time.Second)
	var wg sync.WaitGroup
	results := make([][]hs.UserID, 20)
	for i := range results {
		wg.Go(func() { results[i], _ = r.Recipients(ctx, "alice", "/Team/f"+strconv.Itoa(i)+".md", arrived) })
	}
	synctest.Wait() // every event is in: one asks, the others wait for it
	close(release)
	wg.Wait()
	for i, got := range results {
		if !slices.Equal(got, []hs.UserID{"bob"}) {
			t.Errorf("event %d reaches %v", i, got)
		}
	}
	if n := shares.calls.Load(); n != 1 {
		t.Errorf("%d calls to Nextcloud for 20 queued events of one folder, want 1", n)
	}
}

// slowShares answers once release is closed.
type slowShares struct {
	sharesAbove
	release chan struct{}
}

func (s *slowShares) SharedAbove(ctx context.Context, user hs.UserID, p string) ([]hs.UserID, []hs.FileID, error) {
	<-s.release
	return s.sharesAbove.SharedAbove(ctx, user, p)
}
