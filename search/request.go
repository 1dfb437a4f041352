package search

import (
	"math"
	"strings"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// Request limits.
const (
	// MaxQueryRunes is the longest query, in characters (runes) after
	// trimming surrounding space. Longer text is a document, not a query;
	// it would also flood the legs with terms.
	MaxQueryRunes = 1000
	// DefaultTopK is the page size when a request gives none.
	DefaultTopK = 10
	// MaxTopK is the largest page a request may ask for.
	MaxTopK = 50
)

// candidates is how many chunks each leg retrieves, whatever the page
// size: the ranking of the first N documents must not depend on top_k
// (a top_k=30 page starts with the top_k=10 page), so every page is cut
// from the same fused list. 100 chunks fill the largest page (MaxTopK
// documents) even when documents have two matching chunks each, and
// leave room to refill a page after access checks.
const candidates = 2 * MaxTopK

// weightSlack absorbs float rounding in "the weights sum to at most 1"
// (0.7 + 0.2 + 0.1 is 1.0000000000000002).
const weightSlack = 1e-9

// plan is a validated request with every default filled in.
type plan struct {
	text      string // the query, trimmed
	query     analysis.Query
	algorithm string
	fusion    string     // "" for single-leg algorithms
	weights   hs.Weights // effective: the request's, auto's or 1 on the single leg
	topK      int
	threshold float64
	filter    hs.Filter
	explain   bool
	match     *matcher
}

// Validate reports whether req is a valid search request: it returns the
// EINVALID error Search would return, or nil. The rules: the query is not
// empty or blank and has at most MaxQueryRunes characters; the algorithm is
// "", hybrid, semantic, keyword or fuzzy; the fusion is "", rrf, linear or
// auto, and auto comes without weights; weights are finite, each ≥ 0, sum
// to at most 1 and are not all 0; top_k is 0 (DefaultTopK) or 1 to
// MaxTopK; score_threshold is in [-1, 1]; filter types are "file" or
// "note", and modified_after is before modified_before when both are set.
func Validate(req hs.SearchRequest) error {
	_, err := newPlan(req)
	return err
}

func newPlan(req hs.SearchRequest) (*plan, error) {
	p := &plan{
		text:      strings.TrimSpace(req.Query),
		algorithm: req.Algorithm,
		fusion:    req.Fusion,
		topK:      req.TopK,
		threshold: req.ScoreThreshold,
		filter:    req.Filter,
		explain:   req.Explain,
	}
	if p.text == "" {
		return nil, invalid("search: the query is empty")
	}
	if n := utf8.RuneCountInString(p.text); n > MaxQueryRunes {
		return nil, invalid("search: the query has %d characters, at most %d are allowed", n, MaxQueryRunes)
	}
	if p.algorithm == "" {
		p.algorithm = hs.AlgorithmHybrid
	}
	switch p.algorithm {
	case hs.AlgorithmHybrid, hs.AlgorithmSemantic, hs.AlgorithmKeyword, hs.AlgorithmFuzzy:
	default:
		return nil, invalid("search: unknown algorithm %q (use hybrid, semantic, keyword or fuzzy)", req.Algorithm)
	}
	if p.fusion == "" {
		p.fusion = hs.FusionRRF
	}
	switch p.fusion {
	case hs.FusionRRF, hs.FusionLinear:
	case hs.FusionAuto:
		if req.Weights != nil {
			return nil, invalid("search: fusion auto chooses the weights itself; send weights with rrf or linear, or none")
		}
	default:
		return nil, invalid("search: unknown fusion %q (use rrf, linear or auto)", req.Fusion)
	}
	p.weights = hs.DefaultWeights
	if req.Weights != nil {
		if err := checkWeights(*req.Weights); err != nil {
			return nil, err
		}
		p.weights = *req.Weights
	}
	switch {
	case p.topK == 0:
		p.topK = DefaultTopK
	case p.topK < 0 || p.topK > MaxTopK:
		return nil, invalid("search: top_k must be between 1 and %d, got %d", MaxTopK, req.TopK)
	}
	if math.IsNaN(p.threshold) || p.threshold < -1 || p.threshold > 1 {
		return nil, invalid("search: score_threshold must be between -1 and 1 (a cosine similarity), got %v", req.ScoreThreshold)
	}
	if err := checkFilter(p.filter); err != nil {
		return nil, err
	}
	p.query = analysis.ParseQuery(p.text)
	switch p.algorithm {
	case hs.AlgorithmHybrid:
		if p.fusion == hs.FusionAuto {
			p.weights = AutoWeights(p.query.Shape)
		}
	case hs.AlgorithmSemantic:
		p.fusion, p.weights = "", hs.Weights{Semantic: 1}
	case hs.AlgorithmKeyword:
		p.fusion, p.weights = "", hs.Weights{Keyword: 1}
	case hs.AlgorithmFuzzy:
		p.fusion, p.weights = "", hs.Weights{Fuzzy: 1}
	}
	p.match = newMatcher(p.query)
	return p, nil
}

// checkWeights enforces the weight rules, naming the one broken.
func checkWeights(w hs.Weights) error {
	for _, x := range []struct {
		name string
		v    float64
	}{{"semantic", w.Semantic}, {"keyword", w.Keyword}, {"fuzzy", w.Fuzzy}} {
		if math.IsNaN(x.v) || math.IsInf(x.v, 0) {
			return invalid("search: the %s weight must be a number, got %v", x.name, x.v)
		}
		if x.v < 0 {
			return invalid("search: weights must be ≥ 0, the %s weight is %v", x.name, x.v)
		}
	}
	sum := w.Semantic + w.Keyword + w.Fuzzy
	if sum > 1+weightSlack {
		return invalid("search: weights must sum to at most 1, they sum to %v", sum)
	}
	if sum == 0 {
		return invalid("search: at least one weight must be above 0")
	}
	return nil
}

// checkFilter rejects filters no document can match by mistake.
func checkFilter(f hs.Filter) error {
	for _, t := range f.Types {
		if t != hs.DocFile && t != hs.DocNote {
			return invalid("search: unknown document type %q in the filter (use file or note)", t)
		}
	}
	if a, b := f.ModifiedAfter, f.ModifiedBefore; !a.IsZero() && !b.IsZero() && !a.Before(b) {
		return invalid("search: modified_after (%s) must be before modified_before (%s)", a.Format("2006-01-02T15:04:05Z07:00"), b.Format("2006-01-02T15:04:05Z07:00"))
	}
	return nil
}

func invalid(format string, args ...any) error {
	return hs.Errorf(hs.EINVALID, format, args...)
}

// weight returns the effective weight of a leg.
func (p *plan) weight(leg string) float64 {
	switch leg {
	case hs.AlgorithmSemantic:
		return p.weights.Semantic
	case hs.AlgorithmKeyword:
		return p.weights.Keyword
	case hs.AlgorithmFuzzy:
		return p.weights.Fuzzy
	}
	return 0
}

// legK is how many chunks each leg retrieves: candidates, for every page
// size.
func (p *plan) legK() int {
	return candidates
}
