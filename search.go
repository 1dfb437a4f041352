package hybridsearch

import "time"

// Search algorithms: one leg alone, or all three fused.
const (
	AlgorithmHybrid   = "hybrid"
	AlgorithmSemantic = "semantic"
	AlgorithmKeyword  = "keyword"
	AlgorithmFuzzy    = "fuzzy"
)

// Fusion methods for the hybrid algorithm.
const (
	FusionRRF    = "rrf"    // weighted reciprocal rank fusion, k = 60
	FusionLinear = "linear" // weighted sum of per-leg scores normalized to [0, 1]
	FusionAuto   = "auto"   // weights chosen from the query's shape
)

// Weights are the per-leg fusion weights: each ≥ 0, sum ≤ 1, not all 0.
type Weights struct {
	Semantic float64 `json:"semantic"`
	Keyword  float64 `json:"keyword"`
	Fuzzy    float64 `json:"fuzzy"`
}

// DefaultWeights are used when a request gives none.
var DefaultWeights = Weights{Semantic: 0.5, Keyword: 0.3, Fuzzy: 0.2}

// SearchRequest is one search by one user.
type SearchRequest struct {
	Query     string   `json:"query"`
	Algorithm string   `json:"algorithm,omitempty"` // "" = hybrid
	Fusion    string   `json:"fusion,omitempty"`    // "" = rrf
	Weights   *Weights `json:"weights,omitempty"`   // nil = DefaultWeights
	TopK      int      `json:"top_k,omitempty"`     // 0 = 10; at most 50
	// ScoreThreshold drops semantic-leg candidates whose cosine similarity
	// is below it; 0 turns it off.
	ScoreThreshold float64 `json:"score_threshold,omitempty"`
	Filter         Filter  `json:"filter"`
	Explain        bool    `json:"explain,omitempty"`
	// Offset skips that many matches (paging): the page holds matches
	// Offset+1 to Offset+TopK. Offset+TopK is at most
	// SearchRules.MaxResultWindow.
	Offset int `json:"offset,omitempty"`
	// Sort orders the matches: SortRelevance ("" too) or SortModified,
	// the most recently modified first.
	Sort string `json:"sort,omitempty"`
	// Owner keeps the documents the user owns (OwnerMe) or those others
	// share with them (OwnerOthers); "" keeps both. Nextcloud's access
	// check says who owns a file, so documents it could not check are
	// left out when Owner is set.
	Owner string `json:"owner,omitempty"`
	// Facets asks for counts of the matches by type, folder, modification
	// time and owner (SearchResult.Facets).
	Facets bool `json:"facets,omitempty"`
	// IncludeWeak asks for the weak matches too (SearchResult.WeakCount),
	// after the others, each marked Weak.
	IncludeWeak bool `json:"include_weak,omitempty"`
	// NoCorrection looks the query's words up as typed: no typo
	// correction (SearchResult.Corrections).
	NoCorrection bool `json:"no_correction,omitempty"`
	// Feedback asks for pseudo-relevance feedback on the keyword leg
	// (true) or forbids it (false): the words the best results share are
	// added to the query to rank the keyword leg's candidates again.
	// Absent: the server's default (off; see the search package).
	Feedback *bool `json:"feedback,omitempty"`
}

// Sort orders of a search (SearchRequest.Sort).
const (
	SortRelevance = "relevance" // the fused ranking
	SortModified  = "modified"  // the most recently modified first
)

// Owner choices of a search (SearchRequest.Owner).
const (
	OwnerMe     = "me"     // documents the user owns
	OwnerOthers = "others" // documents shared with the user
)

