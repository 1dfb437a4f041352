package hybridsearch

// SimilarResult is the answer to "find similar": the documents whose
// chunks lie nearest to the source files' chunks.
type SimilarResult struct {
	// Sources are the files the search started from, as the user sees them.
	Sources []SimilarSource `json:"sources"`
	// Space is SpaceSemantic (the files' embeddings were compared) or
	// SpaceKeyword (their BM25 vectors, when there is no embedding model or
	// the files have no embeddings).
	Space string `json:"space"`
	// Note says why the keyword space was used; "" otherwise.
	Note         string           `json:"note,omitempty"`
	Results      []DocumentResult `json:"results"`
	Verification Verification     `json:"verification"`
	TookMS       float64          `json:"took_ms"`
}

// SimilarSource is one file a similar search started from.
type SimilarSource struct {
	FileID FileID  `json:"file_id"`
	Title  string  `json:"title"`
	Path   string  `json:"path"`
	MIME   string  `json:"mime"`
	Type   DocType `json:"type"`
	Link   string  `json:"link"`
}
