package search

import (
	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// candidatesPerPage is how many chunks each leg retrieves per document of
// the largest page, whatever the page size: the ranking of the first N
// documents must not depend on top_k (a top_k=30 page starts with the
// top_k=10 page), so every page is cut from the same fused list. Two
// chunks per document of the largest page (100 for MaxTopK 50) fill it
// even when documents have two matching chunks each, and leave room to
// refill a page after access checks.
const candidatesPerPage = 2

// plan is a validated request with every default filled in.
type plan struct {
	text       string // the query, trimmed
	query      analysis.Query
	algorithm  string
	fusion     string     // "" for single-leg algorithms
	weights    hs.Weights // effective: the request's, auto's or 1 on the single leg
	topK       int
	candidates int // chunks each leg retrieves
	threshold  float64
	filter     hs.Filter
	explain    bool
	feedback   *bool // the request's choice; nil: the service's default
	match      *matcher
	// Paging, order and counts (hs.SearchRequest).
	offset, resultWindow int
	sort, owner          string
	facets, includeWeak  bool
	noCorrection         bool
	// Set by Service.finish after retrieval: the semantic leg's baseline
	// and the corrections the keyword leg looked up.
	semantic  semanticBaseline
	corrected []hs.Correction
	// noCalibration leaves the semantic calibration out of explanations
	// (a similar search from several files: one baseline per file).
	noCalibration bool
}

// newPlan checks req against the rules (hs.SearchRules.Check: its EINVALID
// error names the rule broken) and fills in the effective weights: auto's
// for the query's shape, or 1 on the single leg of the other algorithms.
func newPlan(r hs.SearchRules, req hs.SearchRequest) (*plan, error) {
	req, err := r.Check(req)
	if err != nil {
		return nil, err
	}
	p := &plan{
		text:       req.Query,
		algorithm:  req.Algorithm,
		fusion:     req.Fusion,
		topK:       req.TopK,
		candidates: candidatesPerPage * r.MaxTopK,
		threshold:  req.ScoreThreshold,
		filter:     req.Filter,
		explain:    req.Explain,
		feedback:   req.Feedback,
		query:      analysis.ParseQuery(req.Query),

		offset:       req.Offset,
		resultWindow: max(r.MaxResultWindow, r.MaxTopK),
		sort:         req.Sort,
		owner:        req.Owner,
		facets:       req.Facets,
		includeWeak:  req.IncludeWeak,
		noCorrection: req.NoCorrection,
	}
	switch p.algorithm {
	case hs.AlgorithmHybrid:
		if p.fusion == hs.FusionAuto {
			p.weights = AutoWeights(p.query.Shape)
		} else {
			p.weights = *req.Weights
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

// verbatim reports whether the query has identifiers or quoted phrases,
// which candidates' text is searched for.
func (p *plan) verbatim() bool {
	return len(p.match.ids) > 0 || len(p.match.phrases) > 0
}

// legK is how many chunks each leg retrieves: the same for every page
// size.
func (p *plan) legK() int {
	return p.candidates
}
