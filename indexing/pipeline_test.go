package indexing_test

import (
	"context"
	"io"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
)

// env is a pipeline over fakes.
type env struct {
	tree   *tree
	store  *store
	states *states
	embed  *embedder
	queue  *queue
	extr   *extractor
	exists func(hs.UserID) bool
	p      *indexing.Pipeline
}

func newEnv(t *testing.T) *env {
	e := &env{tree: newTree(), store: newStore(), states: newStates(), embed: &embedder{}, queue: &queue{}, extr: &extractor{}}
	e.exists = func(u hs.UserID) bool { return u == "alice" || u == "bob" }
	e.p = &indexing.Pipeline{
		Files: e.tree, Extract: e.extr, Chunk: paragraphs{}, Sparse: sparse, Embed: e.embed,
		Store: e.store, States: e.states, Users: users(func(u hs.UserID) bool { return e.exists(u) }),
		Enqueue: e.queue.enqueue, IndexID: "test",
		Logger: slog.New(slog.NewTextHandler(testWriter{t}, nil)),
		Now:    func() time.Time { return time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC) },
	}
	return e
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func job(id hs.FileID, user hs.UserID) hs.IndexJob {
	return hs.IndexJob{FileID: id, User: user, Reason: hs.ReasonEvent, Event: "NodeWrittenEvent"}
}

// index runs a job that must succeed, then forgets what the fakes saw.
func (e *env) index(t *testing.T, j hs.IndexJob) {
	t.Helper()
	if err := e.p.Process(t.Context(), j); err != nil {
		t.Fatalf("setup: Process(%+v) = %v", j, err)
	}
	e.forget()
}

func (e *env) forget() {
	e.embed.reset()
	e.store.mu.Lock()
	e.store.calls = nil
	e.store.mu.Unlock()
	e.tree.mu.Lock()
	e.tree.downloads = 0
	e.tree.mu.Unlock()
}

func (e *env) state(t *testing.T, id hs.FileID) hs.FileState {
	t.Helper()
	st, ok := e.states.get(id)
	if !ok {
		t.Fatalf("no state for file %d", id)
	}
	return st
}

func (e *env) points(id hs.FileID) []hs.Point {
	pts, _ := e.store.FilePoints(context.Background(), id, true)
	return pts
}

// tooLong rejects a text as Ollama rejects an input it cannot truncate.
func tooLong() error {
	return hs.Errorf(hs.ETOOLARGE, "embedding: ollama embed on [host]: an input is too long for the model's context and could not be truncated (status 400): the input length exceeds the context length")
}

const doc = "alpha paragraph\n\nbeta paragraph\n\ngamma paragraph"

// unembeddable is a chunk no embedder takes at any length (see rejectHashes).
const unembeddable = "################################################################"

func rejectHashes(text string) error {
	if strings.Contains(text, "#") {
		return tooLong()
	}
	return nil
}

