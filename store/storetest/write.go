package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

func testWriteFilePoints(t *testing.T, s Store) {
	m := fileMeta(1, "/Documents/a.md", "alice", "bob")
	p0 := point(m, 0, "first chunk", v(3, 4, 0, 0), map[uint32]float32{10: 1.5, 2: 0.5}, map[uint32]float32{7: 2})
	p0.Chunk.Headings = []string{"Intro", "Part"}
	p0.Chunk.Page = 3
	p1 := point(m, 1, "second chunk, no dense vector", nil, map[uint32]float32{11: 1}, nil)
	p2 := point(m, 2, "third chunk", v(0, 0, 0, 2), nil, map[uint32]float32{8: 1, 9: 1})
	p2.Chunk.Page, p2.Chunk.OCR = 4, true // recognised text keeps its mark
	mustWrite(t, s, m, p2, p0, p1)        // any order in, chunk order out
	want := []hs.Point{p0, p1, p2}

	got := mustPoints(t, s, 1, false)
	if len(got) != len(want) {
		t.Fatalf("FilePoints(1, false) returned %d points, want %d", len(got), len(want))
	}
	for i, p := range got {
		if p.ID != want[i].ID || !chunkEqual(p.Chunk, want[i].Chunk) {
			t.Errorf("FilePoints(1, false)[%d] = %s %+v, want %s %+v", i, p.ID, p.Chunk, want[i].ID, want[i].Chunk)
		}
		if !metaEqual(p.File, m) {
			t.Errorf("FilePoints(1, false)[%d].File = %+v, want %+v", i, p.File, m)
		}
		if p.Dense != nil || len(p.BM25.Indices) > 0 || len(p.Trigram.Indices) > 0 {
			t.Errorf("FilePoints(1, false)[%d] carries vectors", i)
		}
	}

	got = mustPoints(t, s, 1, true)
	if len(got) != len(want) {
		t.Fatalf("FilePoints(1, true) returned %d points, want %d", len(got), len(want))
	}
	for i, p := range got {
		if want[i].Dense == nil && p.Dense != nil {
			t.Errorf("FilePoints(1, true)[%d].Dense = %v, want none", i, p.Dense)
		}
		if want[i].Dense != nil && !nearVec(p.Dense, unit(want[i].Dense)) {
			t.Errorf("FilePoints(1, true)[%d].Dense = %v, want the normalised %v", i, p.Dense, unit(want[i].Dense))
		}
		if !sparseEqual(p.BM25, want[i].BM25) || !sparseEqual(p.Trigram, want[i].Trigram) {
			t.Errorf("FilePoints(1, true)[%d] sparse = %v %v, want %v %v", i, p.BM25, p.Trigram, want[i].BM25, want[i].Trigram)
		}
	}

	if got := mustPoints(t, s, 99, true); len(got) != 0 {
		t.Errorf("FilePoints(absent) = %d points, want none", len(got))
	}
	if got, want := mustStats(t, s), (struct{ Points, Files, Dim int }{3, 1, Dim}); got.Points != want.Points || got.Files != want.Files || got.Dim != want.Dim {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

func testRewriteRemovesExtras(t *testing.T, s Store) {
	m := fileMeta(1, "/a.md", "alice")
	mustWrite(t, s, m,
		point(m, 0, "zero", v(1, 0, 0, 0), map[uint32]float32{1: 1}, nil),
		point(m, 1, "one", v(0, 1, 0, 0), map[uint32]float32{2: 1}, nil),
		point(m, 2, "two", v(0, 0, 1, 0), map[uint32]float32{3: 1}, nil),
	)
	m.ETag = "new"
	mustWrite(t, s, m,
		point(m, 0, "zero v2", v(1, 0, 0, 0), map[uint32]float32{1: 1}, nil),
		point(m, 1, "one v2", v(0, 1, 0, 0), map[uint32]float32{2: 1}, nil),
	)
	got := mustPoints(t, s, 1, false)
	var texts []string
	for _, p := range got {
		texts = append(texts, p.Chunk.Text)
		if p.File.ETag != "new" {
			t.Errorf("point %d has etag %q after the rewrite, want %q", p.Chunk.No, p.File.ETag, "new")
		}
	}
	if want := []string{"zero v2", "one v2"}; !slices.Equal(texts, want) {
		t.Errorf("after rewrite FilePoints texts = %q, want %q", texts, want)
	}
	if hits := mustSparse(t, s, "alice", "bm25", map[uint32]float32{3: 1}, 10, hs.Filter{}); len(hits) != 0 {
		t.Errorf("removed chunk 2 is still found: %v", pointIDs(hits))
	}
	if hits := mustDense(t, s, "alice", v(0, 0, 1, 0), 10, hs.Filter{}); len(hits) != 2 {
		t.Errorf("dense search finds %d points after rewrite, want 2", len(hits))
	}
	if st := mustStats(t, s); st.Points != 2 || st.Files != 1 {
		t.Errorf("Stats() = %+v, want 2 points in 1 file", st)
	}

	mustWrite(t, s, m) // no points: the file is gone
	if got := mustPoints(t, s, 1, false); len(got) != 0 {
		t.Errorf("after writing no points FilePoints = %d points, want none", len(got))
	}
	if got := mustFiles(t, s, "alice"); len(got) != 0 {
		t.Errorf("after writing no points Files(alice) = %v, want none", got)
	}
}

func testUpdateFileMeta(t *testing.T, s Store) {
	m := fileMeta(1, "/Old/a.md", "alice", "bob")
	mustWrite(t, s, m,
		point(m, 0, "zero", v(1, 2, 3, 4), map[uint32]float32{1: 1}, map[uint32]float32{5: 1}),
		point(m, 1, "one", v(4, 3, 2, 1), map[uint32]float32{2: 1}, map[uint32]float32{6: 1}),
	)
	before := mustPoints(t, s, 1, true)

	n := m
	n.Path, n.Title, n.MIME, n.ETag = "/New/sub/a.md", "Renamed", "text/plain", "etag-2"
	n.Modified = base.Add(time.Hour)
	n.Readers = []hs.UserID{"alice"}
	mustUpdate(t, s, n)

	after := mustPoints(t, s, 1, true)
	if len(after) != len(before) {
		t.Fatalf("UpdateFileMeta changed the point count from %d to %d", len(before), len(after))
	}
	for i := range after {
		if !metaEqual(after[i].File, n) {
			t.Errorf("point %d File = %+v, want %+v", i, after[i].File, n)
		}
		if !chunkEqual(after[i].Chunk, before[i].Chunk) || !slices.Equal(after[i].Dense, before[i].Dense) ||
			!sparseEqual(after[i].BM25, before[i].BM25) || !sparseEqual(after[i].Trigram, before[i].Trigram) {
			t.Errorf("UpdateFileMeta changed point %d: %+v, was %+v", i, after[i], before[i])
		}
	}

	q := v(1, 2, 3, 4)
	hits := mustDense(t, s, "alice", q, 10, hs.Filter{PathPrefix: "/New"})
	if len(hits) != 2 {
		t.Fatalf("search under the new path finds %d points, want 2", len(hits))
	}
	for _, h := range hits {
		if !metaEqual(h.Point.File, n) {
			t.Errorf("hit File = %+v, want the new metadata %+v", h.Point.File, n)
		}
	}
	if hits := mustDense(t, s, "alice", q, 10, hs.Filter{PathPrefix: "/Old"}); len(hits) != 0 {
		t.Errorf("search under the old path finds %v, want nothing", pointIDs(hits))
	}
	if hits := mustDense(t, s, "bob", q, 10, hs.Filter{}); len(hits) != 0 {
		t.Errorf("bob, removed from readers, finds %v", pointIDs(hits))
	}

	err := s.UpdateFileMeta(t.Context(), fileMeta(99, "/none.md", "alice"))
	if hs.ErrorKind(err) != hs.ENOTFOUND {
		t.Errorf("UpdateFileMeta(absent) = %v, want ENOTFOUND", err)
	}
	if got := mustFiles(t, s, "alice"); !slices.Equal(got, []hs.FileID{1}) {
		t.Errorf("UpdateFileMeta(absent) created a file: Files(alice) = %v", got)
	}
}

func testDeleteFile(t *testing.T, s Store) {
	a, b := fileMeta(1, "/a.md", "alice"), fileMeta(2, "/b.md", "alice")
	mustWrite(t, s, a, simple(a, v(1, 0, 0, 0)))
	mustWrite(t, s, b, simple(b, v(1, 0, 0, 0)))
	if err := s.DeleteFile(t.Context(), 1); err != nil {
		t.Fatalf("DeleteFile(1) = %v", err)
	}
	if got := mustPoints(t, s, 1, false); len(got) != 0 {
		t.Errorf("FilePoints(deleted) = %d points", len(got))
	}
	want := []hs.FileID{2}
	if got := mustFiles(t, s, "alice"); !slices.Equal(got, want) {
		t.Errorf("Files(alice) = %v, want %v", got, want)
	}
	if got := fileIDs(mustDense(t, s, "alice", v(1, 0, 0, 0), 10, hs.Filter{})); !slices.Equal(got, want) {
		t.Errorf("dense search finds files %v, want %v", got, want)
	}
	for _, v := range []string{"bm25", "trigram"} {
		q := map[uint32]float32{1: 1, 2: 1}
		if got := fileIDs(mustSparse(t, s, "alice", v, q, 10, hs.Filter{})); !slices.Equal(got, want) {
			t.Errorf("%s search finds files %v, want %v", v, got, want)
		}
	}
	if st := mustStats(t, s); st.Points != 1 || st.Files != 1 {
		t.Errorf("Stats() = %+v, want 1 point in 1 file", st)
	}
	for _, id := range []hs.FileID{1, 99} {
		if err := s.DeleteFile(t.Context(), id); err != nil {
			t.Errorf("DeleteFile(absent %d) = %v, want nil", id, err)
		}
	}
}

func testVectorsByHash(t *testing.T, s Store) {
	a, b := fileMeta(1, "/a.md", "alice"), fileMeta(2, "/b.md", "bob")
	mustWrite(t, s, a,
		point(a, 0, "shared text", v(1, 1, 0, 0), nil, nil),
		point(a, 1, "only in a", v(0, 0, 2, 0), nil, nil),
	)
	mustWrite(t, s, b,
		point(b, 0, "shared text", v(1, 1, 0, 0), nil, nil),
		point(b, 1, "not embedded", nil, map[uint32]float32{1: 1}, nil),
	)
	got, err := s.VectorsByHash(t.Context(), []string{hash("shared text"), hash("only in a"), hash("not embedded"), hash("absent")})
	if err != nil {
		t.Fatalf("VectorsByHash = %v", err)
	}
	want := map[string][]float32{
		hash("shared text"): unit(v(1, 1, 0, 0)),
		hash("only in a"):   unit(v(0, 0, 2, 0)),
	}
	if len(got) != len(want) {
		t.Errorf("VectorsByHash returned %d vectors, want %d", len(got), len(want))
	}
	for h, w := range want {
		if !nearVec(got[h], w) {
			t.Errorf("VectorsByHash[%s…] = %v, want %v", h[:8], got[h], w)
		}
	}

	if err := s.DeleteFile(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	got, err = s.VectorsByHash(t.Context(), []string{hash("shared text"), hash("only in a")})
	if err != nil {
		t.Fatalf("VectorsByHash = %v", err)
	}
	if _, ok := got[hash("only in a")]; ok || len(got) != 1 {
		t.Errorf("after deleting file 1 VectorsByHash has %d vectors, want only the shared one", len(got))
	}
	if got, err := s.VectorsByHash(t.Context(), nil); err != nil || len(got) != 0 {
		t.Errorf("VectorsByHash(nil) = %v, %v, want empty", got, err)
	}
}

func testInvalidWrites(t *testing.T, s Store) {
	m := fileMeta(1, "/a.md", "alice")
	mustWrite(t, s, m, simple(m, v(1, 0, 0, 0)))
	tests := []struct {
		name   string
		points func() []hs.Point
		kind   string // "" means any error
	}{
		{"wrong point id", func() []hs.Point {
			p := simple(m, v(0, 1, 0, 0))
			p.ID = hs.PointID(2, 0)
			return []hs.Point{p}
		}, hs.EINVALID},
		{"wrong file", func() []hs.Point {
			p := simple(m, v(0, 1, 0, 0))
			p.Chunk.FileID = 2
			return []hs.Point{p}
		}, hs.EINVALID},
		{"repeated sparse index", func() []hs.Point {
			p := simple(m, v(0, 1, 0, 0))
			p.BM25 = hs.SparseVector{Indices: []uint32{4, 4}, Values: []float32{1, 1}}
			return []hs.Point{p}
		}, hs.EINVALID},
		{"other dimension", func() []hs.Point {
			return []hs.Point{simple(m, v(0, 1, 0)[:Dim-1])}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.WriteFile(t.Context(), m, tt.points())
			if err == nil || (tt.kind != "" && hs.ErrorKind(err) != tt.kind) {
				t.Errorf("WriteFile = %v, want a %q error", err, tt.kind)
			}
			got := mustPoints(t, s, 1, true)
			if len(got) != 1 || !nearVec(got[0].Dense, v(1, 0, 0, 0)) {
				t.Errorf("a failed write changed the file: %+v", got)
			}
		})
	}
}

// largeChunks is the chunk count of testLargeFile: a long document (a
// book, a log) at the indexer's default chunk size.
const largeChunks = 2000

// largePoint returns chunk no of a large file with realistic sizes: about
// 1000 characters of text (some of them multi-byte), a Dim-dimensional
// dense vector, 120 BM25 terms and 800 trigrams.
func largePoint(meta hs.FileMeta, no int, salt string, r *rand.Rand) hs.Point {
	var b strings.Builder
	for b.Len() < 1000 {
		fmt.Fprintf(&b, "Absatz %d-%s über Größe und Maß, chunk %d; ", r.IntN(1000), salt, no)
	}
	dense := make([]float32, Dim)
	for i := range dense {
		dense[i] = float32(r.NormFloat64())
	}
	bm25, tri := map[uint32]float32{}, map[uint32]float32{}
	// Indices from vocabularies of realistic size: a book's distinct
	// words, the trigrams of a language.
	for len(bm25) < 120 {
		bm25[r.Uint32N(20000)] = r.Float32() + 0.1
	}
	for len(tri) < 800 {
		tri[r.Uint32N(8000)] = r.Float32() + 0.1
	}
	return point(meta, no, b.String(), dense, bm25, tri)
}

// testLargeFile writes, reads back and rewrites a file of largeChunks
// realistic chunks: every page of FilePoints with vectors, and every
// batch of a write, must fit the store's message limits (a Qdrant scroll
// page of 512 such points is over gRPC's 4 MiB).
func testLargeFile(t *testing.T, s Store) {
	r := rand.New(rand.NewPCG(1, 2))
	m := fileMeta(9, "/book.md", "alice")
	pts := make([]hs.Point, largeChunks)
	for i := range pts {
		pts[i] = largePoint(m, i, "v1", r)
	}
	mustWrite(t, s, m, pts...)
	got := mustPoints(t, s, 9, true)
	if len(got) != largeChunks {
		t.Fatalf("FilePoints(withVectors) = %d points, want %d", len(got), largeChunks)
	}
	for i, p := range got {
		if p.Chunk.No != i || !chunkEqual(p.Chunk, pts[i].Chunk) || !nearVec(p.Dense, unit(pts[i].Dense)) ||
			!sparseEqual(p.BM25, pts[i].BM25) || !sparseEqual(p.Trigram, pts[i].Trigram) {
			t.Fatalf("point %d does not read back as written", i)
		}
	}
	hashes := make([]string, len(pts))
	for i, p := range pts {
		hashes[i] = p.Chunk.Hash
	}
	vecs, err := s.VectorsByHash(t.Context(), hashes)
	if err != nil || len(vecs) != largeChunks {
		t.Fatalf("VectorsByHash(%d hashes) = %d vectors, %v", len(hashes), len(vecs), err)
	}

	// Rewrite: the first half unchanged, the rest new and shorter.
	next := slices.Clone(pts[:largeChunks/2])
	for i := largeChunks / 2; i < largeChunks*3/4; i++ {
		next = append(next, largePoint(m, i, "v2", r))
	}
	mustWrite(t, s, m, next...)
	got = mustPoints(t, s, 9, true)
	if len(got) != len(next) {
		t.Fatalf("after the rewrite FilePoints = %d points, want %d", len(got), len(next))
	}
	for i, p := range got {
		if !chunkEqual(p.Chunk, next[i].Chunk) || !nearVec(p.Dense, unit(next[i].Dense)) {
			t.Fatalf("rewritten point %d does not read back as written", i)
		}
	}
	if st := mustStats(t, s); st.Points != len(next) || st.Files != 1 {
		t.Errorf("Stats() = %+v, want %d points in 1 file", st, len(next))
	}
	if err := s.DeleteFile(t.Context(), 9); err != nil {
		t.Fatalf("DeleteFile = %v", err)
	}
	if got := mustPoints(t, s, 9, false); len(got) != 0 {
		t.Errorf("%d points left after DeleteFile", len(got))
	}
}

// testUpsertAndTrim writes a file in batches (UpsertPoints), then a
// shorter new version over it followed by TrimFile, the way the indexer
// writes files too large to hold at once.
func testUpsertAndTrim(t *testing.T, s Store) {
	ctx := t.Context()
	m := fileMeta(4, "/log.txt", "alice")
	var v1 []hs.Point
	for i := range 10 {
		v1 = append(v1, point(m, i, fmt.Sprintf("line %d of version one", i), v(1, float32(i), 0, 0), map[uint32]float32{uint32(i): 1}, nil))
	}
	for start := 0; start < len(v1); start += 3 {
		if err := s.UpsertPoints(ctx, m, v1[start:min(start+3, len(v1))]); err != nil {
			t.Fatalf("UpsertPoints = %v", err)
		}
	}
	got := mustPoints(t, s, 4, false)
	if len(got) != 10 {
		t.Fatalf("after 4 batches FilePoints = %d points, want 10", len(got))
	}
	for i, p := range got {
		if !chunkEqual(p.Chunk, v1[i].Chunk) || !metaEqual(p.File, m) {
			t.Fatalf("point %d = %+v, want %+v", i, p, v1[i])
		}
	}
	if hits := mustSparse(t, s, "alice", "bm25", map[uint32]float32{7: 1}, 10, hs.Filter{}); len(hits) != 1 || hits[0].Point.Chunk.No != 7 {
		t.Errorf("search for chunk 7's term = %v", pointIDs(hits))
	}

	// Version two: six chunks, now also read by bob.
	m2 := fileMeta(4, "/log.txt", "alice", "bob")
	m2.ETag = "etag-2"
	var v2 []hs.Point
	for i := range 6 {
		v2 = append(v2, point(m2, i, fmt.Sprintf("line %d of version two", i), v(0, 1, float32(i), 0), map[uint32]float32{uint32(100 + i): 1}, nil))
	}
	for start := 0; start < len(v2); start += 4 {
		if err := s.UpsertPoints(ctx, m2, v2[start:min(start+4, len(v2))]); err != nil {
			t.Fatalf("UpsertPoints v2 = %v", err)
		}
	}
	if err := s.TrimFile(ctx, 4, len(v2)); err != nil {
		t.Fatalf("TrimFile = %v", err)
	}
	got = mustPoints(t, s, 4, true)
	if len(got) != len(v2) {
		t.Fatalf("after the rewrite and trim FilePoints = %d points, want %d", len(got), len(v2))
	}
	for i, p := range got {
		if !chunkEqual(p.Chunk, v2[i].Chunk) || !metaEqual(p.File, m2) || !nearVec(p.Dense, unit(v2[i].Dense)) {
			t.Fatalf("point %d after the rewrite = %+v, want %+v", i, p.Chunk, v2[i].Chunk)
		}
	}
	if hits := mustSparse(t, s, "bob", "bm25", map[uint32]float32{103: 1}, 10, hs.Filter{}); len(hits) != 1 {
		t.Errorf("bob, a reader of version two, finds %v", pointIDs(hits))
	}
	if hits := mustSparse(t, s, "alice", "bm25", map[uint32]float32{8: 1}, 10, hs.Filter{}); len(hits) != 0 {
		t.Errorf("a trimmed chunk is still found: %v", pointIDs(hits))
	}
	vecs, err := s.VectorsByHash(ctx, []string{v1[8].Chunk.Hash, v2[5].Chunk.Hash})
	if err != nil || len(vecs) != 1 || vecs[v2[5].Chunk.Hash] == nil {
		t.Errorf("VectorsByHash after the trim = %d vectors, %v; want only version two's", len(vecs), err)
	}
	if st := mustStats(t, s); st.Points != len(v2) || st.Files != 1 {
		t.Errorf("Stats() = %+v, want %d points in 1 file", st, len(v2))
	}

	if err := s.TrimFile(ctx, 4, 0); err != nil {
		t.Fatalf("TrimFile(0) = %v", err)
	}
	if got := mustPoints(t, s, 4, false); len(got) != 0 {
		t.Errorf("TrimFile(0) left %d points", len(got))
	}
	if err := s.TrimFile(ctx, 99, 3); err != nil {
		t.Errorf("TrimFile of an absent file = %v", err)
	}
	if got := mustFiles(t, s, "alice"); len(got) != 0 {
		t.Errorf("Files(alice) = %v after the file was trimmed away", got)
	}
}
