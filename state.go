package hybridsearch

import "time"

// File statuses in the index.
const (
	StatusIndexed = "indexed" // chunks are in the store
	StatusSkipped = "skipped" // excluded or unsupported; nothing stored, on purpose
	StatusFailed  = "failed"  // gave up after retries; Error says why
	StatusPending = "pending" // queued or being retried
)

// FileState is the per-file bookkeeping the indexer keeps beside the store:
// what was indexed, for whom, and how it went.
type FileState struct {
	ID       FileID            `json:"id"`
	ETag     string            `json:"etag"`
	MIME     string            `json:"mime"`
	Size     int64             `json:"size"`
	Modified time.Time         `json:"modified"`
	Paths    map[UserID]string `json:"paths"`   // each reader's path to the file
	Readers  []UserID          `json:"readers"` // sorted
	// Title is the document's own title (from its contents, such as a
	// Markdown front matter's title); empty when it has none and its
	// file name gives the title. A rename never replaces it.
	Title string `json:"title,omitempty"`
	// IndexedPath is the path the file's points were written under (the
	// title and path words in them); a rename or move that changes it
	// rewrites them. Empty in states written before it was kept.
	IndexedPath string `json:"indexed_path,omitempty"`
	// Chunks is how many chunks the file has in the store. (Their hashes
	// live with them in the store: a state stays small whatever the
	// file's size.)
	Chunks int `json:"chunks,omitempty"`
	// NoVectors is how many of an indexed file's chunks have no dense
	// vector because the embedder could not take them; Error says why.
	// Keyword and fuzzy search find them, search by meaning does not.
	NoVectors int `json:"no_vectors,omitempty"`
	// Index names the index the file was written to (store and embedding
	// model); a file indexed elsewhere counts as not indexed here.
	Index    string    `json:"index,omitempty"`
	Status   string    `json:"status"`
	Error    string    `json:"error,omitempty"`
	Attempts int       `json:"attempts,omitempty"`
	Updated  time.Time `json:"updated"`
}
