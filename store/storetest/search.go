package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

func testSearchDenseRanking(t *testing.T, s Store) {
	q := v(1, 0, 0, 0)
	vecs := map[hs.FileID][]float32{
		1: {1, 0, 0, 0},    // cosine 1
		2: {1, 1, 0, 0},    // 0.7071
		3: {0, 1, 0, 0},    // 0
		4: {-1, 0, 0, 0},   // -1
		5: {2, 0.5, 0, 0},  // 0.9701: length does not matter
		6: {0.5, 0, 0, 10}, // 0.0499
	}
	for id, vec := range vecs {
		m := fileMeta(id, "/f"+string(rune('0'+id))+".md", "alice")
		mustWrite(t, s, m, simple(m, v(vec...)))
	}
	order := []hs.FileID{1, 5, 2, 6, 3, 4}
	tests := []struct {
		name string
		k    int
		want []hs.FileID
	}{
		{"all", 10, order},
		{"top 2", 2, order[:2]},
		{"top 1", 1, order[:1]},
		{"k over the cap", 100000, order},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := mustDense(t, s, "alice", q, tt.k, hs.Filter{})
			var got []hs.FileID
			for _, h := range hits {
				got = append(got, h.Point.Chunk.FileID)
				if want := cosine(q, v(vecs[h.Point.Chunk.FileID]...)); !near(float64(h.Score), want) {
					t.Errorf("file %d score = %v, want %v", h.Point.Chunk.FileID, h.Score, want)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("SearchDense(k=%d) files = %v, want %v", tt.k, got, tt.want)
			}
			checkNoVectors(t, hits)
		})
	}
	hits := mustDense(t, s, "alice", v(0, 0, 0, 5), 1, hs.Filter{})
	if len(hits) != 1 || hits[0].Point.Chunk.Text != "text of /f6.md" || hits[0].Point.File.Path != "/f6.md" ||
		hits[0].Point.ID != hs.PointID(6, 0) {
		t.Errorf("hit does not carry its point: %+v", hits)
	}
	if _, err := s.SearchDense(t.Context(), "alice", make([]float32, Dim-1), 10, hs.Filter{}); err == nil {
		t.Errorf("SearchDense with a 3-dimensional query = nil error, want one")
	}
}

func testSearchSparseIDF(t *testing.T, s Store) {
	const common, rare = 3, 7
	docs := []struct {
		id     hs.FileID
		reader hs.UserID
		bm25   map[uint32]float32
	}{
		{1, "alice", map[uint32]float32{common: 1, rare: 1}},
		{2, "alice", map[uint32]float32{common: 1}},
		{3, "alice", map[uint32]float32{common: 2}},
		{4, "bob", map[uint32]float32{common: 1, rare: 0.5}}, // counts in IDF: it is collection-wide
		{5, "alice", nil}, // no bm25 vector: not in N
		{6, "alice", map[uint32]float32{rare: 1}},
	}
	for _, d := range docs {
		m := fileMeta(d.id, "/d"+string(rune('0'+d.id))+".md", d.reader)
		mustWrite(t, s, m, point(m, 0, "doc", v(1, 0, 0, 0), d.bm25, nil))
	}
	const N, nCommon, nRare = 5, 4, 3
	idfCommon, idfRare := store.IDF(nCommon, N), store.IDF(nRare, N)

	hits := mustSparse(t, s, "alice", "bm25", map[uint32]float32{common: 1, rare: 1}, 10, hs.Filter{})
	want := []struct {
		file  hs.FileID
		score float64
	}{
		{1, idfCommon + idfRare},
		{3, 2 * idfCommon},
		{6, idfRare}, // a rare term outranks a common one
		{2, idfCommon},
	}
	if len(hits) != len(want) {
		t.Fatalf("SearchSparse returned files %v, want %v", fileIDs(hits), want)
	}
	for i, h := range hits {
		if h.Point.Chunk.FileID != want[i].file || !near(float64(h.Score), want[i].score) {
			t.Errorf("hit %d = file %d score %v, want file %d score %v", i, h.Point.Chunk.FileID, h.Score, want[i].file, want[i].score)
		}
	}
	checkNoVectors(t, hits)

	hits = mustSparse(t, s, "alice", "bm25", map[uint32]float32{common: 0.5}, 3, hs.Filter{})
	wantIDs := append([]string{hs.PointID(3, 0)}, sortedIDs(1, 2)...)
	if got := pointIDs(hits); !slices.Equal(got, wantIDs) {
		t.Errorf("query on the common term = %v, want %v (ties by point id)", got, wantIDs)
	}
	if len(hits) == 3 && !near(float64(hits[0].Score), 2*0.5*idfCommon) {
		t.Errorf("query weight is not applied: score %v, want %v", hits[0].Score, 2*0.5*idfCommon)
	}
	if hits := mustSparse(t, s, "alice", "bm25", map[uint32]float32{999: 1}, 10, hs.Filter{}); len(hits) != 0 {
		t.Errorf("a term no point has finds %v", pointIDs(hits))
	}
	if hits := mustSparse(t, s, "alice", "bm25", nil, 10, hs.Filter{}); len(hits) != 0 {
		t.Errorf("an empty query finds %v", pointIDs(hits))
	}
}

