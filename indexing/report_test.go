package indexing_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
)

// partialState is an indexed file with one chunk that has no vector.
func partialState() hs.FileState {
	return hs.FileState{ID: 7, Readers: []hs.UserID{"alice"}, Paths: map[hs.UserID]string{"alice": "/long.md"},
		Status: hs.StatusIndexed, Chunks: 3, NoVectors: 1, Attempts: 6, Index: "test",
		Error: "1 of 3 chunks have no vector, so search by meaning misses them (keyword and fuzzy search find them): the input length exceeds the context length"}
}

func TestSummarizeListsPartialFiles(t *testing.T) {
	s := newStates()
	s.Put(context.Background(), partialState())
	s.Put(context.Background(), hs.FileState{ID: 8, Readers: []hs.UserID{"alice"}, Paths: map[hs.UserID]string{"alice": "/fine.md"}, Status: hs.StatusIndexed, Chunks: 2})
	sum, err := indexing.Summarize(t.Context(), s, "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files.Indexed != 2 || sum.Files.Chunks != 5 {
		t.Errorf("counts = %+v, want both files indexed (the partial one is searchable by keyword)", sum.Files)
	}
	if len(sum.Problems) != 1 {
		t.Fatalf("problems = %+v, want the partial file", sum.Problems)
	}
	p := sum.Problems[0]
	if p.FileID != 7 || p.Path != "/long.md" || p.Status != hs.ProblemPartial || !strings.Contains(p.Error, "exceeds the context length") {
		t.Errorf("problem = %+v", p)
	}
}

func TestRetryQueuesPartialFiles(t *testing.T) {
	s := newStates()
	s.Put(context.Background(), partialState())
	s.Put(context.Background(), hs.FileState{ID: 8, Readers: []hs.UserID{"alice"}, Paths: map[hs.UserID]string{"alice": "/fine.md"}, Status: hs.StatusIndexed})
	s.Put(context.Background(), hs.FileState{ID: 9, Readers: []hs.UserID{"alice"}, Paths: map[hs.UserID]string{"alice": "/bad.pdf"}, Status: hs.StatusFailed})
	q := &queue{}
	c := &indexing.Control{States: s, Enqueue: q.enqueue}
	n, err := c.Retry(t.Context(), "alice", false)
	if err != nil || n != 2 {
		t.Fatalf("Retry() = %d, %v; want 2", n, err)
	}
	for _, j := range q.jobs {
		if j.Reason != hs.ReasonRetry || (j.FileID != 7 && j.FileID != 9) {
			t.Errorf("job %+v", j)
		}
	}
}

func TestStatusPausedWhileNoEmbedderAnswers(t *testing.T) {
	hostsUp := []hs.HostHealth{{Host: "http://gpu1:11434", OK: true}, {Host: "http://gpu2:11434", Error: "embedding: ollama show on http://gpu2:11434: host unreachable"}}
	hostsDown := []hs.HostHealth{{Host: "http://gpu1:11434", Error: "embedding: ollama show on http://gpu1:11434: host unreachable"}, hostsUp[1]}
	tests := []struct {
		name       string
		hosts      []hs.HostHealth
		check      error // the "embedder" check, nil for none
		user       hs.UserID
		pending    int
		wantPaused bool
		wantOK     bool
		wantHosts  int
	}{
		{name: "one of two hosts up", hosts: hostsUp, user: "admin", pending: 10, wantOK: true, wantHosts: 2},
		{name: "no host up", hosts: hostsDown, user: "admin", pending: 10, wantPaused: true, wantHosts: 2},
		{name: "no host up, nothing waits", hosts: hostsDown, user: "admin", pending: 0, wantHosts: 2},
		{name: "no host up, as a user", hosts: hostsDown, user: "alice", pending: 1, wantPaused: true},
		{name: "hosts up but the check fails", hosts: hostsUp, check: errors.New("probe failed"), user: "admin", pending: 3, wantPaused: true, wantHosts: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStates()
			if tt.pending > 0 {
				s.Put(context.Background(), hs.FileState{ID: 1, Readers: []hs.UserID{"alice"}, Paths: map[hs.UserID]string{"alice": "/a.md"}, Status: hs.StatusPending})
			}
			r := &indexing.Reporter{
				States:    s,
				Pending:   func(context.Context) (int, error) { return tt.pending, nil },
				Pipeline:  &indexing.Pipeline{},
				Checks:    map[string]indexing.Check{},
				Embedders: func(context.Context) []hs.HostHealth { return tt.hosts },
				IsAdmin:   func(_ context.Context, u hs.UserID) (bool, error) { return u == "admin", nil },
			}
			if tt.check != nil {
				r.Checks["embedder"] = func(context.Context) error { return tt.check }
			}
			rep, err := r.Status(t.Context(), tt.user, false)
			if err != nil {
				t.Fatal(err)
			}
			q := rep.Queue
			if q.Paused != tt.wantPaused || (q.Paused && (q.PausedReason != "no embedding host answers" || q.ETASeconds != 0)) {
				t.Errorf("queue = %+v, want paused %v", q, tt.wantPaused)
			}
			if c := rep.Components["embedder"]; c.OK != tt.wantOK {
				t.Errorf("embedder component = %+v, want ok %v", c, tt.wantOK)
			}
			if len(rep.Embedders) != tt.wantHosts {
				t.Errorf("embedders = %+v, want %d hosts", rep.Embedders, tt.wantHosts)
			}
			if tt.user != "admin" && strings.Contains(rep.Components["embedder"].Error, "gpu1:11434") {
				t.Errorf("a user sees an internal address: %q", rep.Components["embedder"].Error)
			}
		})
	}
}

