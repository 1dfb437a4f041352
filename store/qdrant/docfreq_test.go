package qdrant_test

import (
	"slices"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"

	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
)

// TestQdrantDocFreqCache: within the TTL a repeated lookup costs no call,
// a new index one batch query for it alone; the vector count is read once.
func TestQdrantDocFreqCache(t *testing.T) {
	srv := qdranttest.NewServer(t)
	s := mustOpenQdrant(t, fakeOptions(srv))
	ctx := t.Context()
	calls := func() (batches, counts int, last []uint32) {
		for _, m := range srv.RequestsFor(qc.Points_QueryBatch_FullMethodName) {
			batches++
			last = nil
			for _, q := range m.(*qc.QueryBatchPoints).GetQueryPoints() {
				last = append(last, q.GetQuery().GetNearest().GetSparse().GetIndices()...)
			}
		}
		for _, m := range srv.RequestsFor(qc.Points_Count_FullMethodName) {
			if len(m.(*qc.CountPoints).GetFilter().GetMust()) > 0 {
				counts++
			}
		}
		return batches, counts, last
	}
	for range 2 {
		if _, _, err := s.SparseDocFreq(ctx, store.VectorBM25, []uint32{1, 2, 1}); err != nil {
			t.Fatal(err)
		}
	}
	if b, c, last := calls(); b != 1 || c != 1 || !slices.Equal(last, []uint32{1, 2}) {
		t.Errorf("two lookups of [1 2 1]: %d batches (last %v), %d counts; want 1 batch of [1 2], 1 count", b, last, c)
	}
	if _, _, err := s.SparseDocFreq(ctx, store.VectorBM25, []uint32{2, 3}); err != nil {
		t.Fatal(err)
	}
	if b, c, last := calls(); b != 2 || c != 1 || !slices.Equal(last, []uint32{3}) {
		t.Errorf("then [2 3]: %d batches (last %v), %d counts; want 2, the last of [3], 1 count", b, last, c)
	}
	if _, _, err := s.SparseDocFreq(ctx, store.VectorTrigram, []uint32{2}); err != nil {
		t.Fatal(err)
	}
	if b, c, _ := calls(); b != 3 || c != 2 {
		t.Errorf("the trigram vector has counts of its own: %d batches, %d counts; want 3, 2", b, c)
	}
}
