package search_test

import (
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/search/qualitytest"
)

// cisiFeedbackGain is the share by which hybrid search without a model,
// asking for feedback, beats the better reference on CISI with the
// defaults, on the queries that chose them (1.037 on 2026-11-28; issue 27
// asks for 1.06 cross-validated, which feedback does not reach: 1.006,
// BenchmarkQualityCV).
const cisiFeedbackGain = 1.02

// TestCISIAgainstReferences holds the defaults to what issue 27 reached
// on CISI (skipped with -short or without the collection), beside both
// references, bleve's BM25 and the textbook BM25, by nDCG@10:
//
//   - with one typo per query, keyword and hybrid search without a model
//     score at least both references, with and without feedback;
//   - as written, keyword and hybrid search asking for feedback score at
//     least both references, hybrid at least cisiFeedbackGain times the
//     better one. Without feedback keyword search is 0.987× the textbook
//     BM25 as written (logged, not held): no k1, b or title weight
//     closes that gap (analysis.DefaultBM25F).
//
// These are the defaults' figures on every query, which chose them; the
// cross-validated figures (chosen on four folds, scored on the fifth) are
// BenchmarkQualityCV's. It checks quality, never time.
func TestCISIAgainstReferences(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the CISI collection (about 20 s)")
	}
	c := readCISI(t)
	st := openLocal(t)
	newCISIChunks(c).index(t, st, analysis.DefaultBM25F())
	svc := mustService(t, st, func(o *search.Options) { o.Embedder = nil })
	refs := newReferences(t, c)
	runs := []struct {
		name string
		req  hs.SearchRequest
	}{
		{"keyword", hs.SearchRequest{Algorithm: hs.AlgorithmKeyword, Feedback: no()}},
		{"keyword with feedback", hs.SearchRequest{Algorithm: hs.AlgorithmKeyword, Feedback: yes()}},
		{"hybrid", hs.SearchRequest{Fusion: hs.FusionRRF, Feedback: no()}},
		{"hybrid with feedback", hs.SearchRequest{Fusion: hs.FusionRRF, Feedback: yes()}},
	}
	for typo, name := range []string{"as written", "one typo per query"} {
		texts := cisiTexts(c, typo == 1)
		got := make([]qualitytest.Scores, len(runs))
		ref := make([]qualitytest.Scores, len(refs.names))
		for i, q := range c.Queries {
			for r, run := range runs {
				req := run.req
				req.Query, req.TopK = texts[i], 30
				got[r].Add(fileIDs(mustSearch(t, svc, "alice", req)), q.Rel)
			}
			for r, ids := range refs.search(t, texts[i], 30) {
				ref[r].Add(ids, q.Rel)
			}
		}
		var better float64
		for r, s := range ref {
			n, _, _, _, _ := s.Mean()
			t.Logf("%s: %s %.4f", name, refs.names[r], n)
			better = max(better, n)
		}
		for r, run := range runs {
			n, _, _, _, _ := got[r].Mean()
			t.Logf("%s: %s %.4f (%.3f× the better reference)", name, run.name, n, n/better)
			mustBeat := typo == 1 || *run.req.Feedback
			if mustBeat && n < better {
				t.Errorf("%s: %s nDCG@10 %.4f is below the better reference's %.4f", name, run.name, n, better)
			}
			if typo == 0 && run.name == "hybrid with feedback" && n < cisiFeedbackGain*better {
				t.Errorf("%s: %s nDCG@10 %.4f is %.3f× the better reference's %.4f, want at least %.2f×", name, run.name, n, n/better, better, cisiFeedbackGain)
			}
		}
	}
}