func testSearchTrigram(t *testing.T, s Store) {
	a, b, c := fileMeta(1, "/a.md", "alice"), fileMeta(2, "/b.md", "alice"), fileMeta(3, "/c.md", "alice")
	mustWrite(t, s, a, point(a, 0, "a", nil, nil, map[uint32]float32{5: 1, 9: 1}))
	mustWrite(t, s, b, point(b, 0, "b", nil, nil, map[uint32]float32{9: 2}))
	mustWrite(t, s, c, point(c, 0, "c", nil, map[uint32]float32{5: 1}, nil)) // index 5 only in bm25

	hits := mustSparse(t, s, "alice", "trigram", map[uint32]float32{5: 1}, 10, hs.Filter{})
	if got := fileIDs(hits); !slices.Equal(got, []hs.FileID{1}) {
		t.Fatalf("trigram search finds files %v, want [1]: the vectors are separate", got)
	}
	if want := store.IDF(1, 2); !near(float64(hits[0].Score), want) {
		t.Errorf("trigram score = %v, want %v", hits[0].Score, want)
	}
	hits = mustSparse(t, s, "alice", "trigram", map[uint32]float32{5: 1, 9: 1}, 10, hs.Filter{})
	if got, want := fileIDs(hits), []hs.FileID{1, 2}; !slices.Equal(got, want) {
		t.Errorf("trigram search finds files %v, want %v", got, want)
	}
	if len(hits) == 2 && hits[0].Point.Chunk.FileID != 1 {
		t.Errorf("trigram ranking = %v, want file 1 (both grams) first", pointIDs(hits))
	}
	hits = mustSparse(t, s, "alice", "bm25", map[uint32]float32{5: 1}, 10, hs.Filter{})
	if got := fileIDs(hits); !slices.Equal(got, []hs.FileID{3}) {
		t.Errorf("bm25 search finds files %v, want [3]", got)
	}
	if _, err := s.SearchSparse(t.Context(), "alice", "dense", sparse(map[uint32]float32{5: 1}), 10, hs.Filter{}); err == nil {
		t.Errorf("SearchSparse on vector %q = nil error, want one", "dense")
	}
}

