package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// BenchmarkViz reports GET /api/viz latency (p50-ms, p99-ms) at 10,000
// chunks with the default sample, in the semantic space (768-dim
// embeddings) and the keyword space (no embedder), next to the hybrid
// search the map is drawn around (the reference), and their ratio
// (x-search: viz p50 / search p50).
//
//	go test -run '^$' -bench Viz -benchtime 200x ./search/
func BenchmarkViz(b *testing.B) {
	c := buildBenchCorpus(b, 10_000)
	withModel := c.service(b)
	noModel, err := New(Options{Dense: c.store, Sparse: c.store, Chunks: c.store})
	if err != nil {
		b.Fatal(err)
	}
	for _, tt := range []struct {
		space string
		s     *Service
	}{{hs.SpaceSemantic, withModel}, {hs.SpaceKeyword, noModel}} {
		b.Run(fmt.Sprintf("chunks=10000/space=%s", tt.space), func(b *testing.B) {
			v, err := NewViz(tt.s, c.store)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			var searchLat, vizLat []time.Duration
			i := 0
			for b.Loop() {
				req := hs.SearchRequest{Query: c.queries[i%len(c.queries)]}
				i++
				t0 := time.Now()
				if _, err := tt.s.Search(ctx, "alice", req); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				res, err := v.Viz(ctx, "alice", req, 0)
				if err != nil || res.Space != tt.space || len(res.Points) < hs.DefaultSearchRules().DefaultVizSample {
					b.Fatalf("viz %q: space %q, %d points, %v", req.Query, res.Space, len(res.Points), err)
				}
				vizLat = append(vizLat, time.Since(t1))
				searchLat = append(searchLat, t1.Sub(t0))
			}
			b.StopTimer()
			reportLatencies(b, vizLat, searchLat)
		})
	}
}

// BenchmarkFitPCA times the projection alone on the map's default size
// (300 sampled and about 30 result chunks): 768-dim embeddings, and BM25
// rows of about 80 terms over a Zipf vocabulary of 50,000 (some 9,000
// columns in use).
//
//	go test -run '^$' -bench FitPCA ./search/
func BenchmarkFitPCA(b *testing.B) {
	const n = 330
	rng := rand.New(rand.NewPCG(5, 6))
	dm := &denseMatrix{n: n, d: 768}
	for range n * 768 {
		dm.data = append(dm.data, float32(rng.NormFloat64()))
	}
	zipf := rand.NewZipf(rng, 1.07, 2, 49_999)
	col := map[uint64]int32{}
	sm := &sparseMatrix{}
	for range n {
		w := map[int32]float64{}
		for range 120 {
			t := zipf.Uint64()
			c, ok := col[t]
			if !ok {
				c = int32(len(col))
				col[t] = c
			}
			w[c] += 1
		}
		var ix []int32
		var vals []float64
		for c, v := range w {
			ix = append(ix, c)
			vals = append(vals, v)
		}
		normalize(vals)
		sm.idx, sm.val = append(sm.idx, ix), append(sm.val, vals)
	}
	sm.d = len(col)
	for name, m := range map[string]matrix{"dense": dm, "sparse": sm} {
		b.Run(fmt.Sprintf("%s/rows=%d/cols=%d", name, m.rows(), m.cols()), func(b *testing.B) {
			for b.Loop() {
				fitPCA(m)
			}
		})
	}
}
