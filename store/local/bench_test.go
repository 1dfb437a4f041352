package local_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// Benchmarks run on a store where one user sees every chunk (the worst
// case for that user's searches): 768-dimensional dense vectors, 60 BM25
// terms and 400 trigrams per chunk drawn from Zipf distributions, so query
// terms have realistic posting lengths. Run them with
//
//	go test -run '^$' -bench 'Search|WriteFile' -benchtime 200x ./store/

const benchDim = 768

// benchData draws the benchmark corpus and queries.
type benchData struct {
	rng     *rand.Rand
	bm25    *rand.Zipf
	trigram *rand.Zipf
}

func newBenchData() *benchData {
	rng := rand.New(rand.NewPCG(42, 42))
	return &benchData{
		rng:     rng,
		bm25:    rand.NewZipf(rng, 1.1, 2, 50_000),
		trigram: rand.NewZipf(rng, 1.05, 2, 40_000),
	}
}

func (d *benchData) sparse(z *rand.Zipf, n int) hs.SparseVector {
	seen := map[uint32]bool{}
	var v hs.SparseVector
	for len(v.Indices) < n {
		i := uint32(z.Uint64())
		if seen[i] {
			continue
		}
		seen[i] = true
		v.Indices = append(v.Indices, i)
		v.Values = append(v.Values, 0.5+d.rng.Float32())
	}
	return v
}

// benchStore returns a store of n chunks in files of 50 chunks.
func benchStore(b *testing.B, n int) (*local.Store, *benchData) {
	b.Helper()
	n = benchsmoke.Size(n, max(50, n/50)) // the test command's smoke
	d := newBenchData()
	s := mustOpen(b, b.TempDir(), local.Options{CompactBytes: 1 << 40})
	for f := range n / 50 {
		id := hs.FileID(f + 1)
		meta := hs.FileMeta{ID: id, Path: fmt.Sprintf("/docs/%d.md", f), Readers: []hs.UserID{"alice", "bob"}}
		points := make([]hs.Point, 50)
		for no := range points {
			points[no] = hs.Point{
				ID:      hs.PointID(id, no),
				Chunk:   hs.Chunk{FileID: id, No: no, Text: "chunk text"},
				Dense:   randDense(d.rng, benchDim),
				BM25:    d.sparse(d.bm25, 60),
				Trigram: d.sparse(d.trigram, 400),
			}
		}
		if err := s.WriteFile(context.Background(), meta, points); err != nil {
			b.Fatal(err)
		}
	}
	return s, d
}

func benchDense(b *testing.B, n int) {
	s, d := benchStore(b, n)
	q := randDense(d.rng, benchDim)
	for b.Loop() {
		if _, err := s.SearchDense(b.Context(), "alice", q, 30, hs.Filter{}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSparse(b *testing.B, n int) {
	s, d := benchStore(b, n)
	for _, leg := range []struct {
		name string
		q    hs.SparseVector
	}{
		{store.VectorBM25, d.sparse(d.bm25, 5)},
		{store.VectorTrigram, d.sparse(d.trigram, 30)},
	} {
		b.Run(leg.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.SearchSparse(b.Context(), "alice", leg.name, leg.q, 30, hs.Filter{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchHybrid runs the three legs of one search one after the other.
func benchHybrid(b *testing.B, n int) {
	s, d := benchStore(b, n)
	q, bm25, trigram := randDense(d.rng, benchDim), d.sparse(d.bm25, 5), d.sparse(d.trigram, 30)
	for b.Loop() {
		if _, err := s.SearchDense(b.Context(), "alice", q, 30, hs.Filter{}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.SearchSparse(b.Context(), "alice", store.VectorBM25, bm25, 30, hs.Filter{}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.SearchSparse(b.Context(), "alice", store.VectorTrigram, trigram, 30, hs.Filter{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchDense10k(b *testing.B)   { benchDense(b, 10_000) }
func BenchmarkSearchDense100k(b *testing.B)  { benchDense(b, 100_000) }
func BenchmarkSearchSparse10k(b *testing.B)  { benchSparse(b, 10_000) }
func BenchmarkSearchSparse100k(b *testing.B) { benchSparse(b, 100_000) }
func BenchmarkSearchHybrid10k(b *testing.B)  { benchHybrid(b, 10_000) }
func BenchmarkSearchHybrid100k(b *testing.B) { benchHybrid(b, 100_000) }

// BenchmarkWriteFile rewrites 20-chunk files (one fsync each) in a store
// of 10k chunks.
func BenchmarkWriteFile(b *testing.B) {
	s, d := benchStore(b, 10_000)
	files := make([][]hs.Point, 16)
	for f := range files {
		id := hs.FileID(f + 1)
		for no := range 20 {
			files[f] = append(files[f], hs.Point{
				ID:      hs.PointID(id, no),
				Chunk:   hs.Chunk{FileID: id, No: no, Text: "new chunk text"},
				Dense:   randDense(d.rng, benchDim),
				BM25:    d.sparse(d.bm25, 60),
				Trigram: d.sparse(d.trigram, 400),
			})
		}
	}
	i := 0
	for b.Loop() {
		f := i % len(files)
		meta := hs.FileMeta{ID: hs.FileID(f + 1), Path: "/new.md", Readers: []hs.UserID{"alice"}}
		if err := s.WriteFile(b.Context(), meta, files[f]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkWriteSmallParallel writes one-chunk files from parallel
// goroutines: concurrent writers share fsyncs (group commit).
func BenchmarkWriteSmallParallel(b *testing.B) {
	s := mustOpen(b, b.TempDir(), local.Options{})
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(uint64(next.Add(1)), 1))
		for pb.Next() {
			id := hs.FileID(next.Add(1))
			meta := hs.FileMeta{ID: id, Readers: []hs.UserID{"alice"}}
			p := hs.Point{ID: hs.PointID(id, 0), Chunk: hs.Chunk{FileID: id}, Dense: randDense(rng, 64)}
			if err := s.WriteFile(context.Background(), meta, []hs.Point{p}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
