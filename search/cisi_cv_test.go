package search_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/search/qualitytest"
)

// cvFolds is the number of folds of BenchmarkQualityCV.
const cvFolds = 5

// BenchmarkQualityCV measures on CISI, with 5-fold cross-validation, what
// pseudo-relevance feedback (search.Feedback) and, with CV_INDEX_GRID
// set, the keyword index's parameters (analysis.BM25F: k1, b, the title
// weight) are worth, against the two references (bleve's BM25 and the
// textbook BM25, whose parameters stay Lucene's k1 1.2, b 0.75). The 76
// judged queries are shuffled (fixed seed) into 5 folds; for each fold
// the parameters are chosen on the other four, by mean nDCG@10 of hybrid
// search without a semantic leg (rrf), and the fold is scored with them:
// no query is ever scored with parameters chosen on it. The choice is
// made in two steps on the training queries: the index parameters
// without feedback over the index grid, then, among the 3 best of them,
// the index parameters and feedback together (cvGrids). The same choice
// scores the fold's queries with one typo each, and keyword search alone.
//
// It prints the table (nDCG@10, P@10, MAP@30, recall@30, as written and
// with one typo per query), each fold's choice, the ratio to the better
// reference, per-query wins and losses (against the better reference and
// against the defaults without feedback, "before") and, last, the
// parameters the same procedure chooses on all 76 queries: those are
// search.DefaultFeedback. The collection is indexed once per parameter
// set, without dense vectors. About 15 seconds on 2 cores (2 minutes
// with CV_INDEX_GRID).
//
//	go test -run '^$' -bench QualityCV -benchtime 1x -timeout 60m ./search/
func BenchmarkQualityCV(b *testing.B) {
	if testing.Short() && !benchsmoke.On() {
		b.Skip("the cross-validation takes minutes: scripts/bench quality runs it")
	}
	c := readCISI(b)
	idxGrid, fbGrid := cvGrids(os.Getenv("CV_INDEX_GRID") != "")
	if benchsmoke.On() { // the test command's smoke: a slice of the collection, a corner of the grids
		c.Docs, c.Queries = c.Docs[:min(len(c.Docs), 150)], c.Queries[:min(len(c.Queries), 10)]
		idxGrid, fbGrid = idxGrid[:min(2, len(idxGrid))], fbGrid[:2]
	}
	for range b.N {
		e := newCVEval(b, c, idxGrid)
		e.run(fbGrid)
	}
}

// cvGrids returns the parameter grids: index parameters (the first is
// today's defaults; the others only with indexGrid) and feedback settings
// (the first is off).
//
// By default only feedback is chosen: with CV_INDEX_GRID set, k1 (1.2 to
// 2.5), b (0.6 to 0.9) and the title weight (2 to 4) are chosen too, and
// that choice did not carry over to the scored folds (2026-11-28: the
// folds chose four different parameter sets, hybrid (CV) 0.3991 against
// 0.4154 on the training queries; again with feedback from stored term
// weights: three sets, 0.3992 against 0.4061 choosing feedback alone),
// while no index parameter set of the grid brings keyword search without
// feedback above 0.399 on all 76 queries: the index parameters are noise
// on CISI, and choosing them only spends the training queries.
func cvGrids(indexGrid bool) ([]analysis.BM25F, []search.Feedback) {
	var idx []analysis.BM25F
	base := analysis.BM25F{K1: 1.2, B: 0.75, AvgLen: 50, Title: 2, Heading: 1.5, Path: 1, Body: 1}
	idx = append(idx, base)
	if !indexGrid {
		return idx, feedbackGrid()
	}
	for _, k1 := range []float64{1.2, 1.6, 2, 2.5} {
		for _, b := range []float64{0.6, 0.75, 0.9} {
			for _, title := range []float64{2, 3, 4} {
				p := base
				p.K1, p.B, p.Title = k1, b, title
				if p != base {
					idx = append(idx, p)
				}
			}
		}
	}
	return idx, feedbackGrid()
}

