package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
	"github.com/hybrid-search/hybridsearch/internal/cputime"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// The benchmarks search a synthetic corpus in local.Store: chunks of 130
// words drawn from a Zipf distribution over a 30,000-word vocabulary (so
// posting lists have realistic lengths), 25 chunks per file, all readable
// by the searching user (the worst case for the per-user filter), with
// random 768-dimensional dense vectors. The bm25 vectors are the
// analyzer's (analysis.BM25F), as the indexer computes them, so that
// feedback, which analyses its chunks again, sees the terms the index
// holds. Queries are two or three
// mid-frequency words, every fourth with a typo; their vectors are
// pre-computed, so query embedding is excluded, and so is the access check
// (no AccessChecker). Building the corpus is outside the timed part.
//
//	go test -run '^$' -bench . -benchtime 2000x ./search/        (10k and 100k)
//	go test -run '^$' -bench . -benchtime 2000x -short ./search/ (10k only)

const (
	benchDim        = 768
	benchVocab      = 30_000
	benchChunkWords = 130
	benchPerFile    = 25
	benchQueries    = 64
)

// benchCorpus is a built store and its queries.
type benchCorpus struct {
	store   *local.Store
	queries []string
	vectors map[string][]float32
}

// benchWords returns the vocabulary: distinct lowercase pseudo-words.
func benchWords(rng *rand.Rand) []string {
	syll := strings.Fields("ka ri to ne mu sa lo pe di ga bu ve ho zi ta re no mi su la po de ki gu fa be ro ni te")
	seen := make(map[string]bool, benchVocab)
	words := make([]string, 0, benchVocab)
	for len(words) < benchVocab {
		n := 2 + rng.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

func randUnit(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	analysis.Normalize(v)
	return v
}

// buildBenchCorpus writes n chunks into a new store under dir.
func buildBenchCorpus(b *testing.B, n int) *benchCorpus {
	b.Helper()
	n = benchsmoke.Size(n, n/20) // the test command's smoke
	start := time.Now()
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	words := benchWords(rng)
	// A chunk's trigram vector is the union of its words' vectors, so each
	// word is analysed once (the text is lowercase words and spaces, which
	// analysis.Tokens cuts exactly at the spaces).
	wordTri := make([]hs.SparseVector, len(words))
	for i, w := range words {
		wordTri[i] = analysis.Trigrams(w)
	}
	st, err := local.Open(b.TempDir(), local.Options{Dim: benchDim, CompactBytes: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	zipf := rand.NewZipf(rng, 1.07, 2, benchVocab-1)
	files := make(chan []hs.Point, 4)
	var wg sync.WaitGroup
	var failed atomic.Value
	for range 4 {
		wg.Go(func() {
			for points := range files {
				if err := st.WriteFile(context.Background(), points[0].File, points); err != nil {
					failed.Store(err)
				}
			}
		})
	}
	for f := 0; f*benchPerFile < n; f++ {
		id := hs.FileID(f + 1)
		title := words[zipf.Uint64()] + " " + words[zipf.Uint64()]
		path := fmt.Sprintf("/Documents/%d/%s.md", f%50, title)
		meta := hs.FileMeta{ID: id, Path: path, Title: title, MIME: "text/markdown",
			Type: hs.DocFile, Modified: time.Unix(1_700_000_000+int64(f), 0).UTC(), Readers: []hs.UserID{"alice", "bob"},
			Paths: map[hs.UserID]string{"alice": path, "bob": path}}
		points := make([]hs.Point, 0, benchPerFile)
		for no := 0; no < benchPerFile && f*benchPerFile+no < n; no++ {
			ws := make([]int, benchChunkWords)
			for i := range ws {
				ws[i] = int(zipf.Uint64())
			}
			text, bm25, tri := benchChunk(words, wordTri, title, path, ws)
			points = append(points, hs.Point{
				ID:    hs.PointID(id, no),
				Chunk: hs.Chunk{FileID: id, No: no, Text: text, Hash: fmt.Sprintf("%d-%d", id, no)},
				File:  meta, Dense: randUnit(rng, benchDim), BM25: bm25, Trigram: tri,
			})
		}
		files <- points
	}
	close(files)
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	c := &benchCorpus{store: st, vectors: map[string][]float32{}}
	for i := range benchQueries {
		k := 2 + rng.IntN(2)
		q := make([]string, k)
		for j := range q {
			q[j] = words[100+rng.IntN(9900)]
		}
		if i%4 == 3 { // a typo: two neighbouring letters swapped
			r := []byte(q[0])
			j := rng.IntN(len(r) - 1)
			r[j], r[j+1] = r[j+1], r[j]
			q[0] = string(r)
		}
		query := strings.Join(q, " ")
		c.queries = append(c.queries, query)
		c.vectors[query] = randUnit(rng, benchDim)
	}
	b.Logf("built %d chunks in %v", n, time.Since(start).Round(time.Millisecond))
	return c
}

// benchChunk returns a chunk's text and its BM25 and trigram vectors as
// indexing computes them (the trigrams from each word's, which is the
// same and faster).
func benchChunk(words []string, wordTri []hs.SparseVector, title, path string, ws []int) (string, hs.SparseVector, hs.SparseVector) {
	var b strings.Builder
	tri := map[uint32]float32{}
	add := func(v hs.SparseVector) { // a chunk holds each trigram once
		for _, id := range v.Indices {
			tri[id] = 1
		}
	}
	for _, t := range strings.Fields(title) {
		add(analysis.Trigrams(t))
	}
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[w])
		add(wordTri[w])
	}
	v := hs.SparseVector{Indices: make([]uint32, 0, len(tri))}
	for id := range tri {
		v.Indices = append(v.Indices, id)
	}
	slices.Sort(v.Indices)
	v.Values = make([]float32, len(v.Indices))
	for i, id := range v.Indices {
		v.Values[i] = tri[id]
	}
	params := analysis.DefaultBM25F()
	return b.String(), params.Vector(params.Terms(analysis.Fields{Title: title, Path: path, Body: b.String()})), v
}

// vectorEmbedder returns pre-computed query vectors.
type vectorEmbedder map[string][]float32

func (e vectorEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return e[text], nil
}

func (c *benchCorpus) service(b *testing.B) *Service {
	s, err := New(Options{Embedder: vectorEmbedder(c.vectors), Dense: c.store, Sparse: c.store, Chunks: c.store, Terms: c.store})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkHybridSearch reports hybrid search latency (p50-ms, p99-ms) at
// 10,000 and 100,000 chunks, the share of it spent after retrieval
// (fusion, boosts, grouping, excerpts and highlights: fuse-group-%), and
// the process's CPU time per search (cpu-ms/op: all threads, garbage
// collection included), which a busy machine disturbs less than latency;
// each without pseudo-relevance feedback (feedback=off, the default) and
// with it (feedback=on), on the same corpus.
func BenchmarkHybridSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			if n > 10_000 && testing.Short() {
				b.Skip("100k chunks take a while to build; skipped with -short")
			}
			c := buildBenchCorpus(b, n)
			s := c.service(b)
			for _, fb := range []bool{false, true} {
				// feedback=on: every search asks for pseudo-relevance
				// feedback (hs.SearchRequest.Feedback).
				b.Run(fmt.Sprintf("feedback=%s", map[bool]string{false: "off", true: "on"}[fb]), func(b *testing.B) {
					benchSearch(b, c, s, fb)
				})
			}
		})
	}
}

