package hybridsearch

import (
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// SearchRules are the limits, choices and defaults of a search request:
// one set, checked by Check wherever a request comes in (the HTTP API, the
// MCP tool, the search engine) and served to the search panel in its
// initial state, so the panel's checks and sliders follow the server.
// DefaultSearchRules returns the built-in set; Defaults can be replaced at
// run time (an admin's default fusion and weights) with WithDefaults.
type SearchRules struct {
	// MaxQueryRunes is the longest query, in characters after trimming
	// surrounding space. Longer text is a document, not a query.
	MaxQueryRunes int `json:"max_query_runes"`
	// MaxTopK is the largest page a request may ask for (top_k 1 to it).
	MaxTopK int `json:"max_top_k"`
	// MinScoreThreshold and MaxScoreThreshold bound score_threshold, a
	// cosine similarity.
	MinScoreThreshold float64 `json:"min_score_threshold"`
	MaxScoreThreshold float64 `json:"max_score_threshold"`
	// MaxWeightSum is what the three weights may sum to at most; each is
	// ≥ 0 and not all are 0.
	MaxWeightSum float64 `json:"max_weight_sum"`
	// Algorithms and Fusions are the accepted values, in display order.
	Algorithms []string `json:"algorithms"`
	Fusions    []string `json:"fusions"`
	// DocTypes are the document types a filter may name.
	DocTypes []DocType `json:"doc_types"`
	// MaxPathPrefixBytes bounds a path_prefix filter.
	MaxPathPrefixBytes int `json:"max_path_prefix_bytes"`
	// DateFormats are the Go layouts modified_after and modified_before
	// accept in query strings and tool arguments, tried in order; a time
	// without a zone is UTC.
	DateFormats []string `json:"date_formats"`
	// MaxResultWindow is how deep paging reaches: offset + top_k is at
	// most this many matches.
	MaxResultWindow int `json:"max_result_window"`
	// Sorts and Owners are the accepted sort orders and owner choices
	// ("" is relevance and both).
	Sorts  []string `json:"sorts"`
	Owners []string `json:"owners"`
	// WeakRelevance is the relevance below which a document is a weak
	// match: counted in SearchResult.WeakCount, left out of the results
	// unless a request asks for them (IncludeWeak). Relevance is
	// calibrated per leg (the share of the query matched, or for the
	// semantic leg the standout below), so one threshold serves every
	// embedding model.
	WeakRelevance float64 `json:"weak_relevance"`
	// SemanticMinGap is how far above the query's baseline (the median
	// of its cosines to the user's own chunks) a semantic candidate must
	// stand to count as a match and not chance, as a share of the way
	// from the baseline to 1 (hs.SemanticCalibration). A share, not a
	// cosine difference, holds for models whose cosines crowd into
	// 0.7–1.0 (e5) as for those that spread them over 0–1
	// (nomic-embed-text): squeezing cosines towards 1 leaves it unchanged.
	SemanticMinGap float64 `json:"semantic_min_gap"`
	// DefaultVizSample and MaxVizSample are the vector-space view's
	// sample of the user's other chunks: the default and the largest.
	DefaultVizSample int `json:"default_viz_sample"`
	MaxVizSample     int `json:"max_viz_sample"`
	// Defaults fill what a request leaves out.
	Defaults SearchDefaults `json:"defaults"`
}

// SearchDefaults are the values a request that names none gets.
type SearchDefaults struct {
	Algorithm string  `json:"algorithm"`
	Fusion    string  `json:"fusion"`
	Weights   Weights `json:"weights"` // for rrf and linear; auto picks its own
	TopK      int     `json:"top_k"`
}

// weightSlack absorbs float rounding in "the weights sum to at most 1"
// (0.7 + 0.2 + 0.1 is 1.0000000000000002).
const weightSlack = 1e-9

// DefaultSearchRules returns the built-in rules, a fresh copy each call.
func DefaultSearchRules() SearchRules {
	return SearchRules{
		MaxQueryRunes:      1000,
		MaxTopK:            50,
		MinScoreThreshold:  -1,
		MaxScoreThreshold:  1,
		MaxWeightSum:       1,
		Algorithms:         []string{AlgorithmHybrid, AlgorithmSemantic, AlgorithmKeyword, AlgorithmFuzzy},
		Fusions:            []string{FusionRRF, FusionLinear, FusionAuto},
		DocTypes:           []DocType{DocFile, DocNote},
		MaxPathPrefixBytes: 4096,
		DateFormats:        []string{time.RFC3339Nano, "2006-01-02T15:04:05", time.DateOnly},
		MaxResultWindow:    100,
		Sorts:              []string{SortRelevance, SortModified},
		Owners:             []string{OwnerMe, OwnerOthers},
		WeakRelevance:      0.1,
		SemanticMinGap:     0.18,
		DefaultVizSample:   300,
		MaxVizSample:       1000,
		Defaults: SearchDefaults{
			Algorithm: AlgorithmHybrid,
			Fusion:    FusionRRF,
			Weights:   DefaultWeights,
			TopK:      10,
		},
	}
}

// OrDefault returns r, or DefaultSearchRules when r is the zero value.
func (r SearchRules) OrDefault() SearchRules {
	if r.MaxTopK == 0 {
		return DefaultSearchRules()
	}
	return r
}

// WithDefaults returns r with d as its defaults; empty fields of d keep
// r's. It returns an EINVALID error when d breaks the rules (weights that
// sum over MaxWeightSum, weights with auto, an unknown fusion, ...).
func (r SearchRules) WithDefaults(d SearchDefaults) (SearchRules, error) {
	out := r
	if d.Algorithm != "" {
		out.Defaults.Algorithm = d.Algorithm
	}
	if d.Fusion != "" {
		out.Defaults.Fusion = d.Fusion
	}
	if d.Weights != (Weights{}) {
		out.Defaults.Weights = d.Weights
	}
	if d.TopK != 0 {
		out.Defaults.TopK = d.TopK
	}
	def := out.Defaults
	if !slices.Contains(r.Algorithms, def.Algorithm) {
		return r, Errorf(EINVALID, "unknown default algorithm %s (use %s)", Quote(def.Algorithm), strings.Join(r.Algorithms, ", "))
	}
	if !slices.Contains(r.Fusions, def.Fusion) {
		return r, Errorf(EINVALID, "unknown default fusion %s (use %s)", Quote(def.Fusion), strings.Join(r.Fusions, ", "))
	}
	if err := r.CheckWeights(def.Weights); err != nil {
		return r, err
	}
	if def.TopK < 1 || def.TopK > r.MaxTopK {
		return r, Errorf(EINVALID, "the default top_k must be between 1 and %d, got %d", r.MaxTopK, def.TopK)
	}
	return out, nil
}

// Check reports whether req follows the rules and returns it with every
// default filled in: the query trimmed, the algorithm, the fusion, the
// weights (for hybrid with rrf or linear) and top_k. A request with
// weights but no fusion gets rrf when the default fusion is auto. Any
// broken rule gives an EINVALID error naming it; values are quoted short
// (Quote) and numbers printed plainly (FormatNumber).
//
// The rules: the query is not blank and has at most MaxQueryRunes
// characters; the algorithm and the fusion are among Algorithms and
// Fusions; auto comes without weights; weights are numbers ≥ 0 that sum to
// at most MaxWeightSum and are not all 0; top_k is 0 (the default) or 1 to
// MaxTopK; score_threshold is within its bounds; filter types are among
// DocTypes, the path prefix has at most MaxPathPrefixBytes bytes, and
// modified_after is before modified_before when both are set.
func (r SearchRules) Check(req SearchRequest) (SearchRequest, error) {
	req.Query = strings.TrimSpace(req.Query)
	if req.Query == "" {
		return req, Errorf(EINVALID, "the query is empty")
	}
	if n := utf8.RuneCountInString(req.Query); n > r.MaxQueryRunes {
		return req, Errorf(EINVALID, "the query has %d characters, at most %d are allowed", n, r.MaxQueryRunes)
	}
	if req.Algorithm == "" {
		req.Algorithm = r.Defaults.Algorithm
	}
	if !slices.Contains(r.Algorithms, req.Algorithm) {
		return req, Errorf(EINVALID, "unknown algorithm %s (use %s)", Quote(req.Algorithm), orList(r.Algorithms))
	}
	if req.Fusion == "" {
		req.Fusion = r.Defaults.Fusion
		if req.Fusion == FusionAuto && req.Weights != nil {
			req.Fusion = FusionRRF
		}
	}
	if !slices.Contains(r.Fusions, req.Fusion) {
		return req, Errorf(EINVALID, "unknown fusion %s (use %s)", Quote(req.Fusion), orList(r.Fusions))
	}
	if req.Fusion == FusionAuto && req.Weights != nil {
		return req, Errorf(EINVALID, "fusion auto chooses the weights itself; send weights with rrf or linear, or none")
	}
	if req.Weights != nil {
		if err := r.CheckWeights(*req.Weights); err != nil {
			return req, err
		}
	} else if req.Fusion != FusionAuto {
		w := r.Defaults.Weights
		req.Weights = &w
	}
	switch {
	case req.TopK == 0:
		req.TopK = r.Defaults.TopK
	case req.TopK < 0 || req.TopK > r.MaxTopK:
		return req, Errorf(EINVALID, "top_k must be between 1 and %d, got %d", r.MaxTopK, req.TopK)
	}
	if window := max(r.MaxResultWindow, r.MaxTopK); req.Offset < 0 || req.Offset+req.TopK > window {
		return req, Errorf(EINVALID, "offset must be between 0 and %d for top_k %d (paging reaches %d matches), got %d", max(window-req.TopK, 0), req.TopK, window, req.Offset)
	}
	if req.Sort != "" && !slices.Contains(r.Sorts, req.Sort) {
		return req, Errorf(EINVALID, "unknown sort %s (use %s)", Quote(req.Sort), orList(r.Sorts))
	}
	if req.Owner != "" && !slices.Contains(r.Owners, req.Owner) {
		return req, Errorf(EINVALID, "unknown owner %s (use %s)", Quote(req.Owner), orList(r.Owners))
	}
	if t := req.ScoreThreshold; math.IsNaN(t) || t < r.MinScoreThreshold || t > r.MaxScoreThreshold {
		return req, Errorf(EINVALID, "score_threshold must be between %s and %s (a cosine similarity), got %s",
			FormatNumber(r.MinScoreThreshold), FormatNumber(r.MaxScoreThreshold), FormatNumber(t))
	}
	return req, r.checkFilter(req.Filter)
}

// CheckWeights enforces the weight rules, naming the one broken: each
// weight is a number ≥ 0, they sum to at most MaxWeightSum, not all are 0.
func (r SearchRules) CheckWeights(w Weights) error {
	for _, x := range []struct {
		name string
		v    float64
	}{{AlgorithmSemantic, w.Semantic}, {AlgorithmKeyword, w.Keyword}, {AlgorithmFuzzy, w.Fuzzy}} {
		if math.IsNaN(x.v) || math.IsInf(x.v, 0) {
			return Errorf(EINVALID, "the %s weight must be a number, got %s", x.name, FormatNumber(x.v))
		}
		if x.v < 0 {
			return Errorf(EINVALID, "weights must be ≥ 0, the %s weight is %s", x.name, FormatNumber(x.v))
		}
	}
	sum := w.Semantic + w.Keyword + w.Fuzzy
	if sum > r.MaxWeightSum+weightSlack {
		return Errorf(EINVALID, "weights must sum to at most %s, they sum to %s", FormatNumber(r.MaxWeightSum), FormatNumber(sum))
	}
	if sum == 0 {
		return Errorf(EINVALID, "at least one weight must be above 0")
	}
	return nil
}

// RequestWeights reads the weights a request gives leg by leg (nil: not
// given) into the weights it asks for, the same way on every transport
// (GET and POST /api/search, /api/viz, MCP's search tool). None given, or an
// algorithm other than hybrid (a single leg needs none), gives nil: the
// search uses the defaults. Otherwise the legs not given keep their
// defaults, r.Defaults.Weights (pass the defaults in force), and the three
// are checked by CheckWeights, so semantic 0.9 alone sums to more than 1
// with the defaults 0.3 and 0.2 and is refused. A broken rule is EINVALID
// and lists the weights used by their parameter names, defaults marked.
func (r SearchRules) RequestWeights(algorithm string, semantic, keyword, fuzzy *float64) (*Weights, error) {
	if semantic == nil && keyword == nil && fuzzy == nil {
		return nil, nil
	}
	if algorithm == "" {
		algorithm = r.Defaults.Algorithm
	}
	if algorithm != AlgorithmHybrid {
		return nil, nil
	}
	w := r.Defaults.Weights
	var used []string
	for _, x := range []struct {
		name string
		v    *float64
		dst  *float64
	}{{"semantic_weight", semantic, &w.Semantic}, {"keyword_weight", keyword, &w.Keyword}, {"fuzzy_weight", fuzzy, &w.Fuzzy}} {
		note := ""
		if x.v != nil {
			*x.dst = *x.v
		} else {
			note = " (default)"
		}
		used = append(used, x.name+" "+FormatNumber(*x.dst)+note)
	}
	if err := r.CheckWeights(w); err != nil {
		return nil, Errorf(EINVALID, "%s (%s)", ErrorMessage(err), strings.Join(used, ", "))
	}
	return &w, nil
}

// CheckVizSample checks the vector-space view's sample size and returns it
// with the default for 0.
func (r SearchRules) CheckVizSample(n int) (int, error) {
	switch {
	case n == 0:
		return r.DefaultVizSample, nil
	case n < 0 || n > r.MaxVizSample:
		return 0, Errorf(EINVALID, "sample must be between 0 and %d, got %d", r.MaxVizSample, n)
	}
	return n, nil
}

// ParseTime reads a time in one of DateFormats for the parameter name; ""
// is the zero time. A time without a zone is UTC.
func (r SearchRules) ParseTime(name, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range r.DateFormats {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, Errorf(EINVALID, "%s %s is not an RFC 3339 date (2026-01-31) or date-time (2026-01-31T09:00:00Z)", name, Quote(s))
}

// checkFilter rejects filters no document can match by mistake.
func (r SearchRules) checkFilter(f Filter) error {
	for _, t := range f.Types {
		if !slices.Contains(r.DocTypes, t) {
			return Errorf(EINVALID, "unknown document type %s in the filter (use %s)", Quote(string(t)), orList(r.DocTypes))
		}
	}
	if n := len(f.PathPrefix); n > r.MaxPathPrefixBytes {
		return Errorf(EINVALID, "path_prefix has %d bytes, at most %d are allowed", n, r.MaxPathPrefixBytes)
	}
	if a, b := f.ModifiedAfter, f.ModifiedBefore; !a.IsZero() && !b.IsZero() && !a.Before(b) {
		return Errorf(EINVALID, "modified_after (%s) must be before modified_before (%s)", a.Format(time.RFC3339), b.Format(time.RFC3339))
	}
	return nil
}

// orList joins values as "a, b or c".
func orList[T ~string](values []T) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = string(v)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
