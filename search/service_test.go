package search_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/search"
)

// sampleDocs is a small mixed corpus used by the service tests.
var sampleDocs = []doc{
	{ID: 1, Path: "/Engineering/Kubernetes upgrade runbook.md", Text: "# Kubernetes upgrade runbook\n\nDrain one node at a time, upgrade the kubelet, uncordon the node.\n\n## Rollback\n\nKeep the previous kubelet package cached."},
	{ID: 2, Path: "/Notes/Groceries.md", Type: hs.DocNote, Text: "# Groceries\n\nApples, butter, flour and a new kettle for the kitchen."},
	{ID: 3, Path: "/Finance/Budget 2025.csv", MIME: "text/csv", Modified: baseTime.AddDate(0, -6, 0), Text: "item,amount\ncloud hosting,12000\nkubernetes support,4000\nlaptops,9000"},
	{ID: 4, Path: "/Engineering/Upgrade policy.md", Modified: baseTime.AddDate(0, 1, 0), Text: "# Upgrade policy\n\nEvery cluster upgrade is announced a week ahead. Kubernetes minor versions are never skipped."},
}

func TestResultShape(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "  kubernetes upgrade  ", Explain: true})
	if res.Query != "kubernetes upgrade" || res.Algorithm != hs.AlgorithmHybrid || res.Fusion != hs.FusionRRF || res.Weights != hs.DefaultWeights {
		t.Errorf("result header = %q %s %s %+v", res.Query, res.Algorithm, res.Fusion, res.Weights)
	}
	if len(res.Skipped) != 0 || res.TookMS <= 0 {
		t.Errorf("skipped %v, took %v ms", res.Skipped, res.TookMS)
	}
	first := res.Results[0]
	if first.FileID != 1 || first.Title != "Kubernetes upgrade runbook" || first.MIME != "text/markdown" || first.Type != hs.DocFile || !first.Modified.Equal(baseTime) {
		t.Errorf("first result = %+v", first)
	}
	if first.Link != "https://cloud.example.com/index.php/f/1" {
		t.Errorf("link = %q", first.Link)
	}
	ex := first.Explain
	// Every word is in the index, so the fuzzy leg has nothing to add and
	// its weight goes to the others: semantic 0.625, keyword 0.375.
	if ex == nil || len(ex.Legs) != 2 || ex.Legs[hs.AlgorithmKeyword].Rank != 1 || math.Abs(ex.Fused-1.0/61) > 1e-12 {
		t.Errorf("explain = %+v", ex)
	}
	var blend float64
	for _, l := range ex.Legs {
		blend += l.Weight * l.Match
	}
	if math.Abs(first.Relevance-blend) > 1e-9 || ex.Legs[hs.AlgorithmKeyword].Match != 1 {
		t.Errorf("relevance %v, want the legs' blend %v with a full keyword match: %+v", first.Relevance, blend, ex.Legs)
	}
	// The excerpt is the best chunk with the query terms marked.
	runes := []rune(first.Excerpt.Text)
	var marked []string
	for _, h := range first.Excerpt.Highlights {
		marked = append(marked, strings.ToLower(string(runes[h[0]:h[1]])))
	}
	if !slices.Contains(marked, "kubernetes") || !slices.Contains(marked, "upgrade") {
		t.Errorf("highlights %v of %q", marked, first.Excerpt.Text)
	}
	for _, r := range res.Results {
		if r.FileID == 2 && r.Link != "https://cloud.example.com/index.php/apps/notes/note/2" {
			t.Errorf("note link = %q", r.Link)
		}
	}
	if res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubelet"}); res.Results[0].Explain != nil {
		t.Errorf("explain without asking: %+v", res.Results[0].Explain)
	}
}

