package search_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/search"
)

// relevanceQuery is one query of a relevance fixture (queries.json).
type relevanceQuery struct {
	Query   string `json:"query"`
	Comment string `json:"comment"` // why the expectation holds; required
	// Request fields; empty means the default (hybrid, rrf, default
	// weights).
	Algorithm string      `json:"algorithm,omitempty"`
	Fusion    string      `json:"fusion,omitempty"`
	Weights   *hs.Weights `json:"weights,omitempty"`
	User      hs.UserID   `json:"user,omitempty"` // default alice
	// Want is the expected first results, in order.
	Want []hs.FileID `json:"want,omitempty"`
	// WantInTop lists documents that must each be among the first TopN.
	WantInTop []hs.FileID `json:"want_in_top,omitempty"`
	TopN      int         `json:"top_n,omitempty"`
	// NotIn lists documents that must not be returned at all.
	NotIn []hs.FileID `json:"not_in,omitempty"`
	// RelevanceAtMost bounds the relevance of listed documents: a partial
	// match must say so.
	RelevanceAtMost []relevanceBound `json:"relevance_at_most,omitempty"`
	// BoostDecides marks a query whose first result would not be first by
	// plain fusion: it is first because it contains a query identifier,
	// while a result below it has a higher fused score.
	BoostDecides bool `json:"boost_decides,omitempty"`
}

// relevanceBound is one bound of relevanceQuery.RelevanceAtMost.
type relevanceBound struct {
	ID  hs.FileID `json:"id"`
	Max float64   `json:"max"`
}

// TestRelevance runs every fixture under testdata/relevance through the
// real chunker, analyzer, Deterministic embedder, store and Service, on
// the local store and on the Qdrant adapter, so both rank alike; each
// query once as it comes and once asking for pseudo-relevance feedback,
// which must change none of them (it never expands an identifier or a
// quoted phrase, and re-ranks only what the query found).
func TestRelevance(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("testdata", "relevance", "*"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no relevance fixtures: %v", err)
	}
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			for _, dir := range cases {
				t.Run(filepath.Base(dir), func(t *testing.T) {
					var docs []doc
					var queries []relevanceQuery
					mustReadJSON(t, filepath.Join(dir, "docs.json"), &docs)
					mustReadJSON(t, filepath.Join(dir, "queries.json"), &queries)
					st := kind.open(t)
					mustIndex(t, st, docs...)
					svc := mustService(t, st)
					for _, q := range queries {
						checkRelevance(t, svc, q, nil)
					}
					// Feedback from two documents, so that it runs on
					// these small collections.
					fb := search.DefaultFeedback()
					fb.Docs = 2
					svc = mustService(t, st, func(o *search.Options) { o.Feedback = &fb })
					for _, q := range queries {
						checkRelevance(t, svc, q, yes())
					}
				})
			}
		})
	}
}

// checkRelevance runs q, with feedback as the request's Feedback, and
// checks its answer.
func checkRelevance(t *testing.T, svc *search.Service, q relevanceQuery, feedback *bool) {
	t.Helper()
	if q.Comment == "" {
		t.Errorf("query %q has no comment", q.Query)
	}
	user := q.User
	if user == "" {
		user = "alice"
	}
	req := hs.SearchRequest{Query: q.Query, Algorithm: q.Algorithm, Fusion: q.Fusion, Weights: q.Weights, Explain: true, Feedback: feedback}
	res, err := svc.Search(t.Context(), user, req)
	if err != nil {
		t.Errorf("Search(%q) = %v", q.Query, err)
		return
	}
	got := ids(res)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("query %q (%s, feedback %v): "+format+"\n  got %v\n  %s", append(append([]any{q.Query, q.Comment, feedback != nil}, args...), got, explainLines(res))...)
	}
	if len(got) < len(q.Want) || !slices.Equal(got[:len(q.Want)], q.Want) {
		fail("want first %v", q.Want)
	}
	if len(q.WantInTop) > 0 {
		top := got[:min(q.TopN, len(got))]
		for _, id := range q.WantInTop {
			if !slices.Contains(top, id) {
				fail("want %d in the top %d", id, q.TopN)
			}
		}
	}
	for _, id := range q.NotIn {
		if slices.Contains(got, id) {
			fail("want no %d", id)
		}
	}
	if q.BoostDecides && len(res.Results) > 0 {
		first := res.Results[0].Explain
		beaten := false
		for _, r := range res.Results[1:] {
			beaten = beaten || r.Explain.Fused > first.Fused
		}
		if !first.IdentifierBoost || !beaten {
			fail("want the first result there by the identifier boost alone")
		}
	}
	for i, r := range res.Results {
		if r.Relevance < 0 || r.Relevance > 1 {
			fail("relevance %v of result %d is out of [0, 1]", r.Relevance, i)
		}
		for _, b := range q.RelevanceAtMost {
			if r.FileID == b.ID && r.Relevance > b.Max {
				fail("relevance %v of %d is above %v", r.Relevance, b.ID, b.Max)
			}
		}
	}
}

// explainLines formats a result page's explanations for failure messages.
func explainLines(res hs.SearchResult) string {
	var b []byte
	for i, r := range res.Results {
		b = append(b, "\n    "...)
		b = append(b, []byte(formatResult(i, r))...)
	}
	return string(b)
}

// TestRelevanceFixturesAreData keeps the fixtures honest: every case has
// both files.
func TestRelevanceFixturesAreData(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "relevance", "*"))
	for _, dir := range dirs {
		for _, f := range []string{"docs.json", "queries.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("%s: %v", dir, err)
			}
		}
	}
}

// formatResult is one line of explainLines.
func formatResult(i int, r hs.DocumentResult) string {
	s := fmt.Sprintf("%d. file %d %q relevance %.3f", i+1, r.FileID, r.Title, r.Relevance)
	if e := r.Explain; e != nil {
		s += fmt.Sprintf(" fused %.5f identifier %v phrase %v capped %v", e.Fused, e.IdentifierBoost, e.PhraseBoost, e.Capped)
		for _, leg := range []string{hs.AlgorithmSemantic, hs.AlgorithmKeyword, hs.AlgorithmFuzzy} {
			if l, ok := e.Legs[leg]; ok {
				s += fmt.Sprintf(" %s #%d (%.3f, match %.2f × %.2f)", leg, l.Rank, l.Score, l.Match, l.Weight)
			}
		}
	}
	return s
}
