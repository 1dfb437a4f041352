package indexing

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
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
// asking user; one call to Nextcloud per folder for MaxAge.
func TestReach(t *testing.T) {
	shares := &sharesAbove{users: []hs.UserID{"alice", "bob", "alice"}, folders: []hs.FileID{7}}
	lists := shareListIndex{
		"carol": {{ID: "3", FileID: 7, Path: "/Team", IsDir: true}},
		"dave":  {{ID: "4", FileID: 8, Path: "/Other", IsDir: true}},
		"erin":  {{ID: "5", FileID: 7, Path: "/Team (2)", IsDir: true}},
	}
	r := &Reach{Shares: shares, Lists: lists, MaxAge: 50 * time.Millisecond}
	ctx := t.Context()
	got, err := r.Recipients(ctx, "alice", "/Team/a.md")
	if want := []hs.UserID{"bob", "carol", "erin"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Recipients = %v, %v; want %v", got, err, want)
	}
	if got, _ := r.Recipients(ctx, "alice", "/Team/b.md"); len(got) != 3 || shares.calls.Load() != 1 {
		t.Errorf("a second file of the folder: %v after %d calls, want the same answer from one call", got, shares.calls.Load())
	}
	if _, _ = r.Recipients(ctx, "alice", "/Team/Sub/c.md"); shares.calls.Load() != 2 {
		t.Errorf("another folder: %d calls, want 2", shares.calls.Load())
	}
	time.Sleep(60 * time.Millisecond)
	if _, _ = r.Recipients(ctx, "alice", "/Team/a.md"); shares.calls.Load() != 3 {
		t.Errorf("after MaxAge: %d calls, want 3", shares.calls.Load())
	}
	// Without share lists, only the users Nextcloud names.
	r = &Reach{Shares: shares}
	if got, _ := r.Recipients(ctx, "bob", "/Team/a.md"); !slices.Equal(got, []hs.UserID{"alice"}) {
		t.Errorf("Recipients without lists = %v, want alice", got)
	}
}