// feedbackGrid returns the feedback settings of BenchmarkQualityCV, the
// first off.
func feedbackGrid() []search.Feedback {
	fb := []search.Feedback{{}}
	for _, docs := range []int{5, 10} {
		for _, terms := range []int{10, 20, 30} {
			for _, alpha := range []float64{0.5, 0.7} {
				for _, minMatch := range []float64{0.1, 0.3} {
					fb = append(fb, search.Feedback{Docs: docs, Terms: terms, QueryWeight: alpha, MinMatch: minMatch})
				}
			}
		}
	}
	return fb
}

// cvConfig is one point of the grids.
type cvConfig struct {
	idx int // into cvEval.idx
	fb  search.Feedback
}

func (c cvConfig) name(e *cvEval) string {
	fb := "no feedback"
	if c.fb.Docs > 0 {
		fb = fmt.Sprintf("feedback %d docs, %d terms, α %.1f, min match %.1f", c.fb.Docs, c.fb.Terms, c.fb.QueryWeight, c.fb.MinMatch)
	}
	return paramName(e.idx[c.idx]) + "; " + fb
}

// cvRun names a ranking of every query: a configuration, an algorithm and
// the query texts.
type cvRun struct {
	cfg  cvConfig
	alg  string // hs.AlgorithmHybrid (rrf) or hs.AlgorithmKeyword
	typo bool
}

// cvEval runs and caches rankings.
type cvEval struct {
	b      *testing.B
	c      *qualitytest.Collection
	cc     *cisiChunks
	idx    []analysis.BM25F
	texts  [2][]string // as written, one typo
	stores map[int]testStore
	cache  map[cvRun][][]string
	folds  []int // fold of each query
}

func newCVEval(b *testing.B, c *qualitytest.Collection, idx []analysis.BM25F) *cvEval {
	e := &cvEval{b: b, c: c, cc: newCISIChunks(c), idx: idx, stores: map[int]testStore{}, cache: map[cvRun][][]string{}}
	e.texts[0], e.texts[1] = cisiTexts(c, false), cisiTexts(c, true)
	order := rand.New(rand.NewPCG(27, 27)).Perm(len(c.Queries))
	e.folds = make([]int, len(c.Queries))
	for pos, q := range order {
		e.folds[q] = pos % cvFolds
	}
	return e
}

// rankings returns the 30 best document ids of every query for r.
func (e *cvEval) rankings(r cvRun) [][]string {
	if got, ok := e.cache[r]; ok {
		return got
	}
	st, ok := e.stores[r.cfg.idx]
	if !ok {
		st = openLocal(e.b)
		e.cc.index(e.b, st, e.idx[r.cfg.idx])
		e.stores[r.cfg.idx] = st
	}
	fb := r.cfg.fb
	svc := mustService(e.b, st, func(o *search.Options) { o.Embedder, o.Feedback = nil, &fb })
	texts := e.texts[0]
	if r.typo {
		texts = e.texts[1]
	}
	out := make([][]string, len(texts))
	on := true // Options.Feedback decides: a zero one is off
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				req := hs.SearchRequest{Query: texts[i], TopK: 30, Fusion: hs.FusionRRF, Feedback: &on}
				if r.alg == hs.AlgorithmKeyword {
					req.Fusion, req.Algorithm = "", hs.AlgorithmKeyword
				}
				out[i] = fileIDs(mustSearch(e.b, svc, "alice", req))
			}
		})
	}
	for i := range texts {
		next <- i
	}
	close(next)
	wg.Wait()
	e.cache[r] = out
	return out
}

// ndcg returns each query's nDCG@10 of a ranking.
func (e *cvEval) ndcg(rank [][]string) []float64 {
	out := make([]float64, len(rank))
	for i, got := range rank {
		out[i] = qualitytest.NDCG(got, e.c.Queries[i].Rel, 10)
	}
	return out
}

