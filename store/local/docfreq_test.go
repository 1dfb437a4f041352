package local_test

import (
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// TestSparseDocFreq: the counts are those IDF uses in SearchSparse, over
// all users, and follow deletes.
func TestSparseDocFreq(t *testing.T) {
	s := mustOpen(t, t.TempDir(), local.Options{})
	ctx := t.Context()
	file := func(id hs.FileID, user hs.UserID, bm25 ...uint32) {
		meta := hs.FileMeta{ID: id, Path: "/f.md", Title: "f", Type: hs.DocFile, Readers: []hs.UserID{user}}
		v := hs.SparseVector{Indices: bm25, Values: make([]float32, len(bm25))}
		for i := range v.Values {
			v.Values[i] = 1
		}
		p := hs.Point{ID: hs.PointID(id, 0), Chunk: hs.Chunk{FileID: id, Text: "x", Hash: "h"}, File: meta, BM25: v, Trigram: hs.SparseVector{Indices: []uint32{9}, Values: []float32{1}}}
		if err := s.WriteFile(ctx, meta, []hs.Point{p}); err != nil {
			t.Fatal(err)
		}
	}
	file(1, "alice", 1, 2)
	file(2, "bob", 2, 3)
	file(3, "alice", 2)
	df, total, err := s.SparseDocFreq(ctx, store.VectorBM25, []uint32{1, 2, 3, 4})
	if err != nil || total != 3 || !slices.Equal(df, []int{1, 3, 1, 0}) {
		t.Errorf("SparseDocFreq = %v, %d, %v; want [1 3 1 0], 3", df, total, err)
	}
	if err := s.DeleteFile(ctx, 2); err != nil {
		t.Fatal(err)
	}
	df, total, _ = s.SparseDocFreq(ctx, store.VectorBM25, []uint32{2, 3})
	if total != 2 || !slices.Equal(df, []int{2, 0}) {
		t.Errorf("after a delete: %v, %d; want [2 0], 2", df, total)
	}
	if _, _, err := s.SparseDocFreq(ctx, "dense", nil); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("unknown vector: %v, want EINVALID", err)
	}
}