// benchSearch times searches of c's queries and reports the figures of
// BenchmarkHybridSearch.
func benchSearch(b *testing.B, c *benchCorpus, s *Service, feedback bool) {
	ctx := context.Background()
	var lat []time.Duration
	var finish time.Duration
	i, empty := 0, 0
	var cpu0 time.Duration
	for b.Loop() {
		if i == 0 {
			cpu0 = cputime.Process()
		}
		q := c.queries[i%len(c.queries)]
		i++
		t0 := time.Now()
		p, err := newPlan(hs.DefaultSearchRules(), hs.SearchRequest{Query: q, Feedback: &feedback})
		if err != nil {
			b.Fatal(err)
		}
		legs := s.retrieve(ctx, "alice", p)
		t1 := time.Now()
		res, err := s.finish(ctx, "alice", p, legs)
		t2 := time.Now()
		if err != nil {
			b.Fatalf("search %q: %v", q, err)
		}
		if len(res.Results) == 0 {
			empty++ // only weak matches: a typo no chunk holds within an edit
		}
		lat = append(lat, t2.Sub(t0))
		finish += t2.Sub(t1)
	}
	b.StopTimer()
	cpu := cputime.Process() - cpu0
	var total time.Duration
	for _, d := range lat {
		total += d
	}
	slices.Sort(lat)
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), "p99-ms")
	b.ReportMetric(100*float64(finish)/float64(total), "fuse-group-%")
	b.ReportMetric(100*float64(empty)/float64(len(lat)), "empty-%")
	if cpu > 0 {
		b.ReportMetric(ms(cpu)/float64(len(lat)), "cpu-ms/op")
	}
}

// BenchmarkHybridSearchParallel reports queries per second (qps) with 8
// concurrent clients at 10,000 chunks.
func BenchmarkHybridSearchParallel(b *testing.B) {
	c := buildBenchCorpus(b, 10_000)
	s := c.service(b)
	b.Run("chunks=10000/clients=8", func(b *testing.B) {
		var next atomic.Int64
		procs := runtime.GOMAXPROCS(0)
		b.SetParallelism((8 + procs - 1) / procs) // 8 goroutines on 2 cores
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				q := c.queries[int(next.Add(1))%len(c.queries)]
				if _, err := s.Search(context.Background(), "alice", hs.SearchRequest{Query: q}); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "qps")
	})
}

// BenchmarkFinish times the work after retrieval alone, on hits already
// retrieved: what fusion, boosts, grouping and highlighting cost.
func BenchmarkFinish(b *testing.B) {
	c := buildBenchCorpus(b, 10_000)
	s := c.service(b)
	ctx := context.Background()
	type prepared struct {
		p    *plan
		legs [3]legResult
	}
	var ps []prepared
	for _, q := range c.queries {
		p, err := newPlan(hs.DefaultSearchRules(), hs.SearchRequest{Query: q})
		if err != nil {
			b.Fatal(err)
		}
		ps = append(ps, prepared{p, s.retrieve(ctx, "alice", p)})
	}
	i := 0
	for b.Loop() {
		x := ps[i%len(ps)]
		i++
		if _, err := s.finish(ctx, "alice", x.p, x.legs); err != nil {
			b.Fatal(err)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
