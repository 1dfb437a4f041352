package indexing_test

import (
	"hash/fnv"
	"slices"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

// nameSparse is a SparseFunc that depends on what a file's name feeds:
// one index for the title and one for the path, so a test sees whether a
// point's sparse vectors were computed for the file's current name.
func nameSparse(meta hs.FileMeta, c hs.Chunk) (hs.SparseVector, hs.SparseVector) {
	idx := func(s string) uint32 {
		h := fnv.New32a()
		h.Write([]byte(s))
		return h.Sum32()
	}
	ix := []uint32{idx("title:" + meta.Title), idx("path:" + meta.Path)}
	slices.Sort(ix)
	return hs.SparseVector{Indices: ix, Values: []float32{1, 1}}, hs.SparseVector{}
}

// wantNamed fails unless every point of file id carries title and path and
// sparse vectors computed for them.
func wantNamed(t *testing.T, e *env, id hs.FileID, title, pth string) {
	t.Helper()
	pts := e.points(id)
	if len(pts) == 0 {
		t.Fatalf("file %d has no points", id)
	}
	for _, p := range pts {
		want, _ := nameSparse(hs.FileMeta{Title: title, Path: pth}, p.Chunk)
		if p.File.Title != title || p.File.Path != pth || !slices.Equal(p.BM25.Indices, want.Indices) {
			t.Errorf("chunk %d: title %q, path %q, bm25 %v; want %q, %q and bm25 %v", p.Chunk.No, p.File.Title, p.File.Path, p.BM25.Indices, title, pth, want.Indices)
		}
	}
}

// TestRenameReindexesWhatTheNameFeeds: a rename or move changes the file's
// path words, and its title when the title comes from the name. Its points
// are rewritten from what the store holds (no download), and only chunks
// whose embedded text changed are embedded again; a document's own title
// is never replaced by the file name.
func TestRenameReindexesWhatTheNameFeeds(t *testing.T) {
	const long = "first part of the long document\n\nsecond part\n\nthird part"
	tests := []struct {
		name       string
		content    string
		from, to   string
		wantTitle  string
		wantEmbeds int // texts sent to the embedder by the rename
	}{
		{"title from the name", long, "/Docs/long.md", "/Docs/renamed.md", "renamed", 3},
		{"the document's own title", "title: Quarterly zebra plan\n" + long, "/Docs/zebra.md", "/Docs/renamed.md", "Quarterly zebra plan", 0},
		{"a move keeps a name-given title", long, "/Docs/long.md", "/Archive/2025/long.md", "long", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.p.Sparse = nameSparse
			e.tree.put(1, "alice", tt.from, tt.content)
			e.index(t, job(1, "alice"))
			before := e.points(1)
			e.tree.share(1, "alice", tt.to) // a MOVE keeps the file id and its ETag
			if err := e.p.Process(t.Context(), hs.IndexJob{FileID: 1, User: "alice", Path: tt.to, OldPath: tt.from, Event: "NodeRenamedEvent", Reason: hs.ReasonEvent}); err != nil {
				t.Fatal(err)
			}
			if n := e.tree.downloadCount(); n != 0 {
				t.Errorf("%d downloads; a rename needs none", n)
			}
			texts := e.embed.texts()
			if len(texts) != tt.wantEmbeds {
				t.Errorf("embedded %d texts %q, want %d", len(texts), texts, tt.wantEmbeds)
			}
			for _, s := range texts {
				if !strings.HasPrefix(s, tt.wantTitle+"\n\n") {
					t.Errorf("embedded %q, want it under the title %q", s, tt.wantTitle)
				}
			}
			wantNamed(t, e, 1, tt.wantTitle, tt.to)
			after := e.points(1)
			if len(after) != len(before) {
				t.Fatalf("%d points after the rename, %d before", len(after), len(before))
			}
			for i := range after {
				if after[i].Chunk.Text != before[i].Chunk.Text || len(after[i].Dense) == 0 {
					t.Errorf("chunk %d: text %q (was %q), vector %d long", i, after[i].Chunk.Text, before[i].Chunk.Text, len(after[i].Dense))
				}
				if tt.wantEmbeds == 0 && !slices.Equal(after[i].Dense, before[i].Dense) {
					t.Errorf("chunk %d: vector changed although its embedded text did not", i)
				}
			}
			st := e.state(t, 1)
			if st.Status != hs.StatusIndexed || st.Paths["alice"] != tt.to || st.Chunks != len(before) {
				t.Errorf("state = %+v", st)
			}
			// A scan or a repeated event finds nothing more to do.
			e.forget()
			if err := e.p.Process(t.Context(), hs.IndexJob{FileID: 1, User: "alice", Path: tt.to, Reason: hs.ReasonScan}); err != nil {
				t.Fatal(err)
			}
			if len(e.store.calls) != 0 || len(e.embed.texts()) != 0 {
				t.Errorf("a scan after the rename: store calls %v, embedded %d", e.store.calls, len(e.embed.texts()))
			}
		})
	}
}

// TestSharingKeepsTheOwnTitle: metadata updates that are no rename (a new
// reader, a reader dropped) keep a document's own title.
func TestSharingKeepsTheOwnTitle(t *testing.T) {
	e := newEnv(t)
	e.p.Sparse = nameSparse
	e.tree.put(1, "alice", "/Docs/zebra.md", "title: Quarterly zebra plan\n"+doc)
	e.index(t, job(1, "alice"))
	e.tree.share(1, "bob", "/zebra.md")
	e.index(t, job(1, "bob"))
	wantNamed(t, e, 1, "Quarterly zebra plan", "/Docs/zebra.md")
	if m := e.store.meta[1]; m.Title != "Quarterly zebra plan" || !slices.Equal(m.Readers, []hs.UserID{"alice", "bob"}) {
		t.Errorf("store meta after the share = %+v", m)
	}
	e.tree.share(1, "bob", "")
	e.index(t, job(1, "bob"))
	if m := e.store.meta[1]; m.Title != "Quarterly zebra plan" || m.Path != "/Docs/zebra.md" || !slices.Equal(m.Readers, []hs.UserID{"alice"}) {
		t.Errorf("store meta after the unshare = %+v", m)
	}
}

// TestLegacyStateKeepsItsTitle: a file indexed before states kept the
// path its points were written under and its own title: a share or a
// rename then neither drops its own title nor re-embeds what did not
// change.
func TestLegacyStateKeepsItsTitle(t *testing.T) {
	for _, rename := range []bool{false, true} {
		e := newEnv(t)
		e.p.Sparse = nameSparse
		e.tree.put(1, "alice", "/Docs/zebra.md", "title: Quarterly zebra plan\n"+doc)
		e.index(t, job(1, "alice"))
		st := e.state(t, 1)
		st.Title, st.IndexedPath = "", "" // as older versions wrote it
		e.states.Put(t.Context(), st)
		want := "/Docs/zebra.md"
		if rename {
			e.tree.share(1, "alice", "/Docs/q3.md")
			want = "/Docs/q3.md"
			e.index(t, job(1, "alice"))
		} else {
			e.tree.share(1, "bob", "/zebra.md")
			e.index(t, job(1, "bob"))
		}
		if m := e.store.meta[1]; m.Title != "Quarterly zebra plan" || m.Path != want {
			t.Errorf("rename %v: store meta = %+v", rename, m)
		}
		if st := e.state(t, 1); st.Title != "Quarterly zebra plan" || st.IndexedPath != want {
			t.Errorf("rename %v: state title %q, indexed path %q", rename, st.Title, st.IndexedPath)
		}
	}
}