func testIsolation(t *testing.T, s Store) {
	v := v(1, 0, 0, 0)
	for _, m := range []hs.FileMeta{
		fileMeta(1, "/alice.md", "alice"),
		fileMeta(2, "/bob.md", "bob"),
		fileMeta(3, "/shared.md", "alice", "bob"),
		fileMeta(4, "/alice2.md", "alice"),
	} {
		mustWrite(t, s, m, simple(m, v))
	}
	check := func(t *testing.T, user hs.UserID, want []hs.FileID) {
		t.Helper()
		legs := map[string][]hs.Hit{
			"dense":   mustDense(t, s, user, v, 100, hs.Filter{}),
			"bm25":    mustSparse(t, s, user, "bm25", map[uint32]float32{1: 1}, 100, hs.Filter{}),
			"trigram": mustSparse(t, s, user, "trigram", map[uint32]float32{2: 1}, 100, hs.Filter{}),
		}
		for leg, hits := range legs {
			if got := fileIDs(hits); !slices.Equal(got, want) {
				t.Errorf("%s search by %q finds files %v, want %v", leg, user, got, want)
			}
		}
		if got := mustFiles(t, s, user); !slices.Equal(got, want) {
			t.Errorf("Files(%q) = %v, want %v", user, got, want)
		}
	}
	check(t, "alice", []hs.FileID{1, 3, 4})
	check(t, "bob", []hs.FileID{2, 3})
	for _, u := range []hs.UserID{"carol", "ali", "ALICE", "bob "} {
		check(t, u, nil)
	}

	shared := fileMeta(3, "/shared.md", "alice")
	mustUpdate(t, s, shared)
	check(t, "alice", []hs.FileID{1, 3, 4})
	check(t, "bob", []hs.FileID{2})

	shared.Readers = []hs.UserID{"alice", "carol"}
	mustUpdate(t, s, shared)
	check(t, "carol", []hs.FileID{3})
	check(t, "bob", []hs.FileID{2})

	metas, err := s.Files(t.Context(), "carol")
	if err != nil || len(metas) != 1 || !metaEqual(metas[0], shared) {
		t.Errorf("Files(carol) = %+v, %v, want [%+v]", metas, err, shared)
	}
}

func testEmptyUser(t *testing.T, s Store) {
	m := fileMeta(1, "/a.md", "alice")
	mustWrite(t, s, m, simple(m, v(1, 0, 0, 0)))
	ctx := t.Context()
	calls := map[string]func() error{
		"SearchDense": func() error {
			_, err := s.SearchDense(ctx, "", v(1, 0, 0, 0), 10, hs.Filter{})
			return err
		},
		"SearchSparse bm25": func() error {
			_, err := s.SearchSparse(ctx, "", "bm25", sparse(map[uint32]float32{1: 1}), 10, hs.Filter{})
			return err
		},
		"SearchSparse trigram": func() error {
			_, err := s.SearchSparse(ctx, "", "trigram", sparse(map[uint32]float32{2: 1}), 10, hs.Filter{})
			return err
		},
		"Files": func() error {
			_, err := s.Files(ctx, "")
			return err
		},
	}
	for name, call := range calls {
		if err := call(); hs.ErrorKind(err) != hs.EINVALID {
			t.Errorf("%s with the empty user = %v, want EINVALID", name, err)
		}
	}
}

func testBadArguments(t *testing.T, s Store) {
	m := fileMeta(1, "/a.md", "alice")
	mustWrite(t, s, m, simple(m, v(1, 0, 0, 0)))
	for _, k := range []int{0, -1} {
		if _, err := s.SearchDense(t.Context(), "alice", v(1, 0, 0, 0), k, hs.Filter{}); hs.ErrorKind(err) != hs.EINVALID {
			t.Errorf("SearchDense(k=%d) = %v, want EINVALID", k, err)
		}
		if _, err := s.SearchSparse(t.Context(), "alice", "bm25", sparse(map[uint32]float32{1: 1}), k, hs.Filter{}); hs.ErrorKind(err) != hs.EINVALID {
			t.Errorf("SearchSparse(k=%d) = %v, want EINVALID", k, err)
		}
	}
	bad := hs.SparseVector{Indices: []uint32{1, 2}, Values: []float32{1}}
	if _, err := s.SearchSparse(t.Context(), "alice", "bm25", bad, 10, hs.Filter{}); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("SearchSparse with 2 indices and 1 value = %v, want EINVALID", err)
	}
}

