package search_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/search/qualitytest"
)

// TestCISI measures retrieval quality on the CISI test collection (1,460
// library-science abstracts, 76 judged queries) through the real chunker,
// analyzer, local store and Service, without a semantic leg, next to two
// references on the same documents: bleve's BM25 (qualitytest.Bleve) and
// the textbook BM25 on the app's terms (qualitytest.TextbookBM25). It runs
// only with CISI=1 and prints a table; the benchmarks of record are
// BenchmarkQuality in app (the whole pipeline and
// /api/search) and BenchmarkQualityCV here (5-fold cross-validation of the
// parameters), both run by scripts/bench quality.
//
//	CISI=1 go test -run TestCISI -v ./search/
//	CISI=1 CISI_SEMANTIC=1 go test -run TestCISI -v ./search/   (with the test embedder)
//	CISI=1 CISI_STORE=qdrant go test -run TestCISI -v ./search/  (the Qdrant adapter on the fake)
func TestCISI(t *testing.T) {
	if os.Getenv("CISI") == "" {
		t.Skip("set CISI=1 to run the CISI evaluation")
	}
	c := readCISI(t)
	st := openLocal(t)
	if os.Getenv("CISI_STORE") == "qdrant" {
		st = openQdrant(t)
	}
	var fixture []doc
	for _, d := range c.Docs {
		id, _ := strconv.Atoi(d.ID)
		fixture = append(fixture, doc{ID: hs.FileID(id), Title: d.Title, Path: "/cisi/" + d.ID + ".md", Text: d.Text})
	}
	mustIndex(t, st, fixture...)
	// CISI_SEMANTIC=1 adds the Deterministic test embedder's semantic leg
	// (a bag of words and trigrams, not a language model).
	svc := mustService(t, st, func(o *search.Options) {
		if os.Getenv("CISI_SEMANTIC") == "" {
			o.Embedder = nil
		}
	})
	refs := newReferences(t, c)
	runs := []struct {
		name string
		req  hs.SearchRequest
	}{
		{"keyword", hs.SearchRequest{Algorithm: hs.AlgorithmKeyword}},
		{"fuzzy", hs.SearchRequest{Algorithm: hs.AlgorithmFuzzy}},
		{"hybrid rrf", hs.SearchRequest{Fusion: hs.FusionRRF}},
		{"hybrid linear", hs.SearchRequest{Fusion: hs.FusionLinear}},
		{"hybrid auto", hs.SearchRequest{Fusion: hs.FusionAuto}},
	}
	if os.Getenv("CISI_SEMANTIC") != "" {
		runs = append(runs, struct {
			name string
			req  hs.SearchRequest
		}{"semantic", hs.SearchRequest{Algorithm: hs.AlgorithmSemantic}})
	}
	for _, typo := range []bool{false, true} {
		texts := cisiTexts(c, typo)
		scores := make([]qualitytest.Scores, len(runs)+len(refs.names))
		for qi, q := range c.Queries {
			for i, r := range runs {
				req := r.req
				req.Query, req.TopK = texts[qi], 30
				scores[i].Add(fileIDs(mustSearch(t, svc, "alice", req)), q.Rel)
			}
			for i, got := range refs.search(t, texts[qi], 30) {
				scores[len(runs)+i].Add(got, q.Rel)
			}
		}
		t.Logf("CISI, typo %v: %d documents, %d judged queries", typo, len(c.Docs), len(c.Queries))
		t.Logf("%-16s %8s %6s %7s %9s", "run", "nDCG@10", "P@10", "MAP@30", "recall@30")
		for i, s := range scores {
			name := ""
			if i < len(runs) {
				name = runs[i].name
			} else {
				name = refs.names[i-len(runs)]
			}
			n, p, m, r, _ := s.Mean()
			t.Logf("%-16s %8.4f %6.3f %7.3f %9.3f", name, n, p, m, r)
		}
		kw, _, _, _, _ := scores[0].Mean()
		hyb, _, _, _, _ := scores[2].Mean()
		for i, name := range refs.names {
			ref, _, _, _, _ := scores[len(runs)+i].Mean()
			t.Logf("keyword / %s: %.3f; hybrid rrf / %s: %.3f", name, kw/ref, name, hyb/ref)
		}
	}
}

