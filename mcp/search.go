package mcp

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	hs "github.com/hybrid-search/hybridsearch"
)

// excerptRunes is the length of a result's one-line excerpt.
const excerptRunes = 300

const searchDescription = `Search the signed-in user's Nextcloud files and notes (only documents the user can read). ` +
	`Hybrid search fuses three retrievals: semantic (meaning, across languages), keyword (BM25; exact identifiers such as "PII-2024-0042" rank first) and fuzzy (typo-tolerant). ` +
	`Returns, per document, the title, path, link, file_id, a relevance in [0, 1], a short excerpt and the matching passages (chunks) in full. ` +
	`Use nc_get_document with the file_id to read more of a document. ` +
	`When a retrieval cannot run (no embedding model, a component down), the others still answer and skipped_legs names it with a code and a reason.`

// searchInput are nc_semantic_search's arguments: the names and defaults
// of nextcloud-mcp-server's tool, plus fusion and the filters.
type searchInput struct {
	Query          string   `json:"query"`
	Limit          int      `json:"limit,omitempty"`
	ScoreThreshold float64  `json:"score_threshold,omitempty"`
	Algorithm      string   `json:"algorithm,omitempty"`
	SemanticWeight *float64 `json:"semantic_weight,omitempty"`
	KeywordWeight  *float64 `json:"keyword_weight,omitempty"`
	FuzzyWeight    *float64 `json:"fuzzy_weight,omitempty"`
	Fusion         string   `json:"fusion,omitempty"`
	DocTypes       []string `json:"doc_types,omitempty"`
	PathPrefix     string   `json:"path_prefix,omitempty"`
	ModifiedAfter  string   `json:"modified_after,omitempty"`
	ModifiedBefore string   `json:"modified_before,omitempty"`
}

// searchInputSchema describes nc_semantic_search's arguments with the
// limits, choices and defaults of the search rules. The fusion and the
// weights have no schema default: an admin may change them while the app
// runs (a client may keep an old tools list), and the search fills in the
// current ones; their descriptions name the defaults in force when the
// list was sent (see handler.server).
func searchInputSchema(r hs.SearchRules) (*jsonschema.Schema, error) {
	d := r.Defaults
	weight := func(leg string, v float64) func(*jsonschema.Schema) {
		return all(atLeast(0), describe(fmt.Sprintf("Weight of the %s leg in hybrid search, ≥ 0 (currently %s; an admin may change it). semantic_weight, keyword_weight and fuzzy_weight must sum to at most %s; those not given take their defaults. Ignored by the other algorithms; refused with fusion auto.",
			leg, hs.FormatNumber(v), hs.FormatNumber(r.MaxWeightSum))))
	}
	date := "an RFC 3339 date (2026-01-31) or date-time (2026-01-31T09:00:00Z)"
	types := make([]any, len(r.DocTypes))
	for i, t := range r.DocTypes {
		types[i] = string(t)
	}
	return schemaFor[searchInput](map[string]func(*jsonschema.Schema){
		"query":           all(describe("What to look for: a question, keywords or an identifier."), maxLength(r.MaxQueryRunes), func(p *jsonschema.Schema) { one := 1; p.MinLength = &one }),
		"limit":           all(describe(fmt.Sprintf("Most documents to return, 1 to %d.", r.MaxTopK)), between(1, float64(r.MaxTopK)), def(d.TopK)),
		"score_threshold": all(describe(fmt.Sprintf("Drop semantic matches whose cosine similarity is below this, %s to %s; 0 keeps all.", hs.FormatNumber(r.MinScoreThreshold), hs.FormatNumber(r.MaxScoreThreshold))), between(r.MinScoreThreshold, r.MaxScoreThreshold), def(0)),
		"algorithm":       all(describe("hybrid (all three fused), semantic, keyword or fuzzy."), oneOf(r.Algorithms...), def(d.Algorithm)),
		"semantic_weight": weight(hs.AlgorithmSemantic, d.Weights.Semantic),
		"keyword_weight":  weight(hs.AlgorithmKeyword, d.Weights.Keyword),
		"fuzzy_weight":    weight(hs.AlgorithmFuzzy, d.Weights.Fuzzy),
		"fusion":          all(describe(fmt.Sprintf("How hybrid search fuses the legs: rrf (weighted reciprocal rank fusion), linear (weighted normalized scores) or auto (weights chosen from the query's shape; send no weights with it). Default: the admin's choice, currently %s.", d.Fusion)), oneOf(r.Fusions...)),
		"doc_types":       all(describe(`Only these document types: "file", "note" or both.`), func(p *jsonschema.Schema) { p.Items.Enum = types }),
		"path_prefix":     all(describe(`Only documents in this folder, e.g. "/Projects/2026".`), maxLength(r.MaxPathPrefixBytes)),
		"modified_after":  describe("Only documents modified at or after this time: " + date + "."),
		"modified_before": describe("Only documents modified before this time: " + date + "."),
	})
}