func TestPipelineProcess(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, e *env)
		job      hs.IndexJob
		wantKind string // of Process's error, "" for nil
		check    func(t *testing.T, e *env)
	}{
		{
			name:  "new file is indexed",
			setup: func(t *testing.T, e *env) { e.tree.put(1, "alice", "/a.md", doc) },
			job:   job(1, "alice"),
			check: func(t *testing.T, e *env) {
				st := e.state(t, 1)
				if st.Status != hs.StatusIndexed || st.Chunks != 3 || st.Error != "" || st.Index != "test" ||
					!slices.Equal(st.Readers, []hs.UserID{"alice"}) || st.Paths["alice"] != "/a.md" {
					t.Errorf("state = %+v", st)
				}
				texts := e.embed.texts()
				if want := []string{"a\n\nalpha paragraph", "a\n\nbeta paragraph", "a\n\ngamma paragraph"}; !slices.Equal(texts, want) {
					t.Errorf("embedded %q, want %q (title, then text)", texts, want)
				}
				for i, p := range e.points(1) {
					if len(p.Dense) == 0 || p.Chunk.Hash != indexing.VectorKey(texts[i]) || p.File.Path != "/a.md" || p.ID != hs.PointID(1, i) {
						t.Errorf("point %d = dense %d hash %s path %s", i, len(p.Dense), p.Chunk.Hash, p.File.Path)
					}
				}
				if calls := e.store.callsLike("WriteFile"); !slices.Equal(calls, []string{"WriteFile 1 3"}) {
					t.Errorf("store writes = %v, want one WriteFile of 3 points", calls)
				}
			},
		},
		{
			name:  "path-only job is resolved to the file",
			setup: func(t *testing.T, e *env) { e.tree.put(1, "alice", "/a.md", doc) },
			job:   hs.IndexJob{User: "alice", Path: "/a.md", Reason: hs.ReasonEvent},
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); st.Status != hs.StatusIndexed {
					t.Errorf("status = %s, want indexed", st.Status)
				}
			},
		},
		{
			name: "path-only job for a file already gone does nothing",
			job:  hs.IndexJob{User: "alice", Path: "/gone.md", Reason: hs.ReasonEvent},
			check: func(t *testing.T, e *env) {
				if len(e.states.m) != 0 || len(e.store.calls) != 0 {
					t.Errorf("states %v, store calls %v; want none", e.states.m, e.store.calls)
				}
			},
		},
		{
			name: "same etag again does nothing",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.index(t, job(1, "alice"))
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				if n := e.tree.downloadCount(); n != 0 || len(e.embed.texts()) != 0 || len(e.store.calls) != 0 {
					t.Errorf("downloads %d, embedded %d, store calls %v; want nothing", n, len(e.embed.texts()), e.store.calls)
				}
			},
		},
		{
			name: "rename rewrites the chunks under the new name without a download",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.index(t, job(1, "alice"))
				e.tree.share(1, "alice", "/moved/b.md")
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				// The title comes from the name: each chunk's embedded text
				// changed (rename_test.go has the rest).
				if n, texts := e.tree.downloadCount(), e.embed.texts(); n != 0 || len(texts) != 3 || !strings.HasPrefix(texts[0], "b\n\n") {
					t.Errorf("downloads %d, embedded %q; want none and the 3 chunks under the title b", n, texts)
				}
				if calls := e.store.calls; !slices.Equal(calls, []string{"WriteFile 1 3"}) {
					t.Errorf("store calls = %v, want the file written again", calls)
				}
				if st := e.state(t, 1); st.Paths["alice"] != "/moved/b.md" || st.Status != hs.StatusIndexed {
					t.Errorf("state = %+v", st)
				}
			},
		},
		{
			name: "changed content re-embeds only the changed chunk",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.index(t, job(1, "alice"))
				e.tree.put(1, "alice", "/a.md", "alpha paragraph\n\nbeta, rewritten\n\ngamma paragraph\n\ndelta, new")
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				if texts := e.embed.texts(); !slices.Equal(texts, []string{"a\n\nbeta, rewritten", "a\n\ndelta, new"}) {
					t.Errorf("embedded %q, want only the two new chunks", texts)
				}
				if c := e.p.Counters(); c.Reused != 2 {
					t.Errorf("reused %d vectors, want 2", c.Reused)
				}
				pts := e.points(1)
				if len(pts) != 4 || e.state(t, 1).Chunks != 4 {
					t.Errorf("%d points, state %d chunks; want 4", len(pts), e.state(t, 1).Chunks)
				}
				wantVectors(t, pts)
			},
		},
		{
			name: "a new title re-embeds the same text",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", "title: Budget 2025\n"+doc)
				e.index(t, job(1, "alice"))
				e.tree.put(1, "alice", "/a.md", "title: Budget 2026\n"+doc)
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				texts := e.embed.texts()
				if len(texts) != 3 || !strings.HasPrefix(texts[0], "Budget 2026\n\n") {
					t.Errorf("embedded %q, want the 3 chunks under the new title", texts)
				}
				if c := e.p.Counters(); c.Reused != 0 {
					t.Errorf("reused %d vectors computed under the old title", c.Reused)
				}
			},
		},
		{
			name: "another file with the same body and title reuses the vectors",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", "title: Notes\n"+doc)
				e.index(t, job(1, "alice"))
				e.tree.put(2, "bob", "/b.md", "title: Notes\n"+doc)
			},
			job: job(2, "bob"),
			check: func(t *testing.T, e *env) {
				if texts := e.embed.texts(); len(texts) != 0 {
					t.Errorf("embedded %q, want all reused", texts)
				}
				wantVectors(t, e.points(2))
			},
		},
		{
			name: "another file with the same body under another title is embedded",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", "title: Notes\n"+doc)
				e.index(t, job(1, "alice"))
				e.tree.put(2, "bob", "/b.md", "title: Minutes\n"+doc)
			},
			job: job(2, "bob"),
			check: func(t *testing.T, e *env) {
				if texts := e.embed.texts(); len(texts) != 3 || !strings.HasPrefix(texts[0], "Minutes\n\n") {
					t.Errorf("embedded %q, want 3 chunks under their own title", texts)
				}
			},
		},
		{
			name: "a repeated chunk is embedded once",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", "same\n\nsame\n\nother")
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				if texts := e.embed.texts(); !slices.Equal(texts, []string{"a\n\nsame", "a\n\nother"}) {
					t.Errorf("embedded %q", texts)
				}
				if pts := e.points(1); len(pts) != 3 || !slices.Equal(pts[0].Dense, pts[1].Dense) {
					t.Errorf("%d points; the repeated chunk's vectors differ", len(pts))
				}
			},
		},
		{
			name: "a file moved into an excluded folder is skipped and its chunks removed",
			setup: func(t *testing.T, e *env) {
				e.p.Rules = indexing.Rules{PathGlobs: []string{"/private/**"}}
				e.tree.put(1, "alice", "/a.md", doc)
				e.index(t, job(1, "alice"))
				e.tree.share(1, "alice", "/private/a.md")
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				st := e.state(t, 1)
				if st.Status != hs.StatusSkipped || !strings.Contains(st.Error, `excluded by path rule "/private/**"`) || st.Chunks != 0 {
					t.Errorf("state = %+v", st)
				}
				if len(e.points(1)) != 0 || e.tree.downloadCount() != 0 {
					t.Errorf("%d points left, %d downloads; want none", len(e.points(1)), e.tree.downloadCount())
				}
			},
		},
		{
			name: "a file over the size limit is skipped",
			setup: func(t *testing.T, e *env) {
				e.p.Rules = indexing.Rules{MaxSize: 10}
				e.tree.put(1, "alice", "/a.md", doc)
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); st.Status != hs.StatusSkipped || !strings.Contains(st.Error, "larger than the 10-byte limit") {
					t.Errorf("state = %+v", st)
				}
			},
		},
		{
			name:  "an unsupported type is skipped without a download",
			setup: func(t *testing.T, e *env) { e.tree.put(1, "alice", "/photo.png", "\x89PNG") },
			job:   job(1, "alice"),
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); st.Status != hs.StatusSkipped || !strings.Contains(st.Error, "unsupported file type image/png") {
					t.Errorf("state = %+v", st)
				}
				if n := e.tree.downloadCount(); n != 0 {
					t.Errorf("%d downloads, want 0", n)
				}
			},
		},
		{
			name:  "an empty file is skipped",
			setup: func(t *testing.T, e *env) { e.tree.put(1, "alice", "/empty.md", "\n\n") },
			job:   job(1, "alice"),
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); st.Status != hs.StatusSkipped || st.Error != "no text to index" {
					t.Errorf("state = %+v", st)
				}
			},
		},
		{
			name: "a deleted file leaves the index",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.index(t, job(1, "alice"))
				e.tree.remove(1)
			},
			job: hs.IndexJob{FileID: 1, User: "alice", Event: "NodeDeletedEvent", Reason: hs.ReasonEvent},
			check: func(t *testing.T, e *env) {
				if _, ok := e.states.get(1); ok || len(e.points(1)) != 0 {
					t.Errorf("state or points left for a deleted file")
				}
			},
		},
		{
			name: "an unshared file leaves that reader only",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.tree.share(1, "bob", "/Shared/a.md")
				e.index(t, job(1, "alice"))
				e.index(t, job(1, "bob"))
				e.tree.share(1, "bob", "")
			},
			job: job(1, "bob"),
			check: func(t *testing.T, e *env) {
				st := e.state(t, 1)
				if !slices.Equal(st.Readers, []hs.UserID{"alice"}) || st.Paths["bob"] != "" || st.Status != hs.StatusIndexed {
					t.Errorf("state = %+v", st)
				}
				if m := e.store.meta[1]; !slices.Equal(m.Readers, []hs.UserID{"alice"}) || len(e.points(1)) != 3 {
					t.Errorf("store readers %v, %d points; want alice's 3", m.Readers, len(e.points(1)))
				}
			},
		},
		{
			name: "a deleted user is dropped as reader and the job ends",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.tree.share(1, "bob", "/Shared/a.md")
				e.index(t, job(1, "alice"))
				e.index(t, job(1, "bob"))
				e.exists = func(u hs.UserID) bool { return u == "alice" }
				e.tree.findByID = func(user hs.UserID, id hs.FileID) (hs.FileInfo, error) {
					if user == "bob" {
						return hs.FileInfo{}, hs.Errorf(hs.EUNAUTHORIZED, "nextcloud: login as bob refused")
					}
					return e.tree.lookup(user, id)
				}
			},
			job:      job(1, "bob"),
			wantKind: hs.ENOTFOUND,
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); !slices.Equal(st.Readers, []hs.UserID{"alice"}) {
					t.Errorf("readers = %v, want alice only", st.Readers)
				}
			},
		},
		{
			name: "a refused login of an existing user is retried",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.tree.findByID = func(hs.UserID, hs.FileID) (hs.FileInfo, error) {
					return hs.FileInfo{}, hs.Errorf(hs.EUNAUTHORIZED, "nextcloud: app password expired")
				}
			},
			job:      job(1, "alice"),
			wantKind: hs.EUNAUTHORIZED,
		},
		{
			name:     "a job without a user is invalid",
			job:      hs.IndexJob{FileID: 1},
			wantKind: hs.EINVALID,
		},
		{
			name: "the embedder down leaves the file pending with the reason",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.embed.fail = func(string) error {
					return hs.Errorf(hs.EUNAVAILABLE, "embedding: ollama embed on [host]: host unreachable")
				}
			},
			job:      job(1, "alice"),
			wantKind: hs.EUNAVAILABLE,
			check: func(t *testing.T, e *env) {
				st := e.state(t, 1)
				if st.Status != hs.StatusPending || st.Attempts != 1 || !strings.Contains(st.Error, "host unreachable") {
					t.Errorf("state = %+v", st)
				}
				if len(e.points(1)) != 0 {
					t.Errorf("%d points written without vectors while the embedder is down", len(e.points(1)))
				}
			},
		},
		{
			name: "the embedder down keeps a changed file's previous chunks",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.index(t, job(1, "alice"))
				e.tree.put(1, "alice", "/a.md", doc+"\n\ndelta")
				e.embed.fail = func(string) error { return hs.Errorf(hs.EUNAVAILABLE, "embedding: no ollama host to try") }
			},
			job:      job(1, "alice"),
			wantKind: hs.EUNAVAILABLE,
			check: func(t *testing.T, e *env) {
				if n := len(e.points(1)); n != 3 {
					t.Errorf("%d points, want the previous version's 3", n)
				}
				if st := e.state(t, 1); st.Attempts != 1 || st.Error == "" {
					t.Errorf("state = %+v", st)
				}
			},
		},
		{
			name: "an over-long chunk is split and its halves embedded",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", "short one\n\n"+strings.Repeat("long words ", 10)+"\n\nshort two")
				e.embed.fail = func(text string) error {
					if len(text) > 40 {
						return tooLong()
					}
					return nil
				}
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				st := e.state(t, 1)
				if st.Status != hs.StatusIndexed || st.NoVectors != 0 || st.Error != "" {
					t.Errorf("state = %+v", st)
				}
				pts := e.points(1)
				if len(pts) != 3 {
					t.Fatalf("%d points, want 3", len(pts))
				}
				if norm := l2(pts[1].Dense); math.Abs(norm-1) > 1e-5 {
					t.Errorf("the split chunk's vector has length %v, want 1", norm)
				}
				var parts []string
				for _, s := range e.embed.texts() {
					if strings.HasPrefix(s, "a\n\nlong") || strings.HasPrefix(s, "a\n\nwords") {
						if len(s) <= 40 {
							parts = append(parts, s)
						}
					}
				}
				if len(parts) < 2 || strings.Join(parts, " ") == "" {
					t.Errorf("embedded parts %q, want the halves, each under the title", parts)
				}
			},
		},
		{
			name: "one chunk that cannot be embedded leaves the rest searchable",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", "alpha\n\n"+unembeddable+"\n\ngamma")
				e.embed.fail = rejectHashes
			},
			job:      job(1, "alice"),
			wantKind: hs.EUNAVAILABLE, // retried later, with the queue's backoff
			check: func(t *testing.T, e *env) {
				st := e.state(t, 1)
				if st.Status != hs.StatusIndexed || st.Chunks != 3 || st.NoVectors != 1 || st.Attempts != 1 ||
					!strings.Contains(st.Error, "1 of 3 chunks have no vector") || !strings.Contains(st.Error, "the input length exceeds the context length") {
					t.Errorf("state = %+v", st)
				}
				pts := e.points(1)
				if len(pts) != 3 || len(pts[0].Dense) == 0 || pts[1].Dense != nil || len(pts[2].Dense) == 0 || len(pts[1].BM25.Indices) == 0 {
					t.Errorf("points: %d, want 3 with keyword vectors, the middle one without a dense vector", len(pts))
				}
				if n := len(e.embed.calls); n > 40 {
					t.Errorf("%d embed calls for one bad chunk, want at most 40", n)
				}
			},
		},
		{
			name: "missing vectors come on a later try, the others reused",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", "alpha\n\n"+unembeddable+"\n\ngamma")
				e.embed.fail = rejectHashes
				if err := e.p.Process(t.Context(), job(1, "alice")); hs.ErrorKind(err) != hs.EUNAVAILABLE {
					t.Fatalf("first try = %v", err)
				}
				e.forget()
				e.embed.fail = nil // e.g. the admin raised the model's context
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				if texts := e.embed.texts(); len(texts) != 1 || !strings.Contains(texts[0], "###") {
					t.Errorf("embedded %q, want only the missing chunk", texts)
				}
				st := e.state(t, 1)
				if st.NoVectors != 0 || st.Error != "" || st.Attempts != 0 || st.Status != hs.StatusIndexed {
					t.Errorf("state = %+v", st)
				}
				wantVectors(t, e.points(1))
			},
		},
		{
			name: "missing vectors are tried Retry.PartialTries() times, then on request",
			setup: func(t *testing.T, e *env) {
				e.p.Retry = hs.RetryPolicy{MaxTries: 5} // 3 tries for missing vectors
				e.tree.put(1, "alice", "/a.md", "alpha\n\n"+unembeddable)
				e.embed.fail = rejectHashes
				for try, want := range []string{hs.EUNAVAILABLE, hs.EUNAVAILABLE, ""} {
					if err := e.p.Process(t.Context(), job(1, "alice")); hs.ErrorKind(err) != want {
						t.Fatalf("try %d = %v, want kind %q", try+1, err, want)
					}
				}
				e.forget()
				if err := e.p.Process(t.Context(), job(1, "alice")); err != nil || len(e.embed.calls) != 0 {
					t.Fatalf("after the last try: %v, %d embed calls; want nothing done", err, len(e.embed.calls))
				}
				if st := e.state(t, 1); st.Attempts != 3 || st.NoVectors != 1 {
					t.Fatalf("state after the tries = %+v", st)
				}
			},
			job:      hs.IndexJob{FileID: 1, User: "alice", Reason: hs.ReasonRetry},
			wantKind: hs.EUNAVAILABLE,
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); st.Attempts != 1 || st.NoVectors != 1 {
					t.Errorf("state after a retry request = %+v, want a new round of tries", st)
				}
			},
		},
		{
			name: "a partial file's tries start afresh in a new index",
			setup: func(t *testing.T, e *env) {
				e.p.Retry = hs.RetryPolicy{MaxTries: 5} // 3 tries for missing vectors
				e.tree.put(1, "alice", "/a.md", "alpha\n\n"+unembeddable)
				e.embed.fail = rejectHashes
				for try := range 2 {
					if err := e.p.Process(t.Context(), job(1, "alice")); hs.ErrorKind(err) != hs.EUNAVAILABLE {
						t.Fatalf("try %d = %v", try+1, err)
					}
				}
				e.p.IndexID = "test+other-model" // the model changed
			},
			job:      hs.IndexJob{FileID: 1, User: "alice", Reason: hs.ReasonScan},
			wantKind: hs.EUNAVAILABLE, // tried again after the queue's backoff
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); st.Attempts != 1 || st.NoVectors != 1 || st.Index != "test+other-model" {
					t.Errorf("state after the first try in the new index = %+v, want try 1 of 3", st)
				}
			},
		},
		{
			name: "a big file is written in batches and trimmed",
			setup: func(t *testing.T, e *env) {
				var b strings.Builder
				for i := range 600 {
					b.WriteString("paragraph number " + strconv.Itoa(i) + "\n\n")
				}
				e.tree.put(1, "alice", "/big.md", b.String())
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				want := []string{"UpsertPoints 1 256", "UpsertPoints 1 256", "UpsertPoints 1 88", "TrimFile 1 600"}
				if calls := e.store.calls; !slices.Equal(calls, want) {
					t.Errorf("store calls = %v, want %v", calls, want)
				}
				for _, c := range e.embed.calls {
					if len(c) > 256 {
						t.Errorf("an embed call of %d texts, want at most one write batch (256)", len(c))
					}
				}
				if st := e.state(t, 1); st.Chunks != 600 || st.Status != hs.StatusIndexed {
					t.Errorf("state = %+v", st)
				}
			},
		},
		{
			name: "a file that cannot be extracted fails for good",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.extr.extract = func(string, string) (hs.Text, error) {
					return hs.Text{}, hs.Errorf(hs.EINVALID, "extract: not text")
				}
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); st.Status != hs.StatusFailed || !strings.Contains(st.Error, "not text") {
					t.Errorf("state = %+v", st)
				}
				if calls := e.store.calls; !slices.Equal(calls, []string{"DeleteFile 1"}) {
					t.Errorf("store calls = %v, want the stale chunks deleted", calls)
				}
			},
		},
		{
			name: "a failed file waits for a new version or a retry request",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.extr.extract = func(string, string) (hs.Text, error) { return hs.Text{}, hs.Errorf(hs.EINVALID, "extract: broken") }
				e.index(t, job(1, "alice"))
				e.extr.extract = nil
				e.index(t, job(1, "alice"))
				if st := e.state(t, 1); st.Status != hs.StatusFailed {
					t.Fatalf("after a second event: %+v, want still failed", st)
				}
			},
			job: hs.IndexJob{FileID: 1, User: "alice", Reason: hs.ReasonRetry},
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); st.Status != hs.StatusIndexed {
					t.Errorf("after a retry request: %+v", st)
				}
			},
		},
		{
			name: "Nextcloud down during the download leaves the file pending",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.tree.download = func(hs.UserID, string) (io.ReadCloser, hs.FileInfo, error) {
					return nil, hs.FileInfo{}, hs.Errorf(hs.EUNAVAILABLE, "nextcloud: status 503")
				}
			},
			job:      job(1, "alice"),
			wantKind: hs.EUNAVAILABLE,
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); st.Status != hs.StatusPending || !strings.Contains(st.Error, "503") {
					t.Errorf("state = %+v", st)
				}
			},
		},
		{
			name: "the store failing leaves the file pending",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.store.writeErr = hs.Errorf(hs.EUNAVAILABLE, "store: qdrant unreachable")
			},
			job:      job(1, "alice"),
			wantKind: hs.EUNAVAILABLE,
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); st.Status != hs.StatusPending || !strings.Contains(st.Error, "qdrant unreachable") {
					t.Errorf("state = %+v", st)
				}
			},
		},
		{
			name: "a moved folder fans out into its files",
			setup: func(t *testing.T, e *env) {
				e.tree.put(10, "alice", "/docs", "")
				e.tree.put(11, "alice", "/docs/a.md", "a")
				e.tree.put(12, "alice", "/docs/sub", "")
				e.tree.put(13, "alice", "/docs/sub/b.md", "b")
			},
			job: job(10, "alice"),
			check: func(t *testing.T, e *env) {
				var got []hs.FileID
				for _, j := range e.queue.jobs {
					got = append(got, j.FileID)
				}
				if !slices.Equal(got, []hs.FileID{11, 13}) {
					t.Errorf("jobs for files %v, want 11 and 13", got)
				}
			},
		},
		{
			name: "a file from another index is indexed again",
			setup: func(t *testing.T, e *env) {
				e.tree.put(1, "alice", "/a.md", doc)
				e.index(t, job(1, "alice"))
				e.p.IndexID = "test+new-analyzer"
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				if st := e.state(t, 1); st.Index != "test+new-analyzer" || e.tree.downloadCount() != 1 {
					t.Errorf("state index %q after %d downloads", st.Index, e.tree.downloadCount())
				}
				if n := len(e.embed.texts()); n != 0 {
					t.Errorf("%d texts embedded, want the vectors reused", n)
				}
			},
		},
		{
			name: "without an embedder files are indexed for keyword search",
			setup: func(t *testing.T, e *env) {
				e.p.Embed = nil
				e.tree.put(1, "alice", "/a.md", doc)
			},
			job: job(1, "alice"),
			check: func(t *testing.T, e *env) {
				st := e.state(t, 1)
				if st.Status != hs.StatusIndexed || st.NoVectors != 0 {
					t.Errorf("state = %+v", st)
				}
				for _, p := range e.points(1) {
					if p.Dense != nil {
						t.Errorf("chunk %d has a vector", p.Chunk.No)
					}
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if tt.setup != nil {
				tt.setup(t, e)
			}
			err := e.p.Process(t.Context(), tt.job)
			if got := hs.ErrorKind(err); got != tt.wantKind {
				t.Fatalf("Process() = %v (kind %q), want kind %q", err, got, tt.wantKind)
			}
			if tt.check != nil {
				tt.check(t, e)
			}
		})
	}
}

func l2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// wantVectors fails for each of pts without a dense vector.
func wantVectors(t *testing.T, pts []hs.Point) {
	t.Helper()
	for _, p := range pts {
		if len(p.Dense) == 0 {
			t.Errorf("chunk %d has no vector", p.Chunk.No)
		}
	}
}
