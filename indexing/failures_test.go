package indexing_test

import (
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
)

// TestFailuresGaveUp: what a job the queue gave up on means for its
// file's state (the queue's dead-letter tests run the same through NATS).
func TestFailuresGaveUp(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	indexed := hs.FileState{ID: 1, Status: hs.StatusIndexed, ETag: "e1", Chunks: 2, Readers: []hs.UserID{"alice", "bob"}}
	tests := []struct {
		name   string
		before *hs.FileState // nil: no state
		cause  error
		want   *hs.FileState // nil: no state
	}{
		{name: "a refused reader leaves an indexed file as is", before: &indexed,
			cause: hs.Errorf(hs.EUNAUTHORIZED, "find file 1 as bob: 401 Unauthorized"), want: &indexed},
		{name: "a broken file is marked failed", before: &indexed,
			cause: hs.Errorf(hs.EINTERNAL, "extract: the PDF is damaged"),
			want: &hs.FileState{ID: 1, Status: hs.StatusFailed, ETag: "e1", Chunks: 2, Readers: []hs.UserID{"alice", "bob"},
				Error: "extract: the PDF is damaged", Attempts: 8, Updated: now}},
		{name: "a refused job on a pending file marks it failed", before: &hs.FileState{ID: 1, Status: hs.StatusPending},
			cause: hs.Errorf(hs.EUNAUTHORIZED, "401"),
			want:  &hs.FileState{ID: 1, Status: hs.StatusFailed, Error: "401", Attempts: 8, Updated: now}},
		{name: "a file with no state is left alone", cause: hs.Errorf(hs.EUNAVAILABLE, "ollama down")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			states := newStates()
			if tt.before != nil {
				if err := states.Put(t.Context(), *tt.before); err != nil {
					t.Fatal(err)
				}
			}
			f := &indexing.Failures{States: states, Now: func() time.Time { return now }}
			f.GaveUp(t.Context(), hs.IndexJob{FileID: 1, User: "bob"}, tt.cause, 8)
			got, ok := states.get(1)
			switch {
			case tt.want == nil && ok:
				t.Errorf("state = %+v, want none", got)
			case tt.want != nil && (!ok || got.Status != tt.want.Status || got.Error != tt.want.Error || got.Attempts != tt.want.Attempts ||
				!got.Updated.Equal(tt.want.Updated) || got.Chunks != tt.want.Chunks || len(got.Readers) != len(tt.want.Readers)):
				t.Errorf("state = %+v, want %+v", got, *tt.want)
			}
		})
	}
}
