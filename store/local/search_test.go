package local_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// TestLocalTieBoundary checks that ties at the k-th place are cut by point
// id, so the same query always returns the same hits.
func TestLocalTieBoundary(t *testing.T) {
	s := mustOpen(t, t.TempDir(), local.Options{})
	var ids []string
	for i := 1; i <= 6; i++ {
		id := hs.FileID(i)
		meta := hs.FileMeta{ID: id, Readers: []hs.UserID{"alice"}}
		p := hs.Point{
			ID: hs.PointID(id, 0), Chunk: hs.Chunk{FileID: id},
			Dense:   []float32{1, 1},
			BM25:    hs.SparseVector{Indices: []uint32{1}, Values: []float32{1}},
			Trigram: hs.SparseVector{Indices: []uint32{1}, Values: []float32{1}},
		}
		if err := s.WriteFile(t.Context(), meta, []hs.Point{p}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	slices.Sort(ids)
	q := hs.SparseVector{Indices: []uint32{1}, Values: []float32{1}}
	for k := 1; k <= 6; k++ {
		dense, err := s.SearchDense(t.Context(), "alice", []float32{2, 2}, k, hs.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		bm25, err := s.SearchSparse(t.Context(), "alice", store.VectorBM25, q, k, hs.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		trigram, err := s.SearchSparse(t.Context(), "alice", store.VectorTrigram, q, k, hs.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		for leg, hits := range map[string][]hs.Hit{"dense": dense, "bm25": bm25, "trigram": trigram} {
			if got := hitIDs(hits); !slices.Equal(got, ids[:k]) {
				t.Errorf("%s k=%d: %v, want %v", leg, k, got, ids[:k])
			}
		}
	}
}

func hitIDs(hits []hs.Hit) []string {
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.Point.ID)
	}
	return ids
}

// TestLocalLargeDense crosses the size at which the dense scan is split
// across goroutines, and checks the merged top k against brute force.
func TestLocalLargeDense(t *testing.T) {
	const dim = 8
	rng := rand.New(rand.NewPCG(3, 4))
	s := mustOpen(t, t.TempDir(), local.Options{})
	m := newModel()
	for i := 1; i <= 600; i++ {
		id := hs.FileID(i)
		readers := []hs.UserID{"alice"}
		if i%5 == 0 {
			readers = []hs.UserID{"bob"}
		}
		meta := hs.FileMeta{ID: id, Path: fmt.Sprintf("/d%d/f.md", i%3), Readers: readers}
		var points []hs.Point
		for no := range 10 {
			points = append(points, hs.Point{
				ID: hs.PointID(id, no), Chunk: hs.Chunk{FileID: id, No: no},
				Dense: randDense(rng, dim),
			})
		}
		if err := s.WriteFile(t.Context(), meta, points); err != nil {
			t.Fatal(err)
		}
		m.write(meta, points)
	}
	for _, k := range []int{1, 10, store.MaxK} {
		for _, u := range []hs.UserID{"alice", "bob"} {
			q := randDense(rng, dim)
			hits, err := s.SearchDense(t.Context(), u, q, k, hs.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			checkTopK(t, fmt.Sprintf("dense %s k=%d", u, k), hits, m.dense(u, q), k)
		}
	}
	hits, err := s.SearchDense(t.Context(), "alice", randDense(rng, dim), store.MaxK, hs.Filter{PathPrefix: "/d1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Point.File.Path != "/d1/f.md" {
			t.Fatalf("filtered search returned %s", h.Point.File.Path)
		}
	}
	if len(hits) != store.MaxK {
		t.Errorf("filtered search returned %d hits, want %d", len(hits), store.MaxK)
	}
}

// TestLocalConcurrent runs writers and searchers at once (meant for -race)
// and checks the result against each writer's model.
func TestLocalConcurrent(t *testing.T) {
	const dim = 8
	dir := t.TempDir()
	s, err := local.Open(dir, local.Options{CompactBytes: 32 << 10, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	models := make([]*model, 4)
	var wg sync.WaitGroup
	for w := range models {
		models[w] = newModel()
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for range 60 {
				id := hs.FileID(w*1000 + 1 + rng.IntN(15))
				if rng.IntN(5) == 0 {
					if err := s.DeleteFile(t.Context(), id); err != nil {
						t.Errorf("DeleteFile = %v", err)
						return
					}
					delete(models[w].files, id)
					continue
				}
				meta, points := randFile(rng, id, testUsers, dim)
				if err := s.WriteFile(t.Context(), meta, points); err != nil {
					t.Errorf("WriteFile = %v", err)
					return
				}
				models[w].write(meta, points)
			}
		})
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 10))
			for range 60 {
				u := testUsers[rng.IntN(len(testUsers))]
				if _, err := s.SearchDense(t.Context(), u, randDense(rng, dim), 5, hs.Filter{}); err != nil {
					t.Errorf("SearchDense = %v", err)
				}
				if _, err := s.SearchSparse(t.Context(), u, store.VectorTrigram, randSparse(rng, 40, 5), 5, hs.Filter{}); err != nil {
					t.Errorf("SearchSparse = %v", err)
				}
				if _, err := s.Files(t.Context(), u); err != nil {
					t.Errorf("Files = %v", err)
				}
			}
		})
	}
	wg.Wait()
	all := newModel()
	for _, m := range models {
		for id, ps := range m.files {
			all.files[id] = ps
		}
	}
	rng := rand.New(rand.NewPCG(11, 12))
	checkModel(t, s, all, rng, testUsers, dim)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	checkModel(t, mustOpen(t, dir, local.Options{}), all, rng, testUsers, dim)
}

// TestLocalChurn rewrites many chunks so dead slots are purged from the
// posting lists and reused, and checks every leg against brute force.
func TestLocalChurn(t *testing.T) {
	const dim = 4
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	s := mustOpen(t, dir, local.Options{})
	m := newModel()
	for round := range 5 {
		for f := 1; f <= 40; f++ {
			id := hs.FileID(f)
			meta := hs.FileMeta{ID: id, Readers: randReaders(rng, testUsers)}
			var points []hs.Point
			for no := range 20 + rng.IntN(20) {
				points = append(points, hs.Point{
					ID:      hs.PointID(id, no),
					Chunk:   hs.Chunk{FileID: id, No: no, Hash: fmt.Sprint(round, no)},
					Dense:   randDense(rng, dim),
					BM25:    randSparse(rng, 40, 6),
					Trigram: randSparse(rng, 40, 10),
				})
			}
			if err := s.WriteFile(t.Context(), meta, points); err != nil {
				t.Fatal(err)
			}
			m.write(meta, points)
		}
		checkModel(t, s, m, rng, testUsers, dim)
	}
	if st, _ := s.Stats(t.Context()); st.Points > 40*40 {
		t.Errorf("Stats().Points = %d after churn", st.Points)
	}
	s.Close()
	checkModel(t, mustOpen(t, dir, local.Options{}), m, rng, testUsers, dim)
}
