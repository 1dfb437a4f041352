package storetest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// Store is the method set under test, shared by local.Store and
// qdrant.Store.
type Store interface {
	WriteFile(ctx context.Context, meta hs.FileMeta, points []hs.Point) error
	UpsertPoints(ctx context.Context, meta hs.FileMeta, points []hs.Point) error
	TrimFile(ctx context.Context, id hs.FileID, keep int) error
	UpdateFileMeta(ctx context.Context, meta hs.FileMeta) error
	DeleteFile(ctx context.Context, id hs.FileID) error
	FilePoints(ctx context.Context, id hs.FileID, withVectors bool) ([]hs.Point, error)
	VectorsByHash(ctx context.Context, hashes []string) (map[string][]float32, error)
	SearchDense(ctx context.Context, user hs.UserID, vec []float32, k int, f hs.Filter) ([]hs.Hit, error)
	SearchSparse(ctx context.Context, user hs.UserID, vector string, q hs.SparseVector, k int, f hs.Filter) ([]hs.Hit, error)
	ReadChunks(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error)
	ReadTerms(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error)
	SparseDocFreq(ctx context.Context, vector string, indices []uint32) ([]int, int, error)
	Files(ctx context.Context, user hs.UserID) ([]hs.FileMeta, error)
	PointsByID(ctx context.Context, user hs.UserID, ids []string) ([]hs.Point, error)
	SamplePoints(ctx context.Context, user hs.UserID, n int, f hs.Filter) ([]hs.Point, error)
	Stats(ctx context.Context) (store.Stats, error)
	Health(ctx context.Context) error
	Close() error
}

// Dim is the dense dimension of every vector Run writes and queries; a
// store that needs it up front (a Qdrant collection) is created with it.
// It is a real model's (nomic-embed-text), so message and page sizes are
// those of production.
const Dim = 768

// v returns a Dim-dimensional vector that starts with xs and is zero
// after them.
func v(xs ...float32) []float32 {
	out := make([]float32, Dim)
	copy(out, xs)
	return out
}

// Run runs the contract as subtests. open must return a new, empty store
// each time it is called and arrange for it to be closed (t.Cleanup).
func Run(t *testing.T, open func(t *testing.T) Store) {
	tests := []struct {
		name string
		run  func(t *testing.T, s Store)
	}{
		{"WriteFilePoints", testWriteFilePoints},
		{"RewriteRemovesExtras", testRewriteRemovesExtras},
		{"UpdateFileMeta", testUpdateFileMeta},
		{"DeleteFile", testDeleteFile},
		{"VectorsByHash", testVectorsByHash},
		{"InvalidWrites", testInvalidWrites},
		{"SearchDenseRanking", testSearchDenseRanking},
		{"SearchSparseIDF", testSearchSparseIDF},
		{"SearchTrigram", testSearchTrigram},
		{"SparseDocFreq", testSparseDocFreq},
		{"Isolation", testIsolation},
		{"OmitTextAndReadChunks", testOmitTextAndReadChunks},
		{"ReadTerms", testReadTerms},
		{"EmptyUser", testEmptyUser},
		{"BadArguments", testBadArguments},
		{"Filters", testFilters},
		{"PointsWithoutDense", testPointsWithoutDense},
		{"TieOrder", testTieOrder},
		{"HealthAndContext", testHealthAndContext},
		{"PointsByID", testPointsByID},
		{"SamplePoints", testSamplePoints},
		{"ReaderPaths", testReaderPaths},
		{"UpsertAndTrim", testUpsertAndTrim},
		{"LargeFile", testLargeFile},
		{"ReaderSets", testReaderSets},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, open(t))
		})
	}
}

// base is the modification time of test files; Qdrant payloads keep at
// least second precision, so times are whole seconds in UTC.
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fileMeta returns the metadata of a test file.
func fileMeta(id hs.FileID, path string, readers ...hs.UserID) hs.FileMeta {
	return hs.FileMeta{
		ID:       id,
		Path:     path,
		Title:    path[1:],
		MIME:     "text/markdown",
		Type:     hs.DocFile,
		Modified: base,
		ETag:     "etag-" + path,
		Size:     1234,
		Readers:  readers,
	}
}

// sparse returns the sparse vector of an index → value map.
func sparse(m map[uint32]float32) hs.SparseVector {
	var v hs.SparseVector
	for _, i := range slices.Sorted(maps.Keys(m)) {
		v.Indices = append(v.Indices, i)
		v.Values = append(v.Values, m[i])
	}
	return v
}

// hash returns a chunk hash as the indexer computes it.
func hash(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}

// point returns chunk no of the file with the given vectors; dense may be
// nil, the maps empty.
func point(meta hs.FileMeta, no int, text string, dense []float32, bm25, trigram map[uint32]float32) hs.Point {
	return hs.Point{
		ID: hs.PointID(meta.ID, no),
		Chunk: hs.Chunk{
			FileID: meta.ID, No: no, Text: text,
			Start: no * 100, End: no*100 + len([]rune(text)),
			Headings: []string{"Title"}, Hash: hash(text),
		},
		File:    meta,
		Dense:   dense,
		BM25:    sparse(bm25),
		Trigram: sparse(trigram),
	}
}