func TestMoreChunks(t *testing.T) {
	st := openLocal(t)
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "## Part %d\n\nThe turbine blade inspection, step %d: look for cracks near the root and measure the blade tip clearance with the feeler gauge.\n\n", i, i)
	}
	mustIndex(t, st, doc{ID: 9, Path: "/Manuals/Turbine.md", Text: b.String()}, sampleDocs[1])
	svc := mustService(t, st)
	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "turbine blade inspection"})
	if res.Results[0].FileID != 9 || len(res.Results[0].More) != 3 {
		t.Fatalf("first result %d with %d more chunks, want 9 with 3", res.Results[0].FileID, len(res.Results[0].More))
	}
	seen := map[int]bool{res.Results[0].Excerpt.ChunkNo: true}
	for _, m := range res.Results[0].More {
		if seen[m.ChunkNo] || len(m.Highlights) == 0 {
			t.Errorf("more chunk %d repeated or without highlights", m.ChunkNo)
		}
		seen[m.ChunkNo] = true
	}
	for _, r := range res.Results[1:] {
		if r.FileID == 9 {
			t.Errorf("document 9 listed twice")
		}
	}
}

func TestAlgorithms(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	tests := []struct {
		req         hs.SearchRequest
		wantLegs    []string
		wantWeights hs.Weights
		wantFusion  string
	}{
		{hs.SearchRequest{Query: "kubernetes", Algorithm: hs.AlgorithmSemantic}, []string{hs.AlgorithmSemantic}, hs.Weights{Semantic: 1}, ""},
		{hs.SearchRequest{Query: "kubernetes", Algorithm: hs.AlgorithmKeyword}, []string{hs.AlgorithmKeyword}, hs.Weights{Keyword: 1}, ""},
		{hs.SearchRequest{Query: "kubernetes", Algorithm: hs.AlgorithmFuzzy, Weights: &hs.Weights{Semantic: 1}}, []string{hs.AlgorithmFuzzy}, hs.Weights{Fuzzy: 1}, ""},
		{hs.SearchRequest{Query: "kubernetes", Weights: &hs.Weights{Keyword: 0.4, Fuzzy: 0.1}}, []string{hs.AlgorithmKeyword, hs.AlgorithmFuzzy}, hs.Weights{Keyword: 0.4, Fuzzy: 0.1}, hs.FusionRRF},
		{hs.SearchRequest{Query: "kubernetes", Fusion: hs.FusionLinear}, []string{hs.AlgorithmSemantic, hs.AlgorithmKeyword, hs.AlgorithmFuzzy}, hs.DefaultWeights, hs.FusionLinear},
		{hs.SearchRequest{Query: "how are kubernetes upgrades announced?", Fusion: hs.FusionAuto}, []string{hs.AlgorithmSemantic, hs.AlgorithmKeyword, hs.AlgorithmFuzzy}, search.AutoWeights(analysis.ShapeQuestion), hs.FusionAuto},
	}
	for _, tt := range tests {
		name := tt.req.Algorithm + "/" + tt.req.Fusion
		t.Run(name, func(t *testing.T) {
			tt.req.Explain = true
			res := mustSearch(t, svc, "alice", tt.req)
			if res.Weights != tt.wantWeights || res.Fusion != tt.wantFusion {
				t.Errorf("weights %+v fusion %q, want %+v %q", res.Weights, res.Fusion, tt.wantWeights, tt.wantFusion)
			}
			if len(res.Results) == 0 {
				t.Fatal("no results")
			}
			for _, r := range res.Results {
				for leg := range r.Explain.Legs {
					if !slices.Contains(tt.wantLegs, leg) {
						t.Errorf("result %d explained by leg %s, want only %v", r.FileID, leg, tt.wantLegs)
					}
				}
				if r.Relevance < 0 || r.Relevance > 1 {
					t.Errorf("relevance %v", r.Relevance)
				}
			}
		})
	}
	t.Run("auto reports the shape", func(t *testing.T) {
		res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "how are kubernetes upgrades announced?", Fusion: hs.FusionAuto})
		if res.Shape != "question" || res.Weights.Semantic != 0.55 {
			t.Errorf("auto: shape %q weights %+v", res.Shape, res.Weights)
		}
	})
	t.Run("semantic relevance is the gap over the baseline", func(t *testing.T) {
		res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes", Algorithm: hs.AlgorithmSemantic, Explain: true})
		r := res.Results[0]
		cal := r.Explain.Semantic
		if cal == nil || cal.Cosine != r.Explain.Legs[hs.AlgorithmSemantic].Score || math.Abs(r.Relevance-cal.Gap) > 1e-9 ||
			math.Abs(cal.Gap-(cal.Cosine-cal.Baseline)/(1-cal.Baseline)) > 1e-9 || cal.Gap < cal.MinGap {
			t.Errorf("relevance %v, calibration %+v", r.Relevance, cal)
		}
		// Four documents are too few to compare with: the reference
		// texts stand in.
		if cal == nil || cal.Reference == 0 || cal.Sampled <= cal.Reference {
			t.Errorf("calibration %+v, want the user's chunks and the reference texts", cal)
		}
	})
	t.Run("keyword relevance is the share of the query matched", func(t *testing.T) {
		res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes budget", Algorithm: hs.AlgorithmKeyword, Explain: true})
		for _, r := range res.Results {
			if m := r.Explain.Legs[hs.AlgorithmKeyword].Match; r.Relevance != m || m <= 0 || m > 1 {
				t.Errorf("file %d: relevance %v, keyword match %v", r.FileID, r.Relevance, m)
			}
		}
		// The budget sheet has both words, the runbook only one.
		if got := ids(res); len(got) < 2 || got[0] != 3 || res.Results[1].Relevance > 0.75*res.Results[0].Relevance {
			t.Errorf("results %v with relevances %v, want 3 first and well ahead", got, relevances(res))
		}
	})
}

