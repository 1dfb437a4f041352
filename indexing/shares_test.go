package indexing

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// shareWorld is a user's received shares and the index, for a
// ShareRefresher: a queued file is indexed for its user at once.
type shareWorld struct {
	mu     sync.Mutex
	shares []hs.Share
	lists  map[hs.UserID][]hs.Share
	states map[hs.FileID]hs.FileState
	calls  int // SharedWith calls
}

func (w *shareWorld) SharedWith(ctx context.Context, user hs.UserID) ([]hs.Share, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	return slices.Clone(w.shares), nil
}

func (w *shareWorld) Get(ctx context.Context, user hs.UserID) ([]hs.Share, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	l, ok := w.lists[user]
	if !ok {
		return nil, hs.Errorf(hs.ENOTFOUND, "no list")
	}
	return l, nil
}

func (w *shareWorld) Put(ctx context.Context, user hs.UserID, list []hs.Share) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lists[user] = slices.Clone(list)
	return nil
}

func (w *shareWorld) Walk(ctx context.Context, user hs.UserID, root string, fn func(hs.FileInfo) error) error {
	return nil
}

func (w *shareWorld) state(ctx context.Context, id hs.FileID) (hs.FileState, uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, ok := w.states[id]
	if !ok {
		return hs.FileState{}, 0, hs.Errorf(hs.ENOTFOUND, "no state")
	}
	return st, 1, nil
}

func (w *shareWorld) enqueue(ctx context.Context, jobs ...hs.IndexJob) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, j := range jobs {
		w.states[j.FileID] = hs.FileState{ID: j.FileID, Readers: []hs.UserID{j.User}, Status: hs.StatusIndexed}
	}
	return nil
}

type stateFunc func(ctx context.Context, id hs.FileID) (hs.FileState, uint64, error)

func (f stateFunc) Get(ctx context.Context, id hs.FileID) (hs.FileState, uint64, error) {
	return f(ctx, id)
}

// TestNewShareVisibleWithinAMinute: a share made just after bob's shares
// were looked at, while bob searches every 100 ms, is found by a search
// early enough that the wait for its files to be indexed still ends within
// ShareVisibleWithin of the share (the worst case; measured at 60.3 s and
// 60.7 s when lists were looked at only once a minute old).
func TestNewShareVisibleWithinAMinute(t *testing.T) {
	w := &shareWorld{lists: map[hs.UserID][]hs.Share{"bob": {}}, states: map[hs.FileID]hs.FileState{}}
	clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	r := &ShareRefresher{Shares: w, Lists: w, Tree: w, States: stateFunc(w.state), Enqueue: w.enqueue,
		Now: func() time.Time { return clock }}
	ctx := t.Context()
	if err := r.Refresh(ctx, "bob"); err != nil { // bob's search: his list is looked at
		t.Fatal(err)
	}
	clock = clock.Add(time.Millisecond)
	shared := clock
	w.mu.Lock()
	w.shares = []hs.Share{{ID: "1", FileID: 42, Path: "/plan.md"}} // alice shares a file with bob
	w.mu.Unlock()
	var found time.Time
	for clock.Sub(shared) < 2*time.Minute {
		clock = clock.Add(100 * time.Millisecond)
		start := time.Now()
		if err := r.Refresh(ctx, "bob"); err != nil {
			t.Fatal(err)
		}
		if st, _, err := w.state(ctx, 42); err == nil && slices.Contains(st.Readers, "bob") {
			found = clock.Add(time.Since(start))
			break
		}
	}
	if found.IsZero() {
		t.Fatal("the share never showed")
	}
	latest := ShareVisibleWithin - DefaultShareWait
	t.Logf("share found by bob's search %s after it was made (the worst case); up to %s more may go to indexing its files", found.Sub(shared).Round(time.Millisecond), DefaultShareWait)
	if d := found.Sub(shared); d > latest {
		t.Errorf("the share was looked for %s after it was made; with %s for indexing that is past %s", d, DefaultShareWait, ShareVisibleWithin)
	}
	if w.calls != 2 {
		t.Errorf("%d looks at bob's shares, want 2 (one per list age)", w.calls)
	}
}