// simple returns a one-chunk file's point with every vector set.
func simple(meta hs.FileMeta, dense []float32) hs.Point {
	return point(meta, 0, "text of "+meta.Path, dense, map[uint32]float32{1: 1}, map[uint32]float32{2: 1})
}

func mustWrite(t *testing.T, s Store, meta hs.FileMeta, points ...hs.Point) {
	t.Helper()
	if err := s.WriteFile(t.Context(), meta, points); err != nil {
		t.Fatalf("WriteFile(%d) = %v", meta.ID, err)
	}
}

func mustUpdate(t *testing.T, s Store, meta hs.FileMeta) {
	t.Helper()
	if err := s.UpdateFileMeta(t.Context(), meta); err != nil {
		t.Fatalf("UpdateFileMeta(%d) = %v", meta.ID, err)
	}
}

func mustPoints(t *testing.T, s Store, id hs.FileID, withVectors bool) []hs.Point {
	t.Helper()
	ps, err := s.FilePoints(t.Context(), id, withVectors)
	if err != nil {
		t.Fatalf("FilePoints(%d) = %v", id, err)
	}
	return ps
}

func mustDense(t *testing.T, s Store, user hs.UserID, vec []float32, k int, f hs.Filter) []hs.Hit {
	t.Helper()
	hits, err := s.SearchDense(t.Context(), user, vec, k, f)
	if err != nil {
		t.Fatalf("SearchDense(%s) = %v", user, err)
	}
	return hits
}

func mustSparse(t *testing.T, s Store, user hs.UserID, vector string, q map[uint32]float32, k int, f hs.Filter) []hs.Hit {
	t.Helper()
	hits, err := s.SearchSparse(t.Context(), user, vector, sparse(q), k, f)
	if err != nil {
		t.Fatalf("SearchSparse(%s, %s) = %v", user, vector, err)
	}
	return hits
}

func mustFiles(t *testing.T, s Store, user hs.UserID) []hs.FileID {
	t.Helper()
	metas, err := s.Files(t.Context(), user)
	if err != nil {
		t.Fatalf("Files(%s) = %v", user, err)
	}
	ids := make([]hs.FileID, len(metas))
	for i, m := range metas {
		ids[i] = m.ID
	}
	slices.Sort(ids)
	return ids
}

func mustStats(t *testing.T, s Store) store.Stats {
	t.Helper()
	st, err := s.Stats(t.Context())
	if err != nil {
		t.Fatalf("Stats() = %v", err)
	}
	return st
}

// fileIDs returns the sorted distinct files of hits.
func fileIDs(hits []hs.Hit) []hs.FileID {
	var ids []hs.FileID
	for _, h := range hits {
		ids = append(ids, h.Point.Chunk.FileID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// pointIDs returns the point ids of hits in order.
func pointIDs(hits []hs.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Point.ID
	}
	return ids
}

// unit returns v scaled to length 1.
func unit(v []float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / math.Sqrt(ss))
	}
	return out
}

func cosine(a, b []float32) float64 {
	var d float64
	ua, ub := unit(a), unit(b)
	for i := range ua {
		d += float64(ua[i]) * float64(ub[i])
	}
	return d
}

func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-4*max(1, math.Abs(want))
}

func nearVec(got, want []float32) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > 1e-5 {
			return false
		}
	}
	return true
}

// metaEqual compares metadata as a store round-trips it: times by instant,
// nil and empty readers alike.
func metaEqual(a, b hs.FileMeta) bool {
	return a.ID == b.ID && a.Path == b.Path && a.Title == b.Title && a.MIME == b.MIME &&
		a.Type == b.Type && a.Modified.Equal(b.Modified) && a.ETag == b.ETag &&
		a.Size == b.Size && slices.Equal(a.Readers, b.Readers) && maps.Equal(a.Paths, b.Paths)
}

// chunkEqual compares chunks with nil and empty headings alike.
func chunkEqual(a, b hs.Chunk) bool {
	return a.FileID == b.FileID && a.No == b.No && a.Text == b.Text && a.Start == b.Start &&
		a.End == b.End && slices.Equal(a.Headings, b.Headings) && a.Page == b.Page && a.OCR == b.OCR && a.Hash == b.Hash
}

func sparseEqual(a, b hs.SparseVector) bool {
	return slices.Equal(a.Indices, b.Indices) && slices.Equal(a.Values, b.Values)
}

// checkNoVectors fails when a hit carries vectors.
func checkNoVectors(t *testing.T, hits []hs.Hit) {
	t.Helper()
	for _, h := range hits {
		if h.Point.Dense != nil || len(h.Point.BM25.Indices) > 0 || len(h.Point.Trigram.Indices) > 0 {
			t.Errorf("hit %s carries vectors", h.Point.ID)
		}
	}
}

// sortedIDs returns the point ids of the files' chunk 0, sorted: the order
// of tied hits.
func sortedIDs(files ...hs.FileID) []string {
	ids := make([]string, len(files))
	for i, f := range files {
		ids[i] = hs.PointID(f, 0)
	}
	slices.SortFunc(ids, cmp.Compare)
	return ids
}
