package search_test

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/search/qualitytest"
)

// TestCISI measures retrieval quality on the CISI test collection (1,460
// library-science abstracts, 76 judged queries) through the real chunker,
// analyzer, local store and Service, without a semantic leg, next to the
// bleve reference (qualitytest.Bleve) on the same documents. It runs only
// with CISI=1 and prints a table; the benchmark of record is
// BenchmarkQuality in cmd/hybridsearch (scripts/bench quality), which goes
// through the whole pipeline and /api/search.
//
//	CISI=1 go test -run TestCISI -v ./search/
//	CISI=1 CISI_SEMANTIC=1 go test -run TestCISI -v ./search/   (with the test embedder)
//	CISI=1 CISI_STORE=qdrant go test -run TestCISI -v ./search/  (the Qdrant adapter on the fake)
func TestCISI(t *testing.T) {
	if os.Getenv("CISI") == "" {
		t.Skip("set CISI=1 to run the CISI evaluation")
	}
	c, err := qualitytest.ReadCISI(qualitytest.CISIDir(), hs.DefaultSearchRules().MaxQueryRunes)
	if err != nil {
		t.Fatal(err)
	}
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
	ref, err := qualitytest.NewBleve(c.Docs)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()

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
		rng := rand.New(rand.NewPCG(10, 10))
		scores := make([]qualitytest.Scores, len(runs)+1)
		for _, q := range c.Queries {
			text := q.Text
			if typo {
				text = qualitytest.Typo(rng, text)
			}
			for i, r := range runs {
				req := r.req
				req.Query, req.TopK = text, 30
				scores[i].Add(fileIDs(mustSearch(t, svc, "alice", req)), q.Rel)
			}
			got, err := ref.Search(text, 30)
			if err != nil {
				t.Fatal(err)
			}
			scores[len(runs)].Add(got, q.Rel)
		}
		t.Logf("CISI, typo %v: %d documents, %d judged queries", typo, len(c.Docs), len(c.Queries))
		t.Logf("%-16s %8s %6s %7s %9s", "run", "nDCG@10", "P@10", "MAP@30", "recall@30")
		for i, s := range scores {
			name := "bleve reference"
			if i < len(runs) {
				name = runs[i].name
			}
			n, p, m, r, _ := s.Mean()
			t.Logf("%-16s %8.3f %6.3f %7.3f %9.3f", name, n, p, m, r)
		}
	}
}

// fileIDs returns the file ids of a result page as strings.
func fileIDs(res hs.SearchResult) []string {
	out := make([]string, len(res.Results))
	for i, r := range res.Results {
		out[i] = strconv.Itoa(int(r.FileID))
	}
	return out
}