func testFilters(t *testing.T, s Store) {
	t1, t2, t3 := base, base.Add(24*time.Hour), base.Add(48*time.Hour)
	files := []struct {
		id       hs.FileID
		path     string
		typ      hs.DocType
		mime     string
		modified time.Time
	}{
		{1, "/Documents/x.md", hs.DocFile, "text/markdown", t1},
		{2, "/Documents/A/y.md", hs.DocNote, "text/markdown", t2},
		{3, "/DocumentsOld/z.pdf", hs.DocFile, "application/pdf", t3},
		{4, "/Other/w.txt", hs.DocFile, "text/plain", t2},
		{5, "/Documents", hs.DocFile, "text/plain", t1}, // a file, not the folder
	}
	for _, f := range files {
		m := fileMeta(f.id, f.path, "alice")
		m.Type, m.MIME, m.Modified = f.typ, f.mime, f.modified
		mustWrite(t, s, m, simple(m, v(1, float32(f.id)/10, 0, 0)))
	}
	all := []hs.FileID{1, 2, 3, 4, 5}
	tests := []struct {
		name   string
		filter hs.Filter
		want   []hs.FileID
	}{
		{"none", hs.Filter{}, all},
		{"type note", hs.Filter{Types: []hs.DocType{hs.DocNote}}, []hs.FileID{2}},
		{"types file and note", hs.Filter{Types: []hs.DocType{hs.DocFile, hs.DocNote}}, all},
		{"mime markdown", hs.Filter{MIMEs: []string{"text/markdown"}}, []hs.FileID{1, 2}},
		{"mimes pdf and plain", hs.Filter{MIMEs: []string{"application/pdf", "text/plain"}}, []hs.FileID{3, 4, 5}},
		{"mime none matches", hs.Filter{MIMEs: []string{"image/png"}}, nil},
		{"folder", hs.Filter{PathPrefix: "/Documents"}, []hs.FileID{1, 2, 5}},
		{"folder with slash", hs.Filter{PathPrefix: "/Documents/"}, []hs.FileID{1, 2, 5}},
		{"subfolder", hs.Filter{PathPrefix: "/Documents/A"}, []hs.FileID{2}},
		{"partial name", hs.Filter{PathPrefix: "/Doc"}, nil},
		{"other folder", hs.Filter{PathPrefix: "/DocumentsOld"}, []hs.FileID{3}},
		{"root", hs.Filter{PathPrefix: "/"}, all},
		{"the file itself", hs.Filter{PathPrefix: "/Documents/x.md"}, []hs.FileID{1}},
		{"modified after, strict", hs.Filter{ModifiedAfter: t2}, []hs.FileID{3}},
		{"modified before, strict", hs.Filter{ModifiedBefore: t2}, []hs.FileID{1, 5}},
		{"modified between", hs.Filter{ModifiedAfter: t1, ModifiedBefore: t3}, []hs.FileID{2, 4}},
		{"folder and type", hs.Filter{PathPrefix: "/Documents", Types: []hs.DocType{hs.DocFile}}, []hs.FileID{1, 5}},
		{"everything", hs.Filter{
			Types: []hs.DocType{hs.DocNote}, MIMEs: []string{"text/markdown"},
			PathPrefix: "/Documents", ModifiedAfter: t1, ModifiedBefore: t3,
		}, []hs.FileID{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			legs := map[string][]hs.Hit{
				"dense":   mustDense(t, s, "alice", v(1, 0, 0, 0), 10, tt.filter),
				"bm25":    mustSparse(t, s, "alice", "bm25", map[uint32]float32{1: 1}, 10, tt.filter),
				"trigram": mustSparse(t, s, "alice", "trigram", map[uint32]float32{2: 1}, 10, tt.filter),
			}
			for leg, hits := range legs {
				if got := fileIDs(hits); !slices.Equal(got, tt.want) {
					t.Errorf("%s search with %+v finds files %v, want %v", leg, tt.filter, got, tt.want)
				}
			}
		})
	}
	hits := mustDense(t, s, "bob", v(1, 0, 0, 0), 10, hs.Filter{PathPrefix: "/"})
	if len(hits) != 0 {
		t.Errorf("a filter widened the search to another user's files: %v", fileIDs(hits))
	}
}

