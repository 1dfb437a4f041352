package search

import (
	"context"
	"fmt"
	"slices"
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
	noModel, err := New(Options{Dense: c.store, Sparse: c.store})
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
				if err != nil || res.Space != tt.space || len(res.Points) < DefaultVizSample {
					b.Fatalf("viz %q: space %q, %d points, %v", req.Query, res.Space, len(res.Points), err)
				}
				vizLat = append(vizLat, time.Since(t1))
				searchLat = append(searchLat, t1.Sub(t0))
			}
			b.StopTimer()
			slices.Sort(vizLat)
			slices.Sort(searchLat)
			p50 := vizLat[len(vizLat)/2]
			b.ReportMetric(ms(p50), "p50-ms")
			b.ReportMetric(ms(vizLat[min(len(vizLat)-1, len(vizLat)*99/100)]), "p99-ms")
			b.ReportMetric(ms(searchLat[len(searchLat)/2]), "search-p50-ms")
			b.ReportMetric(float64(p50)/float64(searchLat[len(searchLat)/2]), "x-search")
		})
	}
}
