package storetest

import (
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// testSparseDocFreq: the counts are the n and N of the IDF SearchSparse
// applies, over all users, for both sparse vectors; a query {i: 1} scores
// a point holding i with value v at IDF(n_i, N)·v, also after a delete.
func testSparseDocFreq(t *testing.T, s Store) {
	docs := []struct {
		id      hs.FileID
		reader  hs.UserID
		bm25    map[uint32]float32
		trigram map[uint32]float32
	}{
		{1, "alice", map[uint32]float32{1: 0.7, 2: 1.3}, map[uint32]float32{9: 1}},
		{2, "bob", map[uint32]float32{2: 1, 3: 2.25}, map[uint32]float32{9: 1, 8: 1}},
		{3, "alice", map[uint32]float32{2: 0.4}, nil},
		{4, "alice", nil, map[uint32]float32{8: 1}}, // no bm25 vector: not in its N
	}
	for _, d := range docs {
		m := fileMeta(d.id, "/f"+string(rune('0'+d.id))+".md", d.reader)
		mustWrite(t, s, m, point(m, 0, "doc", v(1), d.bm25, d.trigram))
	}
	check := func(vector string, indices []uint32, wantDF []int, wantN int) {
		t.Helper()
		df, n, err := s.SparseDocFreq(t.Context(), vector, indices)
		if err != nil || n != wantN || !slices.Equal(df, wantDF) {
			t.Errorf("SparseDocFreq(%s, %v) = %v, %d, %v; want %v, %d", vector, indices, df, n, err, wantDF, wantN)
		}
	}
	check(store.VectorBM25, []uint32{1, 2, 3, 4, 2}, []int{1, 3, 1, 0, 3}, 3)
	check(store.VectorTrigram, []uint32{8, 9, 1}, []int{2, 2, 0}, 3)
	check(store.VectorBM25, nil, []int{}, 3)

	if err := s.DeleteFile(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	df, n, err := s.SparseDocFreq(t.Context(), store.VectorBM25, []uint32{2})
	if err != nil {
		t.Fatal(err)
	}
	hits := mustSparse(t, s, "alice", store.VectorBM25, map[uint32]float32{2: 1}, 10, hs.Filter{})
	if len(hits) != 2 || !near(float64(hits[0].Score), 1.3*store.IDF(df[0], n)) {
		t.Errorf("after a delete: df %v of %d, but the query scores %v (want %v first)", df, n, hits, 1.3*store.IDF(df[0], n))
	}
	if _, _, err := s.SparseDocFreq(t.Context(), store.VectorDense, []uint32{1}); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("SparseDocFreq of the dense vector = %v, want EINVALID", err)
	}
}
