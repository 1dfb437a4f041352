package hybridsearch

// Spaces a vector-space view can show.
const (
	SpaceSemantic = "semantic" // the embeddings of the semantic leg
	SpaceKeyword  = "keyword"  // the BM25 vectors of the keyword leg
)

// Why the map is limited (VizResult.NoteCode). The set may grow.
const (
	VizNoteSemanticOff            = "semantic_off"              // no embedding model: the keyword space is shown
	VizNoteEmbedderFailed         = "embedder_failed"           // the model did not answer (NoteReasonCode says why): the keyword space is shown
	VizNoteNoEmbeddings           = "no_embeddings"             // no plotted chunk has an embedding yet: the keyword space is shown
	VizNoteChunksWithoutEmbedding = "chunks_without_embeddings" // NoteCount chunks have no embedding yet and are left out
)

// VizNoteCodes lists every VizResult.NoteCode, for clients that translate them.
var VizNoteCodes = []string{VizNoteSemanticOff, VizNoteEmbedderFailed, VizNoteNoEmbeddings, VizNoteChunksWithoutEmbedding}

// VizResult is a 2-D map of the vector space around one search: the
// query, the result chunks and a sample of the user's other chunks,
// projected onto the first two principal components of the plotted chunks.
type VizResult struct {
	Query     string `json:"query"`
	Algorithm string `json:"algorithm"`
	// Space is SpaceSemantic or SpaceKeyword: which vectors are projected.
	Space string `json:"space"`
	// Note says in English why the keyword space is shown instead of
	// embeddings, or what else limits the view; "" when nothing does.
	Note string `json:"note,omitempty"`
	// NoteCode says the same in a word a client can translate (one of the
	// VizNote* codes; a client shows Note for a code it does not know).
	NoteCode string `json:"note_code,omitempty"`
	// NoteReasonCode is, for VizNoteEmbedderFailed, why the embedding
	// model did not answer: a SkippedLeg code (Skip*).
	NoteReasonCode string `json:"note_reason_code,omitempty"`
	// NoteCount is, for VizNoteChunksWithoutEmbedding, how many chunks
	// are not shown.
	NoteCount int `json:"note_count,omitempty"`
	// ExplainedVariance is the share of the plotted chunks' variance on
	// each axis, in [0, 1].
	ExplainedVariance [2]float64 `json:"explained_variance"`
	// QueryPoint is where the query lands; nil when it has no vector in
	// this space (a query of stop characters only).
	QueryPoint *VizXY       `json:"query_point,omitempty"`
	Points     []VizPoint   `json:"points"`
	Skipped    []SkippedLeg `json:"skipped_legs"`
	// Sampled is how many of the user's other chunks were plotted.
	Sampled int     `json:"sampled"`
	TookMS  float64 `json:"took_ms"`
}

// VizXY is a position in the projection.
type VizXY struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// VizPoint is one plotted chunk.
type VizPoint struct {
	FileID  FileID  `json:"file_id"`
	ChunkNo int     `json:"chunk_no"`
	Title   string  `json:"title"`
	Path    string  `json:"path"`
	Type    DocType `json:"type"`
	MIME    string  `json:"mime"`
	Link    string  `json:"link"`
	Text    string  `json:"text"` // the start of the chunk's text
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	// Rank is the document's place in the search results (1-based), 0 for
	// a chunk of the sample.
	Rank int `json:"rank,omitempty"`
	// Best marks the document's best chunk, the one shown as its excerpt.
	Best bool `json:"best,omitempty"`
	// Legs are the legs that retrieved this chunk, in leg order.
	Legs []string `json:"legs,omitempty"`
}