// mean returns the mean of v over the queries in (or, with !in, outside)
// fold f; f < 0 means every query.
func (e *cvEval) mean(v []float64, f int, in bool) float64 {
	var sum float64
	n := 0
	for i, x := range v {
		if f < 0 || (e.folds[i] == f) == in {
			sum += x
			n++
		}
	}
	return sum / float64(max(n, 1))
}

// choose returns the configuration the two-step procedure picks on the
// queries outside fold f (every query for f < 0).
func (e *cvEval) choose(f int, fbGrid []search.Feedback) cvConfig {
	train := func(cfg cvConfig) float64 {
		return e.mean(e.ndcg(e.rankings(cvRun{cfg: cfg, alg: hs.AlgorithmHybrid})), f, false)
	}
	if f < 0 {
		train = func(cfg cvConfig) float64 {
			return e.mean(e.ndcg(e.rankings(cvRun{cfg: cfg, alg: hs.AlgorithmHybrid})), -1, true)
		}
	}
	idx := make([]int, len(e.idx))
	score := make([]float64, len(e.idx))
	for i := range e.idx {
		idx[i] = i
		score[i] = train(cvConfig{idx: i})
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case score[a] > score[b]:
			return -1
		case score[a] < score[b]:
			return 1
		}
		return 0
	})
	best, bestScore := cvConfig{idx: idx[0]}, score[idx[0]]
	for _, i := range idx[:min(3, len(idx))] {
		for _, fb := range fbGrid {
			cfg := cvConfig{idx: i, fb: fb}
			if s := train(cfg); s > bestScore {
				best, bestScore = cfg, s
			}
		}
	}
	return best
}