// searchOutput is nc_semantic_search's structured result.
type searchOutput struct {
	Query       string         `json:"query"`
	Algorithm   string         `json:"algorithm"`
	Fusion      string         `json:"fusion,omitempty"`
	Results     []searchResult `json:"results"`
	TotalFound  int            `json:"total_found"`
	SkippedLegs []skippedLeg   `json:"skipped_legs,omitempty" jsonschema:"retrievals that could not run for this search; the others still answered"`
	Corrections []correction   `json:"corrections,omitempty" jsonschema:"typos the search corrected: it looked up the corrected words"`
	// CorrectedQuery, ReasonCode and Reason are hs.SearchResult's.
	CorrectedQuery string  `json:"corrected_query,omitempty" jsonschema:"the query as searched, with the corrections applied"`
	WeakCount      int     `json:"weak_count,omitempty" jsonschema:"weak matches left out (relevance below the threshold, or semantic matches that could not be told from chance)"`
	ReasonCode     string  `json:"reason_code,omitempty" jsonschema:"why there are no results when no retrieval could use the query: nothing_to_search (no word or number in it) or unknown_words (no document holds a word of it); retrying does not help"`
	Reason         string  `json:"reason,omitempty" jsonschema:"the same, in English"`
	TookMS         float64 `json:"took_ms"`
}

// correction is hs.Correction with its schema descriptions.
type correction struct {
	From string `json:"from" jsonschema:"the word as typed"`
	To   string `json:"to" jsonschema:"the word looked up instead"`
	Leg  string `json:"leg" jsonschema:"the retrieval that found the correction (fuzzy)"`
}

// skippedLeg is hs.SkippedLeg with its schema descriptions.
type skippedLeg struct {
	Leg    string `json:"leg" jsonschema:"semantic, keyword or fuzzy"`
	Code   string `json:"code" jsonschema:"why, in a stable word: semantic_off (no embedding model configured), embedder_unavailable (the embedding model did not answer), embedder_error (it refused the query), store_unavailable (the index store did not answer), store_error (it failed the lookup), timeout; new codes may appear"`
	Reason string `json:"reason" jsonschema:"why, in English"`
}

// searchResult is one document.
type searchResult struct {
	FileID    int64     `json:"file_id"`
	Title     string    `json:"title"`
	Path      string    `json:"path"`
	Link      string    `json:"link"`
	DocType   string    `json:"doc_type"`
	MIME      string    `json:"mime"`
	Modified  time.Time `json:"modified"`
	Relevance float64   `json:"relevance"`
	Excerpt   string    `json:"excerpt"`
	Chunks    []chunk   `json:"chunks"` // the best passage first
}

// chunk is one passage of a document.
type chunk struct {
	ChunkNo  int      `json:"chunk_no"`
	Text     string   `json:"text"`
	Page     int      `json:"page,omitempty"`
	Headings []string `json:"headings,omitempty"`
	// OCR says Text was recognised from a scan or photo: words may be
	// misread.
	OCR bool `json:"ocr,omitempty"`
}

// search runs nc_semantic_search.
func (h *handler) search(ctx context.Context, user hs.UserID, in searchInput) (searchOutput, string, error) {
	rules := h.rules
	if h.o.Defaults != nil {
		rules.Defaults = h.o.Defaults()
	}
	req, err := in.request(rules)
	if err != nil {
		return searchOutput{}, "", err
	}
	res, err := h.o.Search.Search(ctx, user, req)
	if err != nil {
		return searchOutput{}, "", err
	}
	out := searchOutput{Query: req.Query, Algorithm: res.Algorithm, Fusion: res.Fusion, Results: []searchResult{}, TookMS: res.TookMS}
	if out.Algorithm == "" {
		out.Algorithm = cmp.Or(req.Algorithm, h.rules.Defaults.Algorithm)
	}
	for _, s := range res.Skipped {
		out.SkippedLegs = append(out.SkippedLegs, skippedLeg(s))
	}
	for _, c := range res.Corrections {
		out.Corrections = append(out.Corrections, correction(c))
	}
	out.CorrectedQuery, out.WeakCount, out.ReasonCode, out.Reason = res.CorrectedQuery, res.WeakCount, res.ReasonCode, res.Reason
	for _, d := range res.Results {
		r := searchResult{
			FileID: int64(d.FileID), Title: d.Title, Path: d.Path, Link: d.Link, DocType: string(d.Type),
			MIME: d.MIME, Modified: d.Modified, Relevance: d.Relevance, Excerpt: excerpt(d.Excerpt),
		}
		for _, e := range append([]hs.Excerpt{d.Excerpt}, d.More...) {
			r.Chunks = append(r.Chunks, chunk{ChunkNo: e.ChunkNo, Text: e.Text, Page: e.Page, Headings: e.Headings, OCR: e.OCR})
		}
		out.Results = append(out.Results, r)
	}
	out.TotalFound = len(out.Results)
	return out, renderSearch(out), nil
}

