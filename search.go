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
	// Feedback asks for pseudo-relevance feedback on the keyword leg
	// (true) or forbids it (false): the words the best results share are
	// added to the query to rank the keyword leg's candidates again.
	// Absent: the server's default (off; see the search package).
	Feedback *bool `json:"feedback,omitempty"`
}

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
	// Expanded lists, with Explain, the words pseudo-relevance feedback
	// added to the keyword query, taken from the user's own best results,
	// most weighty first; empty when feedback did not run.
	Expanded []string `json:"expanded,omitempty"`
}

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
	FileID   FileID    `json:"file_id"`
	Title    string    `json:"title"`
	Path     string    `json:"path"`
	MIME     string    `json:"mime"`
	Type     DocType   `json:"type"`
	Modified time.Time `json:"modified"`
	Link     string    `json:"link"` // opens the file or note in Nextcloud
	// Relevance is in [0, 1]; see the search package for what it means.
	Relevance float64      `json:"relevance"`
	Excerpt   Excerpt      `json:"excerpt"`
	More      []Excerpt    `json:"more,omitempty"`
	Explain   *Explanation `json:"explain,omitempty"`
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
