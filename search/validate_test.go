package search_test

import (
	"math"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/search"
)

func TestBadInput(t *testing.T) {
	svc := mustService(t, openLocal(t))
	tests := []struct {
		name string
		req  hs.SearchRequest
		want string // in the message
	}{
		{"empty query", hs.SearchRequest{}, "query is empty"},
		{"blank query", hs.SearchRequest{Query: " \t\n"}, "query is empty"},
		{"10,000-character query", hs.SearchRequest{Query: strings.Repeat("long ", 2000)}, "at most 1000"},
		{"900 KB query", hs.SearchRequest{Query: strings.Repeat("x", 900<<10)}, "the query has 921600 characters, at most 1000 are allowed"},
		{"unknown algorithm", hs.SearchRequest{Query: "x", Algorithm: "bm42"}, `unknown algorithm "bm42"`},
		{"unknown fusion", hs.SearchRequest{Query: "x", Fusion: "rsf"}, `unknown fusion "rsf"`},
		{"negative weight", hs.SearchRequest{Query: "x", Weights: &hs.Weights{Semantic: -0.1, Keyword: 0.5}}, "weights must be ≥ 0, the semantic weight is -0.1"},
		{"weights sum above 1", hs.SearchRequest{Query: "x", Weights: &hs.Weights{Semantic: 0.6, Keyword: 0.3, Fuzzy: 0.2}}, "sum to at most 1"},
		{"all weights 0", hs.SearchRequest{Query: "x", Weights: &hs.Weights{}}, "at least one weight must be above 0"},
		{"NaN weight", hs.SearchRequest{Query: "x", Weights: &hs.Weights{Fuzzy: math.NaN()}}, "fuzzy weight must be a number"},
		{"weights with auto", hs.SearchRequest{Query: "x", Fusion: hs.FusionAuto, Weights: &hs.DefaultWeights}, "auto chooses the weights itself"},
		{"top_k too large", hs.SearchRequest{Query: "x", TopK: 51}, "top_k must be between 1 and 50, got 51"},
		{"top_k negative", hs.SearchRequest{Query: "x", TopK: -1}, "top_k must be between 1 and 50, got -1"},
		{"threshold above 1", hs.SearchRequest{Query: "x", ScoreThreshold: 1.5}, "score_threshold must be between -1 and 1"},
		{"threshold NaN", hs.SearchRequest{Query: "x", ScoreThreshold: math.NaN()}, "score_threshold"},
		{"unknown type", hs.SearchRequest{Query: "x", Filter: hs.Filter{Types: []hs.DocType{"image"}}}, `unknown document type "image"`},
		{"empty date range", hs.SearchRequest{Query: "x", Filter: hs.Filter{ModifiedAfter: baseTime, ModifiedBefore: baseTime}}, "modified_after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.Search(t.Context(), "alice", tt.req)
			if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(hs.ErrorMessage(err), tt.want) {
				t.Errorf("Search = %v (kind %s), want EINVALID containing %q", err, hs.ErrorKind(err), tt.want)
			}
			if _, verr := hs.DefaultSearchRules().Check(tt.req); verr == nil || verr.Error() != err.Error() {
				t.Errorf("SearchRules.Check = %v, want the same error as Search", verr)
			}
		})
	}
	t.Run("no user", func(t *testing.T) {
		if _, err := svc.Search(t.Context(), "", hs.SearchRequest{Query: "x"}); hs.ErrorKind(err) != hs.EINVALID {
			t.Errorf("Search without user = %v, want EINVALID", err)
		}
	})
	t.Run("limits are inclusive", func(t *testing.T) {
		for _, req := range []hs.SearchRequest{
			{Query: strings.Repeat("é", 1000)},
			{Query: "x", TopK: 50, ScoreThreshold: -1},
			{Query: "x", Weights: &hs.Weights{Semantic: 0.7, Keyword: 0.2, Fuzzy: 0.1}},
			{Query: "x", Weights: &hs.Weights{Keyword: 1}},
		} {
			if _, err := svc.Search(t.Context(), "alice", req); err != nil {
				t.Errorf("Search(%.20q…) = %v, want nil", req.Query, err)
			}
		}
	})
}

// TestServiceRules: the service checks requests against its own rules and
// fills in their defaults, which can be replaced (an admin's settings).
func TestServiceRules(t *testing.T) {
	st := openLocal(t)
	rules, err := hs.DefaultSearchRules().WithDefaults(hs.SearchDefaults{Fusion: hs.FusionLinear, Weights: hs.Weights{Keyword: 0.6, Fuzzy: 0.4}, TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	rules.MaxTopK = 5
	svc, err := search.New(search.Options{Dense: st, Sparse: st, Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	if got := svc.Rules(); got.MaxTopK != 5 || got.Defaults.Fusion != hs.FusionLinear {
		t.Errorf("Rules() = %+v", got)
	}
	res, err := svc.Search(t.Context(), "alice", hs.SearchRequest{Query: "pump"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Fusion != hs.FusionLinear || res.Weights != (hs.Weights{Keyword: 0.6, Fuzzy: 0.4}) {
		t.Errorf("defaults not applied: fusion %s, weights %+v", res.Fusion, res.Weights)
	}
	if _, err := svc.Search(t.Context(), "alice", hs.SearchRequest{Query: "pump", TopK: 6}); !strings.Contains(hs.ErrorMessage(err), "top_k must be between 1 and 5, got 6") {
		t.Errorf("top_k 6 with MaxTopK 5 = %v", err)
	}
}

func TestNewNeedsAStore(t *testing.T) {
	if _, err := search.New(search.Options{}); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("New without a store = %v, want EINVALID", err)
	}
}
