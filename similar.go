package hybridsearch

// Why a similar search compared words (SimilarResult.NoteCode). The set may grow.
const (
	SimilarNoteSemanticOff  = "semantic_off"  // no embedding model is configured
	SimilarNoteNoEmbeddings = "no_embeddings" // the source files have no embeddings yet
)

// SimilarNoteCodes lists every SimilarResult.NoteCode, for clients that translate them.
var SimilarNoteCodes = []string{SimilarNoteSemanticOff, SimilarNoteNoEmbeddings}

// SimilarResult is the answer to "find similar": the documents whose
// chunks lie nearest to the source files' chunks.
type SimilarResult struct {
	// Sources are the files the search started from, as the user sees them.
	Sources []SimilarSource `json:"sources"`
	// Space is SpaceSemantic (the files' embeddings were compared) or
	// SpaceKeyword (their BM25 vectors, when there is no embedding model or
	// the files have no embeddings).
	Space string `json:"space"`
	// Note says in English why the keyword space was used; "" otherwise.
	Note string `json:"note,omitempty"`
	// NoteCode says the same in a word a client can translate (one of the
	// SimilarNote* codes; a client shows Note for a code it does not know).
	NoteCode string           `json:"note_code,omitempty"`
	Results  []DocumentResult `json:"results"`
	// WeakCount counts the weak matches (hs.SearchResult.WeakCount);
	// Weaker holds the first of them, each marked Weak, for a client
	// that shows them on request.
	WeakCount    int              `json:"weak_count"`
	Weaker       []DocumentResult `json:"weaker,omitempty"`
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