func TestStatusHostsAreAskedWithATimeout(t *testing.T) {
	r := &indexing.Reporter{
		Embedders: func(ctx context.Context) []hs.HostHealth {
			<-ctx.Done()
			return []hs.HostHealth{{Host: "http://slow:11434", Error: ctx.Err().Error()}}
		},
		IsAdmin: func(context.Context, hs.UserID) (bool, error) { return true, nil },
	}
	start := time.Now()
	rep, err := r.Status(t.Context(), "admin", false)
	if err != nil || len(rep.Embedders) != 1 || rep.Embedders[0].OK {
		t.Fatalf("Status() = %+v, %v", rep.Embedders, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Status() took %v with a host that never answers", d)
	}
}

// TestStatusProgressAndHealth checks the derived figures every reader of
// hs.IndexStatus (panel, CLI, nc_index_status) gets from the Reporter.
func TestStatusProgressAndHealth(t *testing.T) {
	s := newStates()
	s.Put(context.Background(), partialState())
	s.Put(context.Background(), hs.FileState{ID: 8, Readers: []hs.UserID{"alice"}, Paths: map[hs.UserID]string{"alice": "/fine.md"}, Status: hs.StatusIndexed})
	s.Put(context.Background(), hs.FileState{ID: 9, Readers: []hs.UserID{"alice"}, Paths: map[hs.UserID]string{"alice": "/new.md"}, Status: hs.StatusPending})
	s.Put(context.Background(), hs.FileState{ID: 10, Readers: []hs.UserID{"alice"}, Paths: map[hs.UserID]string{"alice": "/bad.pdf"}, Status: hs.StatusFailed, Error: "no text"})
	tests := []struct {
		name        string
		queueErr    error
		nats        error
		wantHealthy bool
	}{
		{"all answer", nil, nil, true},
		{"a component is down", nil, errors.New("nats down"), false},
		{"the queue does not answer", errors.New("no stream"), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &indexing.Reporter{
				States:  s,
				Pending: func(context.Context) (int, error) { return 1, tt.queueErr },
				Checks:  map[string]indexing.Check{"nats": func(context.Context) error { return tt.nats }},
				IsAdmin: func(context.Context, hs.UserID) (bool, error) { return true, nil },
			}
			st, err := r.Status(t.Context(), "alice", false)
			if err != nil {
				t.Fatal(err)
			}
			if st.Progress != 0.75 {
				t.Errorf("progress = %v, want 0.75 (3 of 4 files settled)", st.Progress)
			}
			if st.Healthy != tt.wantHealthy {
				t.Errorf("healthy = %v, want %v (%+v, queue %+v)", st.Healthy, tt.wantHealthy, st.Components, st.Queue)
			}
			if st.ProblemsTotal != 2 || len(st.Problems) != 2 {
				t.Errorf("problems = %d listed, %d total; want 2 and 2", len(st.Problems), st.ProblemsTotal)
			}
		})
	}
	empty, err := (&indexing.Reporter{States: newStates()}).Status(t.Context(), "bob", false)
	if err != nil || empty.Progress != 1 || !empty.Healthy {
		t.Errorf("empty index: progress %v, healthy %v, %v; want 1, true", empty.Progress, empty.Healthy, err)
	}
}

