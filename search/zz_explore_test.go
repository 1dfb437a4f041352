package search_test

import (
	"os"
	"testing"
	"fmt"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/search/qualitytest"
)

func TestZZExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" { t.Skip() }
	c := readCISI(t)
	cc := newCISIChunks(c)
	texts := cisiTexts(c, false)
	base := analysis.BM25F{K1: 1.2, B: 0.75, AvgLen: 50, Title: 2, Heading: 1.5, Path: 1, Body: 1}
	ps := []analysis.BM25F{base}
	p2 := base; p2.K1, p2.B = 2, 0.7; ps = append(ps, p2)
	p3 := p2; p3.Title = 3; ps = append(ps, p3)
	fbs := []search.Feedback{{}, {Docs: 5, Terms: 10, QueryWeight: 0.7}, {Docs: 5, Terms: 20, QueryWeight: 0.6}, {Docs: 10, Terms: 20, QueryWeight: 0.5}, {Docs: 3, Terms: 10, QueryWeight: 0.5}}
	for _, p := range ps {
		st := openLocal(t)
		t0 := time.Now()
		cc.index(t, st, p)
		t.Logf("indexed %s in %v", paramName(p), time.Since(t0))
		for _, fb := range fbs {
			fb := fb
			svc := mustService(t, st, func(o *search.Options) { o.Embedder, o.Feedback = nil, &fb })
			var s qualitytest.Scores
			t1 := time.Now()
			for i, q := range c.Queries {
				res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: texts[i], TopK: 30, Algorithm: hs.AlgorithmKeyword})
				s.Add(fileIDs(res), q.Rel)
			}
			n, pp, m, r, _ := s.Mean()
			t.Logf("%s %s: %.4f %.3f %.3f %.3f (%v)", paramName(p), fmt.Sprint(fb), n, pp, m, r, time.Since(t1)/time.Duration(len(c.Queries)))
		}
	}
}
