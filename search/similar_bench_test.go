package search

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
)

// BenchmarkSimilar reports GET /api/similar latency (p50-ms, p99-ms) at
// 10,000 chunks, from one file's chunks, in the semantic space (their mean
// embedding) and the keyword space (no embedder: the file's text as a
// keyword query), next to a hybrid search on the same corpus (the
// reference) and their ratio (x-search: similar p50 / search p50).
//
//	go test -run '^$' -bench Similar -benchtime 200x ./search/
func BenchmarkSimilar(b *testing.B) {
	c := buildBenchCorpus(b, 10_000)
	withModel := c.service(b)
	noModel, err := New(Options{Dense: c.store, Sparse: c.store, Chunks: c.store})
	if err != nil {
		b.Fatal(err)
	}
	files := benchsmoke.Size(10_000, 10_000/20) / benchPerFile
	for _, tt := range []struct {
		space string
		s     *Service
	}{{hs.SpaceSemantic, withModel}, {hs.SpaceKeyword, noModel}} {
		b.Run(fmt.Sprintf("chunks=10000/space=%s", tt.space), func(b *testing.B) {
			m, err := NewSimilar(tt.s, c.store)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			var searchLat, simLat []time.Duration
			// The corpus's vectors are random, so nothing is similar by
			// meaning beyond chance: the work is done and the answer may
			// rightly be empty (empty-%).
			i, empty := 0, 0
			for b.Loop() {
				req := hs.SearchRequest{Query: c.queries[i%len(c.queries)]}
				id := hs.FileID(1 + (i*7919)%files)
				i++
				t0 := time.Now()
				if _, err := tt.s.Search(ctx, "alice", req); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				res, err := m.Similar(ctx, "alice", []hs.FileID{id}, 0)
				if len(res.Results) == 0 && res.WeakCount == 0 {
					empty++
				}
				if err != nil || res.Space != tt.space {
					b.Fatalf("similar %d: space %q, %d results, %v", id, res.Space, len(res.Results), err)
				}
				simLat = append(simLat, time.Since(t1))
				searchLat = append(searchLat, t1.Sub(t0))
			}
			b.StopTimer()
			reportLatencies(b, simLat, searchLat)
			b.ReportMetric(100*float64(empty)/float64(max(i, 1)), "empty-%")
		})
	}
}

// reportLatencies reports the p50 and p99 of lat, the p50 of the
// reference searches and the ratio of the two p50s (x-search).
func reportLatencies(b *testing.B, lat, search []time.Duration) {
	slices.Sort(lat)
	slices.Sort(search)
	p50 := lat[len(lat)/2]
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), "p99-ms")
	b.ReportMetric(ms(search[len(search)/2]), "search-p50-ms")
	b.ReportMetric(float64(p50)/float64(search[len(search)/2]), "x-search")
}
