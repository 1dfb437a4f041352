package indexing

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

// scanFakes are the Scanner's dependencies for departed-user tests: no
// files in anyone's tree, the given file states, and records.
type scanFakes struct {
	mu      sync.Mutex
	users   []hs.UserID
	states  []hs.FileState
	jobs    []hs.IndexJob
	gone    map[hs.UserID]error // nil error: gone; absent: still there
	records map[hs.UserID]bool
	forgot  []hs.UserID
}

func (f *scanFakes) Walk(ctx context.Context, user hs.UserID, root string, fn func(hs.FileInfo) error) error {
	return nil
}
func (f *scanFakes) ListUsers(ctx context.Context) ([]hs.UserID, error) { return f.users, nil }
func (f *scanFakes) List(ctx context.Context, fn func(hs.FileState) error) error {
	for _, st := range f.states {
		if err := fn(st); err != nil {
			return err
		}
	}
	return nil
}
func (f *scanFakes) enqueue(ctx context.Context, jobs ...hs.IndexJob) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.jobs = append(f.jobs, jobs...)
	return nil
}
func (f *scanFakes) isGone(ctx context.Context, u hs.UserID) (bool, error) {
	err, ok := f.gone[u]
	return ok && err == nil, err
}
func (f *scanFakes) Users(ctx context.Context) ([]hs.UserID, error) {
	var out []hs.UserID
	for u := range f.records {
		out = append(out, u)
	}
	return out, nil
}
func (f *scanFakes) Forget(ctx context.Context, u hs.UserID) error {
	f.forgot = append(f.forgot, u)
	delete(f.records, u)
	return nil
}

// TestScanForgetsDepartedUsers: a full scan queues the files of readers
// Nextcloud no longer has and has their records forgotten; a user only
// missing from the list (Gone says no) and one Gone cannot tell about
// are left alone, and a scan of some users forgets nobody.
func TestScanForgetsDepartedUsers(t *testing.T) {
	f := &scanFakes{
		users: []hs.UserID{"alice"},
		states: []hs.FileState{
			{ID: 1, Readers: []hs.UserID{"alice", "bob"}},
			{ID: 2, Readers: []hs.UserID{"bob"}},
			{ID: 3, Readers: []hs.UserID{"carol"}},
			{ID: 4, Readers: []hs.UserID{"dave"}},
		},
		gone:    map[hs.UserID]error{"bob": nil, "erin": nil, "dave": errors.New("nextcloud: 503")},
		records: map[hs.UserID]bool{"alice": true, "bob": true, "erin": true},
	}
	s := &Scanner{Tree: f, Users: f, States: f, Enqueue: f.enqueue, Gone: f.isGone, Records: []UserRecords{f}}
	if err := s.ScanUser(t.Context(), "alice"); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(f.jobs, func(j hs.IndexJob) bool { return j.User != "alice" }) || len(f.forgot) != 0 {
		t.Fatalf("a scan of one user forgot %v, queued %v", f.forgot, f.jobs)
	}
	f.jobs = nil
	if err := s.ScanAll(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	var files []hs.FileID
	for _, j := range f.jobs {
		switch {
		case j.User == "alice": // her own scan: she no longer sees file 1
		case j.User != "bob" || j.Reason != hs.ReasonScan:
			t.Errorf("job %+v, want bob's", j)
		default:
			files = append(files, j.FileID)
		}
	}
	slices.Sort(files)
	if !slices.Equal(files, []hs.FileID{1, 2}) {
		t.Errorf("queued bob's files %v, want [1 2]", files)
	}
	slices.Sort(f.forgot)
	if !slices.Equal(f.forgot, []hs.UserID{"bob", "erin"}) {
		t.Errorf("forgot %v, want bob (files and records) and erin (records only)", f.forgot)
	}
	if got := s.Progress().UsersGone; got != 2 {
		t.Errorf("UsersGone = %d, want 2", got)
	}
}