// run chooses, scores and prints.
func (e *cvEval) run(fbGrid []search.Feedback) {
	out := &strings.Builder{}
	nq := len(e.c.Queries)
	fmt.Fprintf(out, "\nCISI 5-fold cross-validation: %d documents, %d judged queries, %d index parameter sets × %d feedback settings, no semantic leg\n",
		len(e.c.Docs), nq, len(e.idx), len(fbGrid))
	chosen := make([]cvConfig, cvFolds)
	for f := range cvFolds {
		chosen[f] = e.choose(f, fbGrid)
	}
	// The cross-validated rankings: each query ranked with its fold's
	// choice.
	cvRank := func(alg string, typo bool) [][]string {
		out := make([][]string, nq)
		for f, cfg := range chosen {
			rank := e.rankings(cvRun{cfg: cfg, alg: alg, typo: typo})
			for i := range out {
				if e.folds[i] == f {
					out[i] = rank[i]
				}
			}
		}
		return out
	}
	refs := newReferences(e.b, e.c)
	var refRank [2][2][][]string // typo, reference
	for typo := range 2 {
		for r := range refRank[typo] {
			refRank[typo][r] = make([][]string, nq)
		}
		for i, text := range e.texts[typo] {
			got := refs.search(e.b, text, 30)
			refRank[typo][0][i], refRank[typo][1][i] = got[0], got[1]
		}
	}
	today := cvConfig{idx: 0}
	rows := []struct {
		name string
		rank [2][][]string
	}{
		{"keyword (CV)", [2][][]string{cvRank(hs.AlgorithmKeyword, false), cvRank(hs.AlgorithmKeyword, true)}},
		{"hybrid rrf (CV)", [2][][]string{cvRank(hs.AlgorithmHybrid, false), cvRank(hs.AlgorithmHybrid, true)}},
		{"keyword before", [2][][]string{e.rankings(cvRun{cfg: today, alg: hs.AlgorithmKeyword}), e.rankings(cvRun{cfg: today, alg: hs.AlgorithmKeyword, typo: true})}},
		{"hybrid before", [2][][]string{e.rankings(cvRun{cfg: today, alg: hs.AlgorithmHybrid}), e.rankings(cvRun{cfg: today, alg: hs.AlgorithmHybrid, typo: true})}},
		{refs.names[0], [2][][]string{refRank[0][0], refRank[1][0]}},
		{refs.names[1], [2][][]string{refRank[0][1], refRank[1][1]}},
	}
	fmt.Fprintf(out, "(\"before\": k1 1.2, b 0.75, title 2, no feedback, the defaults this evaluation started from; not cross-validated, nothing was chosen)\n")
	var ndcgAt [2][]float64 // typo, row
	for typo := range 2 {
		fmt.Fprintf(out, "\n%s\n%-18s %8s %6s %7s %9s\n", []string{"as written", "one random typo per query (seed 10)"}[typo], "run", "nDCG@10", "P@10", "MAP@30", "recall@30")
		for _, r := range rows {
			var s qualitytest.Scores
			for i, got := range r.rank[typo] {
				s.Add(got, e.c.Queries[i].Rel)
			}
			n, p, m, rc, _ := s.Mean()
			ndcgAt[typo] = append(ndcgAt[typo], n)
			fmt.Fprintf(out, "%-18s %8.4f %6.3f %7.3f %9.3f\n", r.name, n, p, m, rc)
		}
	}
	fmt.Fprintf(out, "\nchoices (index parameters and feedback chosen on the other folds; nDCG@10 of the fold's queries):\n")
	hyb := e.ndcg(rows[1].rank[0])
	for f, cfg := range chosen {
		fmt.Fprintf(out, "fold %d: %s → %.4f\n", f+1, cfg.name(e), e.mean(hyb, f, true))
	}
	for typo := range 2 {
		better, name := ndcgAt[typo][4], refs.names[0]
		if ndcgAt[typo][5] > better {
			better, name = ndcgAt[typo][5], refs.names[1]
		}
		fmt.Fprintf(out, "%s: hybrid (CV) / %s (the better reference) = %.3f; keyword (CV) / it = %.3f; keyword (CV) / %s = %.3f, / %s = %.3f\n",
			[]string{"as written", "one typo"}[typo], name, ndcgAt[typo][1]/better, ndcgAt[typo][0]/better,
			refs.names[0], ndcgAt[typo][0]/ndcgAt[typo][4], refs.names[1], ndcgAt[typo][0]/ndcgAt[typo][5])
	}
	betterRef := 5
	if ndcgAt[0][4] > ndcgAt[0][5] {
		betterRef = 4
	}
	for _, against := range []int{betterRef, 3} {
		base := e.ndcg(rows[against].rank[0])
		won, lost, lostMuch := 0, 0, 0
		var worst []string
		for i := range hyb {
			switch d := hyb[i] - base[i]; {
			case d > 1e-9:
				won++
			case d < -1e-9:
				lost++
				if d < -0.1 {
					lostMuch++
					worst = append(worst, fmt.Sprintf("%s %.2f→%.2f", e.c.Queries[i].ID, base[i], hyb[i]))
				}
			}
		}
		fmt.Fprintf(out, "per query, hybrid (CV) against %s, as written: %d won, %d lost, %d equal; %d lost more than 0.1 nDCG@10 (%s)\n",
			rows[against].name, won, lost, nq-won-lost, lostMuch, strings.Join(worst, ", "))
	}
	all := e.choose(-1, fbGrid)
	fmt.Fprintf(out, "chosen on all %d queries (the defaults): %s → %.4f (in-sample)\n", nq, all.name(e),
		e.mean(e.ndcg(e.rankings(cvRun{cfg: all, alg: hs.AlgorithmHybrid})), -1, true))
	fmt.Fprint(os.Stdout, out.String())
	e.b.ReportMetric(ndcgAt[0][1], "hybrid-cv-nDCG@10")
	e.b.ReportMetric(max(ndcgAt[0][4], ndcgAt[0][5]), "better-ref-nDCG@10")
}