func relevances(res hs.SearchResult) []float64 {
	out := make([]float64, len(res.Results))
	for i, r := range res.Results {
		out[i] = r.Relevance
	}
	return out
}

func TestScoreThreshold(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	all := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade", Algorithm: hs.AlgorithmSemantic, Explain: true})
	if len(all.Results) < 2 {
		t.Fatalf("threshold 0 returned %d of %d documents, want at least 2", len(all.Results), len(sampleDocs))
	}
	cut := (all.Results[0].Explain.Fused + all.Results[1].Explain.Fused) / 2
	res := mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade", Algorithm: hs.AlgorithmSemantic, ScoreThreshold: cut})
	if got := ids(res); !slices.Equal(got, ids(all)[:1]) {
		t.Errorf("threshold %v kept %v, want %v", cut, got, ids(all)[:1])
	}
	// In hybrid, the threshold only thins the semantic leg.
	res = mustSearch(t, svc, "alice", hs.SearchRequest{Query: "kubernetes upgrade", ScoreThreshold: 1, Explain: true})
	for _, r := range res.Results {
		if _, ok := r.Explain.Legs[hs.AlgorithmSemantic]; ok {
			t.Errorf("semantic hit %d above threshold 1", r.FileID)
		}
	}
	if len(res.Results) == 0 {
		t.Error("threshold 1 removed keyword and fuzzy results too")
	}
}

func TestTopK(t *testing.T) {
	st := openLocal(t)
	var docs []doc
	for i := range 60 {
		docs = append(docs, doc{ID: hs.FileID(100 + i), Path: fmt.Sprintf("/Logs/day %02d.md", i), Text: fmt.Sprintf("Shift log %d: the pump ran for %d hours without alarms.", i, i%24)})
	}
	mustIndex(t, st, docs...)
	svc := mustService(t, st)
	if got := len(mustSearch(t, svc, "alice", hs.SearchRequest{Query: "pump shift log"}).Results); got != hs.DefaultSearchRules().Defaults.TopK {
		t.Errorf("default page has %d results, want %d", got, hs.DefaultSearchRules().Defaults.TopK)
	}
	if got := len(mustSearch(t, svc, "alice", hs.SearchRequest{Query: "pump shift log", TopK: 3}).Results); got != 3 {
		t.Errorf("top_k 3 gave %d results", got)
	}
	if got := len(mustSearch(t, svc, "alice", hs.SearchRequest{Query: "pump shift log", TopK: 50}).Results); got != 50 {
		t.Errorf("top_k 50 gave %d results, want a full page", got)
	}
}

func TestDeterministic(t *testing.T) {
	st := openLocal(t)
	mustIndex(t, st, sampleDocs...)
	svc := mustService(t, st)
	req := hs.SearchRequest{Query: "upgrade", Explain: true}
	first := mustSearch(t, svc, "alice", req)
	for range 20 {
		again := mustSearch(t, svc, "alice", req)
		if !slices.Equal(ids(again), ids(first)) {
			t.Fatalf("order changed: %v then %v", ids(first), ids(again))
		}
	}
}
