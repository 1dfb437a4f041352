package local

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
	"github.com/hybrid-search/hybridsearch/store"
)

// BenchmarkGraphMin measures where a group's graph starts to pay: for
// groups of growing size (capacity vectors, one reader), the exact scan's
// latency beside the graph walk's (with its rescoring) and the walk's
// recall@10, at k=100 as the service asks. DefaultGraphMin is chosen from
// it. GRAPHMIN_SIZES sets the sizes (default 5k,10k,20k,40k,80k).
func BenchmarkGraphMin(b *testing.B) {
	sizes := capSizes(os.Getenv("GRAPHMIN_SIZES"), []int{5_000, 10_000, 20_000, 40_000, 80_000})
	if benchsmoke.On() {
		sizes = []int{1_000}
	}
	for b.Loop() {
		fmt.Printf("graph against scan, one group, k=%d (load %s)\n%8s %16s %16s %10s\n", legK, capLoad(), "points", "scan p50/p99", "graph p50/p99", "recall@10")
		for _, n := range sizes {
			scan, walk, recall := graphMinRun(b, n)
			fmt.Printf("%8s %16s %16s %10.4f\n", short(n), scan, walk, recall)
		}
	}
}

// graphMinRun builds one group of n capacity vectors with a graph and
// measures it.
func graphMinRun(b *testing.B, n int) (scan, walk capLat, recall float64) {
	d := newCapData("mix", n)
	s, err := Open(b.TempDir(), Options{GraphMin: 1, Logger: capLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, f := range d.files {
		pts := d.points(f, 0)
		meta := pts[0].File
		meta.Readers = []hs.UserID{"u"}
		for i := range pts {
			pts[i].File = meta
			pts[i].BM25, pts[i].Trigram = hs.SparseVector{}, hs.SparseVector{}
		}
		if err := s.WriteFile(ctx, meta, pts); err != nil {
			b.Fatal(err)
		}
	}
	s.waitIndexed()
	found, want := 0, 0
	m := newMatcher("u", capFilter)
	for _, q := range d.denseQueries(100) {
		q = store.Normalized(q)
		var exact, got []scored
		t0 := time.Now()
		s.mu.RLock()
		exact = s.idx.searchDense(ctx, "u", q, legK, &m, true)
		s.mu.RUnlock()
		scan = append(scan, time.Since(t0))
		t0 = time.Now()
		s.mu.RLock()
		got = s.idx.searchDense(ctx, "u", q, legK, &m, false)
		s.mu.RUnlock()
		walk = append(walk, time.Since(t0))
		for _, e := range exact[:min(10, len(exact))] {
			for _, g := range got[:min(10, len(got))] {
				if g.slot == e.slot {
					found++
					break
				}
			}
		}
		want += min(10, len(exact))
	}
	return scan, walk, float64(found) / float64(max(want, 1))
}