// SearchResult is the answer to a SearchRequest.
type SearchResult struct {
	Query     string           `json:"query"`
	Algorithm string           `json:"algorithm"`
	Fusion    string           `json:"fusion,omitempty"`
	Weights   Weights          `json:"weights"`
	Results   []DocumentResult `json:"results"`
	// Skipped lists legs that could not run (embedder down, ...) and why.
	Skipped []SkippedLeg `json:"skipped_legs"`
	// Verification says how results were re-checked against Nextcloud.
	Verification Verification `json:"verification"`
	TookMS       float64      `json:"took_ms"`
	// Shape is the query's shape ("keyword", "question", "identifier")
	// when Fusion is auto and chose Weights from it.
	Shape string `json:"shape,omitempty"`
	// Corrections are the typos the search corrected, each with the word
	// it looked up instead and the leg that found it; CorrectedQuery is
	// the query with them applied ("" without corrections). A request
	// with NoCorrection gets none.
	Corrections    []Correction `json:"corrections,omitempty"`
	CorrectedQuery string       `json:"corrected_query,omitempty"`
	// Total counts the matches, WeakCount the weak matches besides them:
	// documents whose relevance is below SearchRules.WeakRelevance, or
	// found only by a semantic leg that could not tell them from chance.
	// Both are exact when the search checked every match with Nextcloud
	// (Facets, Sort, Owner or Offset set); otherwise they count what the
	// index lists for the user and may include files they lost since.
	Total     int `json:"total"`
	WeakCount int `json:"weak_count"`
	// Offset is the request's: the page starts after that many matches.
	Offset int `json:"offset,omitempty"`
	// Facets counts the matches (not the weak ones) by facet; nil unless
	// the request asked for them.
	Facets *Facets `json:"facets,omitempty"`
	// ReasonCode says, when no leg could use the query, why there are no
	// results (one of the Reason* codes); Reason says it in English.
	ReasonCode string `json:"reason_code,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Expanded lists, with Explain, the words pseudo-relevance feedback
	// added to the keyword query, taken from the user's own best results,
	// most weighty first; empty when feedback did not run.
	Expanded []string `json:"expanded,omitempty"`
}

// Why a search could not use its query (SearchResult.ReasonCode).
const (
	// ReasonNothingToSearch: the query holds no word or number (only
	// punctuation or symbols), and no semantic leg ran.
	ReasonNothingToSearch = "nothing_to_search"
	// ReasonUnknownWords: no document holds any word of the query, no
	// near word could stand in for it, and no semantic leg ran.
	ReasonUnknownWords = "unknown_words"
)

// Correction is one corrected word of a query: From as typed, To as
// looked up, found by Leg (the fuzzy leg).
type Correction struct {
	From string `json:"from"`
	To   string `json:"to"`
	Leg  string `json:"leg"`
}

// Facets count a search's matches by facet, largest first (ties by
// value). Values: Types by DocType, MIMEs by MIME type, Folders by the
// folder below the request's path prefix (or the top-level folder; "/"
// for files at that level), Modified by time before the search
// (Modified* values, each counting the documents modified within it, so
// they overlap, plus ModifiedOlder), Owner by OwnerMe and OwnerOthers.
type Facets struct {
	Types    []FacetCount `json:"types"`
	MIMEs    []FacetCount `json:"mimes"`
	Folders  []FacetCount `json:"folders"`
	Modified []FacetCount `json:"modified"`
	Owner    []FacetCount `json:"owner"`
}

// FacetCount is one facet value and how many matches have it.
type FacetCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// Modification-time facet values (Facets.Modified).
const (
	ModifiedDay   = "day"   // within the last 24 hours
	ModifiedWeek  = "week"  // within the last 7 days
	ModifiedMonth = "month" // within the last 30 days
	ModifiedYear  = "year"  // within the last 365 days
	ModifiedOlder = "older" // longer ago
)

// SkippedLeg is a retrieval leg that did not run: Code says why in a
// word a client can translate (one of the Skip* codes; a client falls back
// to Reason for a code it does not know), Reason in English for a person.
type SkippedLeg struct {
	Leg    string `json:"leg"`
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

// Why a leg was skipped (SkippedLeg.Code). The set may grow.
const (
	SkipSemanticOff         = "semantic_off"         // no embedding model is configured
	SkipEmbedderUnavailable = "embedder_unavailable" // the embedding model did not answer
	SkipEmbedderError       = "embedder_error"       // the embedding model refused the query
	SkipStoreUnavailable    = "store_unavailable"    // the index store did not answer
	SkipStoreError          = "store_error"          // the index store failed the lookup
	SkipTimeout             = "timeout"              // the embedding model or the store took too long
)

// SkipCodes lists every SkippedLeg.Code, for clients that translate them.
var SkipCodes = []string{SkipSemanticOff, SkipEmbedderUnavailable, SkipEmbedderError, SkipStoreUnavailable, SkipStoreError, SkipTimeout}

// Verification reports the access re-check of a result page.
type Verification struct {
	Checked int `json:"checked"` // files checked against Nextcloud
	Dropped int `json:"dropped"` // files the user can no longer reach, removed
	// Unverified lists files kept without a check because Nextcloud did not
	// answer (only files the index lists the user as a reader of).
	Unverified []FileID `json:"unverified,omitempty"`
}

// DocumentResult is one document in a result page: its best chunk and up
// to three more matching chunks.
type DocumentResult struct {
	FileID FileID `json:"file_id"`
	Title  string `json:"title"`
	// TitleHighlights are the matches in Title, as Excerpt.Highlights.
	TitleHighlights [][2]int  `json:"title_highlights,omitempty"`
	Path            string    `json:"path"`
	MIME            string    `json:"mime"`
	Type            DocType   `json:"type"`
	Modified        time.Time `json:"modified"`
	Link            string    `json:"link"` // opens the file or note in Nextcloud
	// Relevance is in [0, 1]; see the search package for what it means.
	Relevance float64 `json:"relevance"`
	// Weak marks a weak match (SearchRequest.IncludeWeak); Explain says
	// why (Explanation.WeakReason).
	Weak bool `json:"weak,omitempty"`
	// Owner is the file's owner as Nextcloud's access check said; "" when
	// it could not check.
	Owner   UserID       `json:"owner,omitempty"`
	Excerpt Excerpt      `json:"excerpt"`
	More    []Excerpt    `json:"more,omitempty"`
	Explain *Explanation `json:"explain,omitempty"`
}

// Excerpt is one chunk's text with the query terms marked.
type Excerpt struct {
	ChunkNo  int      `json:"chunk_no"`
	Text     string   `json:"text"`
	Page     int      `json:"page,omitempty"`
	Headings []string `json:"headings,omitempty"`
	// OCR says Text was recognised from an image (a scan or a photo).
	OCR bool `json:"ocr,omitempty"`
	// Highlights are [start, end) rune offsets into Text.
	Highlights [][2]int `json:"highlights,omitempty"`
	// HeadingHighlights are those of each heading, by index; nil when no
	// heading holds a match.
	HeadingHighlights [][][2]int `json:"heading_highlights,omitempty"`
}

// Explanation shows how a document's best chunk was ranked.
type Explanation struct {
	Legs            map[string]LegScore `json:"legs"` // by leg name; absent = not retrieved by that leg
	Fused           float64             `json:"fused"`
	IdentifierBoost bool                `json:"identifier_boost"`
	// Capped is set when the relevance was held below the legs' blend
	// because the chunk lacks a query identifier or quoted phrase verbatim.
	Capped bool `json:"capped,omitempty"`
	// PhraseBoost is set when the chunk contains a quoted phrase of the
	// query exactly, which ranks it above chunks that do not.
	PhraseBoost bool `json:"phrase_boost,omitempty"`
	// Corrected lists the corrections (SearchResult.Corrections) whose
	// word the chunk holds: the keyword leg found it through them.
	Corrected []Correction `json:"corrected,omitempty"`
	// WeakReason says why a document is a weak match (one of the Weak*
	// codes), and WeakThreshold is the relevance it falls short of.
	WeakReason    string  `json:"weak_reason,omitempty"`
	WeakThreshold float64 `json:"weak_threshold,omitempty"`
	// Semantic says how the semantic leg judged the chunk against the
	// user's own chunks; nil when the leg did not find it.
	Semantic *SemanticCalibration `json:"semantic,omitempty"`
}

// Why a document is a weak match (Explanation.WeakReason).
const (
	// WeakLowRelevance: its relevance is below SearchRules.WeakRelevance.
	WeakLowRelevance = "low_relevance"
	// WeakUncalibrated: only the semantic leg found it, and that leg
	// could not tell a match from chance (too few chunks to compare with).
	WeakUncalibrated = "semantic_uncalibrated"
)

// SemanticCalibration is how a chunk's cosine similarity to the query
// compares with the query's cosines to a sample of the user's own chunks:
// Baseline is their median, Gap the chunk's distance above it as a share
// of the way from the baseline to 1, (cosine − baseline) / (1 − baseline),
// and MinGap what a match needs (SearchRules.SemanticMinGap). Sampled
// counts the chunks compared with, Reference how many of them are the
// app's reference texts, used when the user has few chunks of their own;
// Sampled is 0 when there was nothing to compare with (the leg is then
// uncalibrated).
type SemanticCalibration struct {
	Cosine    float64 `json:"cosine"`
	Baseline  float64 `json:"baseline"`
	Gap       float64 `json:"gap"`
	MinGap    float64 `json:"min_gap"`
	Sampled   int     `json:"sampled"`
	Reference int     `json:"reference,omitempty"`
}

// LegScore is one leg's rank (1-based), raw score and match for a chunk.
type LegScore struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
	// Match is how well the chunk matches the query by this leg's
	// measure, in [0, 1]: the share of the query's weight it matches
	// (keyword), of the query's words it holds as they are or within an
	// edit or two (fuzzy), or its cosine similarity (semantic).
	Match float64 `json:"match"`
	// Weight is the leg's weight in the relevance, after the weights were
	// scaled over the legs that ran.
	Weight float64 `json:"weight"`
}