// readCISI reads the collection, or skips when it is missing.
func readCISI(tb testing.TB) *qualitytest.Collection {
	tb.Helper()
	c, err := qualitytest.ReadCISI(qualitytest.CISIDir(), hs.DefaultSearchRules().MaxQueryRunes)
	if err != nil {
		tb.Skipf("no CISI collection: %v", err)
	}
	return c
}

// cisiTexts returns the query texts: as written, or each with one random
// typo (qualitytest.Typo, seed 10, in query order, as every CISI table).
func cisiTexts(c *qualitytest.Collection, typo bool) []string {
	rng := rand.New(rand.NewPCG(10, 10))
	out := make([]string, len(c.Queries))
	for i, q := range c.Queries {
		out[i] = q.Text
		if typo {
			out[i] = qualitytest.Typo(rng, q.Text)
		}
	}
	return out
}

// references are the two reference rankings, side by side in every run.
type references struct {
	names    []string
	bleve    *qualitytest.Bleve
	textbook *qualitytest.TextbookBM25
}

func newReferences(tb testing.TB, c *qualitytest.Collection) *references {
	tb.Helper()
	b, err := qualitytest.NewBleve(filepath.Join(tb.TempDir(), "bleve"), c.Docs)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Close() })
	return &references{names: []string{"bleve BM25", "textbook BM25"}, bleve: b, textbook: qualitytest.NewTextbookBM25(c.Docs)}
}

// search returns each reference's k best document ids for q.
func (r *references) search(tb testing.TB, q string, k int) [][]string {
	tb.Helper()
	got, err := r.bleve.Search(q, k)
	if err != nil {
		tb.Fatal(err)
	}
	return [][]string{got, r.textbook.Search(q, k)}
}

// fileIDs returns the file ids of a result page as strings.
func fileIDs(res hs.SearchResult) []string {
	out := make([]string, len(res.Results))
	for i, r := range res.Results {
		out[i] = strconv.Itoa(int(r.FileID))
	}
	return out
}

// cisiChunks is the collection cut into chunks once, as the indexer cuts
// it; points returns them with the bm25 vectors of given parameters, so
// an evaluation can index the collection once per parameter set without
// chunking it again. There are no dense vectors: the evaluations here run
// without a semantic leg.
type cisiChunks struct {
	metas  []hs.FileMeta
	chunks [][]hs.Chunk
}

func newCISIChunks(c *qualitytest.Collection) *cisiChunks {
	cc := &cisiChunks{}
	for _, d := range c.Docs {
		id, _ := strconv.Atoi(d.ID)
		meta := doc{ID: hs.FileID(id), Title: d.Title, Path: "/cisi/" + d.ID + ".md", Text: d.Text}.meta()
		cc.metas = append(cc.metas, meta)
		cc.chunks = append(cc.chunks, chunk.Chunker{}.Chunk(meta.ID, hs.Text{Body: d.Text, Title: meta.Title}))
	}
	return cc
}

// index writes the collection into st with the bm25 parameters p, eight
// files at a time (the store shares one fsync among concurrent writers).
func (cc *cisiChunks) index(tb testing.TB, st writer, p analysis.BM25F) {
	tb.Helper()
	var wg sync.WaitGroup
	next := make(chan int)
	errs := make(chan error, len(cc.metas))
	for range 8 {
		wg.Go(func() {
			for i := range next {
				meta := cc.metas[i]
				points := make([]hs.Point, len(cc.chunks[i]))
				for j, c := range cc.chunks[i] {
					bm25, tri := p.PointVectors(meta, c)
					points[j] = hs.Point{ID: hs.PointID(meta.ID, c.No), Chunk: c, File: meta, BM25: bm25, Trigram: tri}
				}
				if err := st.WriteFile(tb.Context(), meta, points); err != nil {
					errs <- fmt.Errorf("WriteFile(%d): %w", meta.ID, err)
				}
			}
		})
	}
	for i := range cc.metas {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

// paramName names a parameter set in tables.
func paramName(p analysis.BM25F) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("k1 %.2f", p.K1), "0"), ".") +
		strings.TrimRight(strings.TrimRight(fmt.Sprintf(", b %.2f", p.B), "0"), ".") +
		strings.TrimRight(strings.TrimRight(fmt.Sprintf(", title %.1f", p.Title), "0"), ".")
}