// request turns the arguments into a search request and checks it
// against the rules, so a bad argument is named as the tool calls it. The
// fusion and top_k stay as given (the search fills in the current
// defaults); weights are read by r.RequestWeights, as over HTTP (those not
// given keep r's defaults, the admin's in force now).
func (in searchInput) request(r hs.SearchRules) (hs.SearchRequest, error) {
	req := hs.SearchRequest{
		Query: strings.TrimSpace(in.Query), Algorithm: in.Algorithm, Fusion: in.Fusion,
		TopK: in.Limit, ScoreThreshold: in.ScoreThreshold,
	}
	if req.Query == "" {
		return req, hs.Errorf(hs.EINVALID, "query is empty")
	}
	w, err := r.RequestWeights(req.Algorithm, in.SemanticWeight, in.KeywordWeight, in.FuzzyWeight)
	if err != nil {
		return req, err
	}
	req.Weights = w
	for _, t := range in.DocTypes {
		req.Filter.Types = append(req.Filter.Types, hs.DocType(t))
	}
	if p := strings.TrimSpace(in.PathPrefix); p != "" && p != "/" {
		req.Filter.PathPrefix = "/" + strings.Trim(p, "/")
	}
	if req.Filter.ModifiedAfter, err = r.ParseTime("modified_after", in.ModifiedAfter); err != nil {
		return req, err
	}
	if req.Filter.ModifiedBefore, err = r.ParseTime("modified_before", in.ModifiedBefore); err != nil {
		return req, err
	}
	if _, err := r.Check(req); err != nil {
		return req, err
	}
	return req, nil
}

// excerpt is up to excerptRunes of a chunk around its first highlight,
// on one line.
func excerpt(e hs.Excerpt) string {
	text := []rune(e.Text)
	start := 0
	if len(e.Highlights) > 0 && len(text) > excerptRunes {
		hl := min(max(e.Highlights[0][0], 0), len(text))
		start = min(max(hl-excerptRunes/4, 0), len(text)-excerptRunes)
		// Start at a word; moving forward keeps the highlight inside.
		for i := start; i > 0 && i < start+20 && i < hl; i++ {
			if unicode.IsSpace(text[i-1]) {
				start = i
				break
			}
		}
	}
	end := min(start+excerptRunes, len(text))
	s := strings.Join(strings.Fields(string(text[start:end])), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}

// renderSearch is the text content: everything an assistant needs,
// readable.
func renderSearch(out searchOutput) string {
	var b strings.Builder
	if out.CorrectedQuery != "" {
		fmt.Fprintf(&b, "Searched for %q (corrected from %q).\n", out.CorrectedQuery, out.Query)
	}
	switch n := len(out.Results); {
	case n == 0 && out.Reason != "":
		fmt.Fprintf(&b, "No documents match %q: %s.", out.Query, out.Reason)
	case n == 0:
		fmt.Fprintf(&b, "No documents match %q.", out.Query)
	case n == 1:
		fmt.Fprintf(&b, "1 document matches %q:", out.Query)
	default:
		fmt.Fprintf(&b, "%d documents match %q:", n, out.Query)
	}
	b.WriteString("\n")
	for _, s := range out.SkippedLegs {
		fmt.Fprintf(&b, "(The %s search did not run: %s.)\n", s.Leg, s.Reason)
	}
	if out.WeakCount == 1 {
		b.WriteString("(1 weak match left out.)\n")
	} else if out.WeakCount > 1 {
		fmt.Fprintf(&b, "(%d weak matches left out.)\n", out.WeakCount)
	}
	for i, r := range out.Results {
		fmt.Fprintf(&b, "\n%d. %s — %s\n", i+1, r.Title, r.Path)
		fmt.Fprintf(&b, "   file_id %d · %s · relevance %.2f", r.FileID, r.DocType, r.Relevance)
		if !r.Modified.IsZero() {
			fmt.Fprintf(&b, " · modified %s", r.Modified.UTC().Format(time.DateOnly))
		}
		fmt.Fprintf(&b, "\n   %s\n", r.Link)
		for _, c := range r.Chunks {
			b.WriteString("   [chunk ")
			fmt.Fprint(&b, c.ChunkNo)
			if c.Page > 0 {
				fmt.Fprintf(&b, ", page %d", c.Page)
			}
			if len(c.Headings) > 0 {
				fmt.Fprintf(&b, ", %s", strings.Join(c.Headings, " › "))
			}
			if c.OCR {
				b.WriteString(", text recognised by OCR")
			}
			b.WriteString("]\n")
			b.WriteString(indent(c.Text, "   "))
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}