func testPointsWithoutDense(t *testing.T, s Store) {
	a, b := fileMeta(1, "/a.md", "alice"), fileMeta(2, "/b.md", "alice")
	mustWrite(t, s, a, simple(a, v(1, 0, 0, 0)))
	mustWrite(t, s, b, simple(b, nil))
	if got := fileIDs(mustDense(t, s, "alice", v(1, 0, 0, 0), 10, hs.Filter{})); !slices.Equal(got, []hs.FileID{1}) {
		t.Errorf("dense search finds files %v, want [1]", got)
	}
	for _, v := range []string{"bm25", "trigram"} {
		q := map[uint32]float32{1: 1, 2: 1}
		if got := fileIDs(mustSparse(t, s, "alice", v, q, 10, hs.Filter{})); !slices.Equal(got, []hs.FileID{1, 2}) {
			t.Errorf("%s search finds files %v, want [1 2]", v, got)
		}
	}
	if st := mustStats(t, s); st.Points != 2 || st.Files != 2 {
		t.Errorf("Stats() = %+v, want 2 points in 2 files", st)
	}
}

func testTieOrder(t *testing.T, s Store) {
	ids := []hs.FileID{5, 3, 8, 1, 9, 2}
	for _, id := range ids {
		m := fileMeta(id, "/tie"+string(rune('0'+id))+".md", "alice")
		mustWrite(t, s, m, simple(m, v(0, 1, 1, 0)))
	}
	want := sortedIDs(ids...)
	for i := range 3 {
		legs := map[string][]hs.Hit{
			"dense":   mustDense(t, s, "alice", v(0, 1, 1, 0), 10, hs.Filter{}),
			"bm25":    mustSparse(t, s, "alice", "bm25", map[uint32]float32{1: 1}, 10, hs.Filter{}),
			"trigram": mustSparse(t, s, "alice", "trigram", map[uint32]float32{2: 1}, 10, hs.Filter{}),
		}
		for leg, hits := range legs {
			if got := pointIDs(hits); !slices.Equal(got, want) {
				t.Errorf("run %d: tied %s hits = %v, want point id order %v", i, leg, got, want)
			}
		}
	}
}