// TestStatusLive: every user, admin or not, sees whether live updates are
// on and why not.
func TestStatusLive(t *testing.T) {
	live := &indexing.Live{}
	r := &indexing.Reporter{States: newStates(), Live: live.Status, IsAdmin: func(_ context.Context, u hs.UserID) (bool, error) { return u == "admin", nil }}
	for _, u := range []hs.UserID{"admin", "alice"} {
		if rep, err := r.Status(t.Context(), u, false); err != nil || rep.Live != nil {
			t.Errorf("%s before the lifecycle knows: %+v, %v; want no live field", u, rep.Live, err)
		}
	}
	live.SetLive(false, hs.LiveWebhookListenersDisabled, "run occ app:enable webhook_listeners")
	for _, u := range []hs.UserID{"admin", "alice"} {
		rep, err := r.Status(t.Context(), u, false)
		if err != nil || rep.Live == nil || rep.Live.Enabled || rep.Live.ReasonCode != hs.LiveWebhookListenersDisabled {
			t.Errorf("%s: %+v, %v", u, rep.Live, err)
		}
	}
}

// TestRebuildProgress: while a new index fills, the status tells how far
// it has come over the user's files (all, for an admin asking for all):
// files it holds, and files of the serving index it tried that wait for a
// retry, are done; a file waiting for OCR or not yet tried is not; files
// the serving index does not hold are not waited for.
func TestRebuildProgress(t *testing.T) {
	since := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	before, after := since.Add(-time.Minute), since.Add(time.Minute)
	alice := []hs.UserID{"alice"}
	s := newStates()
	for _, st := range []hs.FileState{
		{ID: 1, Readers: alice, Status: hs.StatusIndexed, Index: "new", Updated: after},                                  // done
		{ID: 2, Readers: alice, Status: hs.StatusSkipped, Index: "new", Updated: after},                                  // done
		{ID: 3, Readers: alice, Status: hs.StatusIndexed, Index: "old", Updated: before},                                 // to do
		{ID: 4, Readers: alice, Status: hs.StatusIndexed, Index: "old", Updated: after, Error: "embedder down"},          // retrying
		{ID: 5, Readers: alice, Status: hs.StatusIndexed, Index: "old", Updated: after, Error: indexing.WaitingForOCR},   // to do
		{ID: 6, Readers: alice, Status: hs.StatusIndexed, Index: "old", Updated: before, Error: "1 of 3 chunks have no"}, // to do: an old failure
		{ID: 7, Readers: alice, Status: hs.StatusFailed, Index: "old", Updated: before},                                  // not served
		{ID: 8, Readers: alice, Status: hs.StatusPending, Updated: after},                                                // not served
		{ID: 9, Readers: []hs.UserID{"bob"}, Status: hs.StatusIndexed, Index: "old", Updated: before},                    // bob's
	} {
		s.Put(t.Context(), st)
	}
	rb := &indexing.Rebuild{Model: "bge-m3", To: "new", Since: since}
	r := &indexing.Reporter{States: s, Rebuild: func() *indexing.Rebuild { return rb },
		IsAdmin: func(ctx context.Context, u hs.UserID) (bool, error) { return u == "alice", nil }}
	rep, err := r.Status(t.Context(), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	want := hs.RebuildProgress{Model: "bge-m3", Done: 3, Retrying: 1, Total: 6, Progress: 0.5}
	if rep.Rebuild == nil || *rep.Rebuild != want {
		t.Errorf("alice's rebuild progress = %+v, want %+v", rep.Rebuild, want)
	}
	if rep, _ = r.Status(t.Context(), "alice", true); rep.Rebuild == nil || rep.Rebuild.Total != 7 {
		t.Errorf("every file's rebuild progress = %+v, want bob's file counted too", rep.Rebuild)
	}
	all, err := indexing.RebuildStatus(t.Context(), s, *rb)
	if err != nil || all.Total != 7 || all.Done != 3 || indexing.CaughtUp(all) {
		t.Errorf("RebuildStatus = %+v, %v", all, err)
	}
	rb = nil
	if rep, _ = r.Status(t.Context(), "alice", false); rep.Rebuild != nil {
		t.Errorf("no rebuild, yet the status shows %+v", rep.Rebuild)
	}
}