func testHealthAndContext(t *testing.T, s Store) {
	if err := s.Health(t.Context()); err != nil {
		t.Errorf("Health() = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	m := fileMeta(1, "/a.md", "alice")
	if err := s.WriteFile(ctx, m, []hs.Point{simple(m, v(1, 0, 0, 0))}); err == nil {
		t.Errorf("WriteFile with a cancelled context = nil error")
	}
	if _, err := s.SearchDense(ctx, "alice", v(1, 0, 0, 0), 10, hs.Filter{}); err == nil {
		t.Errorf("SearchDense with a cancelled context = nil error")
	}
	if got := mustPoints(t, s, 1, false); len(got) != 0 {
		t.Errorf("a write with a cancelled context stored %d points", len(got))
	}
}

// testReaderPaths: a file shared with bob sits at his own path. A path
// prefix filters on the searching user's path only (the owner's folder
// names never match for bob), hits carry every reader's path, and a
// metadata update moves the filter along.
func testReaderPaths(t *testing.T, s Store) {
	m := fileMeta(1, "/Secret/HR-X/review-X.md", "alice", "bob")
	m.Paths = map[hs.UserID]string{"alice": "/Secret/HR-X/review-X.md", "bob": "/review-X.md"}
	mustWrite(t, s, m, simple(m, v(1, 0, 0, 0)))
	tests := []struct {
		user   hs.UserID
		prefix string
		want   int
	}{
		{"alice", "/Secret/HR-X", 1},
		{"alice", "/Secret", 1},
		{"alice", "/review-X.md", 0},
		{"bob", "/Secret/HR-X", 0},
		{"bob", "/Secret", 0},
		{"bob", "/", 1},
		{"bob", "/review-X.md", 1},
	}
	for _, tt := range tests {
		f := hs.Filter{PathPrefix: tt.prefix}
		dense := mustDense(t, s, tt.user, v(1, 0, 0, 0), 10, f)
		sparse := mustSparse(t, s, tt.user, "bm25", map[uint32]float32{1: 1}, 10, f)
		if len(dense) != tt.want || len(sparse) != tt.want {
			t.Errorf("%s with path_prefix %q: dense %d, sparse %d hits, want %d", tt.user, tt.prefix, len(dense), len(sparse), tt.want)
		}
	}
	hits := mustDense(t, s, "bob", v(1, 0, 0, 0), 10, hs.Filter{})
	if len(hits) != 1 || hits[0].Point.File.PathOf("bob") != "/review-X.md" || hits[0].Point.File.PathOf("alice") != "/Secret/HR-X/review-X.md" {
		t.Fatalf("hits = %+v, want the file with both readers' paths", hits)
	}
	if got := mustPoints(t, s, 1, false)[0].File.Paths; len(got) != 2 || got["bob"] != "/review-X.md" {
		t.Errorf("FilePoints paths = %v", got)
	}

	// bob moves it into a folder of his.
	m.Paths = map[hs.UserID]string{"alice": "/Secret/HR-X/review-X.md", "bob": "/Reviews/review-X.md"}
	mustUpdate(t, s, m)
	if got := mustDense(t, s, "bob", v(1, 0, 0, 0), 10, hs.Filter{PathPrefix: "/Reviews"}); len(got) != 1 {
		t.Errorf("bob's new folder finds %d hits, want 1", len(got))
	}
	if got := mustDense(t, s, "bob", v(1, 0, 0, 0), 10, hs.Filter{PathPrefix: "/review-X.md"}); len(got) != 0 {
		t.Errorf("bob's old path finds %d hits, want 0", len(got))
	}
	// A path for someone who is not a reader is not kept.
	m.Paths["carol"] = "/x.md"
	mustUpdate(t, s, m)
	if got := mustPoints(t, s, 1, false)[0].File.Paths; got["carol"] != "" {
		t.Errorf("paths = %v, want none for a non-reader", got)
	}
}

// testOmitTextAndReadChunks checks hits without text (Filter.OmitText)
// and reading their chunks back: the same hits and scores, then the same
// chunks, only those of points that exist and user may read.
func testOmitTextAndReadChunks(t *testing.T, s Store) {
	a := fileMeta(1, "/a.md", "alice")
	b := fileMeta(2, "/b.md", "bob")
	shared := fileMeta(3, "/shared.md", "alice", "bob")
	mustWrite(t, s, a,
		point(a, 0, "alpha one", v(1, 0, 0, 0), map[uint32]float32{1: 1}, map[uint32]float32{2: 1}),
		point(a, 1, "alpha two", v(1, 1, 0, 0), map[uint32]float32{1: 2}, map[uint32]float32{2: 1}))
	mustWrite(t, s, b, simple(b, v(1, 0, 0, 0)))
	mustWrite(t, s, shared, simple(shared, v(1, 0.5, 0, 0)))
	lean := hs.Filter{OmitText: true}
	for _, leg := range []struct {
		name string
		run  func(user hs.UserID, f hs.Filter) []hs.Hit
	}{
		{"dense", func(u hs.UserID, f hs.Filter) []hs.Hit {
			return mustDense(t, s, u, v(1, 0, 0, 0), 10, f)
		}},
		{"bm25", func(u hs.UserID, f hs.Filter) []hs.Hit {
			return mustSparse(t, s, u, "bm25", map[uint32]float32{1: 1}, 10, f)
		}},
	} {
		t.Run(leg.name, func(t *testing.T) {
			full, thin := leg.run("alice", hs.Filter{}), leg.run("alice", lean)
			if len(full) != 3 || len(thin) != len(full) {
				t.Fatalf("alice finds %d hits, %d without text; want 3 each", len(full), len(thin))
			}
			for i, h := range thin {
				f := full[i]
				if h.Point.ID != f.Point.ID || h.Score != f.Score || !metaEqual(h.Point.File, f.Point.File) {
					t.Errorf("hit %d without text = %s %v %+v, want %s %v %+v", i, h.Point.ID, h.Score, h.Point.File, f.Point.ID, f.Score, f.Point.File)
				}
				if want := (hs.Chunk{FileID: f.Point.Chunk.FileID, No: f.Point.Chunk.No}); !chunkEqual(h.Point.Chunk, want) {
					t.Errorf("hit %d without text has chunk %+v, want %+v", i, h.Point.Chunk, want)
				}
			}
			checkNoVectors(t, thin)
			read, err := s.ReadChunks(t.Context(), "alice", thin)
			if err != nil {
				t.Fatalf("ReadChunks = %v", err)
			}
			if len(read) != len(full) {
				t.Fatalf("ReadChunks returns %d hits, want %d", len(read), len(full))
			}
			for i, h := range read {
				f := full[i]
				if h.Point.ID != f.Point.ID || h.Score != f.Score || !chunkEqual(h.Point.Chunk, f.Point.Chunk) || !metaEqual(h.Point.File, f.Point.File) {
					t.Errorf("read hit %d = %+v, want %+v", i, h, f)
				}
			}
			checkNoVectors(t, read)
			// Bob reads the shared file's chunk only; carol nothing.
			if got, err := s.ReadChunks(t.Context(), "bob", thin); err != nil || !slices.Equal(fileIDs(got), []hs.FileID{3}) || len(got) != 1 || got[0].Point.Chunk.Text != "text of /shared.md" {
				t.Errorf("ReadChunks as bob = %+v, %v; want the shared file's chunk alone", got, err)
			}
			if got, err := s.ReadChunks(t.Context(), "carol", thin); err != nil || len(got) != 0 {
				t.Errorf("ReadChunks as carol = %+v, %v; want nothing", got, err)
			}
		})
	}
	thin := mustDense(t, s, "alice", v(1, 0, 0, 0), 10, lean)
	missing := thin[0]
	missing.Point.Chunk.No = 7 // no such chunk
	if err := s.DeleteFile(t.Context(), 1); err != nil {
		t.Fatalf("DeleteFile(1) = %v", err)
	}
	got, err := s.ReadChunks(t.Context(), "alice", append(thin, missing))
	if err != nil || len(got) != 1 || got[0].Point.Chunk.FileID != 3 || got[0].Point.Chunk.Text != "text of /shared.md" {
		t.Errorf("ReadChunks after deleting file 1 = %+v, %v; want file 3's chunk alone", got, err)
	}
	if got, err := s.ReadChunks(t.Context(), "alice", nil); err != nil || len(got) != 0 {
		t.Errorf("ReadChunks(nil) = %+v, %v; want nothing", got, err)
	}
	if _, err := s.ReadChunks(t.Context(), "", thin); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("ReadChunks as the empty user = %v, want EINVALID", err)
	}
}

// testReadTerms checks reading hits' bm25 vectors back (ReadTerms): each
// hit gets its chunk and its bm25 vector as written, no other vector, in
// the hits' order; only points that exist and user may read.
func testReadTerms(t *testing.T, s Store) {
	a := fileMeta(1, "/a.md", "alice")
	b := fileMeta(2, "/b.md", "bob")
	shared := fileMeta(3, "/shared.md", "alice", "bob")
	bm25 := map[hs.FileID][]map[uint32]float32{
		1: {{1: 1.5, 7: 0.25}, {1: 2, 9: 1}},
		2: {{1: 1, 8: 3}},
		3: {{1: 0.5, 7: 1, 11: 2}},
	}
	for _, m := range []hs.FileMeta{a, b, shared} {
		var points []hs.Point
		for no, w := range bm25[m.ID] {
			points = append(points, point(m, no, fmt.Sprintf("chunk %d of %s", no, m.Path), v(1, float32(no), 0, 0), w, map[uint32]float32{2: 1}))
		}
		mustWrite(t, s, m, points...)
	}
	hits := mustSparse(t, s, "alice", store.VectorBM25, map[uint32]float32{1: 1}, 10, hs.Filter{OmitText: true})
	if len(hits) != 3 {
		t.Fatalf("alice's sparse search found %d hits, want 3", len(hits))
	}
	slices.Reverse(hits)
	read, err := s.ReadTerms(t.Context(), "alice", hits)
	if err != nil || len(read) != len(hits) {
		t.Fatalf("ReadTerms = %d hits, %v; want %d", len(read), err, len(hits))
	}
	for i, h := range read {
		want := bm25[h.Point.File.ID][h.Point.Chunk.No]
		if h.Point.File.ID != hits[i].Point.File.ID || h.Point.Chunk.No != hits[i].Point.Chunk.No || h.Score != hits[i].Score || h.Point.ID != hs.PointID(h.Point.File.ID, h.Point.Chunk.No) {
			t.Errorf("read hit %d = %+v, want hit %+v with its terms", i, h, hits[i])
		}
		if !sparseEqual(h.Point.BM25, sparse(want)) {
			t.Errorf("hit %d (file %d chunk %d): BM25 = %+v, want %+v", i, h.Point.File.ID, h.Point.Chunk.No, h.Point.BM25, sparse(want))
		}
		if wantText := fmt.Sprintf("chunk %d of %s", h.Point.Chunk.No, h.Point.File.Path); h.Point.Chunk.Text != wantText {
			t.Errorf("hit %d: text %q, want %q", i, h.Point.Chunk.Text, wantText)
		}
		if h.Point.Dense != nil || len(h.Point.Trigram.Indices) > 0 {
			t.Errorf("hit %d: read with vectors other than bm25: %+v", i, h.Point)
		}
	}
	// Bob reads the shared file's terms only; carol nothing; a deleted
	// file's and a missing chunk's are left out.
	if got, err := s.ReadTerms(t.Context(), "bob", hits); err != nil || !slices.Equal(fileIDs(got), []hs.FileID{3}) {
		t.Errorf("ReadTerms as bob = %+v, %v; want the shared file's chunk alone", got, err)
	}
	if got, err := s.ReadTerms(t.Context(), "carol", hits); err != nil || len(got) != 0 {
		t.Errorf("ReadTerms as carol = %+v, %v; want nothing", got, err)
	}
	if err := s.DeleteFile(t.Context(), 1); err != nil {
		t.Fatalf("DeleteFile(1) = %v", err)
	}
	missing := hits[0]
	missing.Point.File.ID, missing.Point.Chunk.No = 3, 7
	if got, err := s.ReadTerms(t.Context(), "alice", append(slices.Clone(hits), missing)); err != nil || !slices.Equal(fileIDs(got), []hs.FileID{3}) {
		t.Errorf("ReadTerms after deleting file 1 = %+v, %v; want file 3's chunk alone", got, err)
	}
	if got, err := s.ReadTerms(t.Context(), "alice", nil); err != nil || len(got) != 0 {
		t.Errorf("ReadTerms(nil) = %+v, %v; want nothing", got, err)
	}
	if _, err := s.ReadTerms(t.Context(), "", hits); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("ReadTerms as the empty user = %v, want EINVALID", err)
	}
}
