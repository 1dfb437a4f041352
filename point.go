package hybridsearch

import "time"

// SparseVector is a sparse vector: Indices sorted ascending and unique,
// Values of the same length.
type SparseVector struct {
	Indices []uint32  `json:"indices"`
	Values  []float32 `json:"values"`
}

// FileMeta is what the index knows about a file, shared by all its chunks.
type FileMeta struct {
	ID       FileID    `json:"file_id"`
	Path     string    `json:"path"`  // as the owner (or first reader) sees it, leading "/"
	Title    string    `json:"title"` // document title, or the file name without extension
	MIME     string    `json:"mime"`
	Type     DocType   `json:"type"`
	Modified time.Time `json:"modified"`
	ETag     string    `json:"etag"`
	Size     int64     `json:"size"`
	Readers  []UserID  `json:"readers"` // every user who can see the file, sorted
	// Paths holds each reader's path to the file, as that reader sees it:
	// a file shared with bob sits at his own path, not the owner's. A
	// search filters on and shows these paths, never another reader's.
	// Empty in an index written before it was kept.
	Paths map[UserID]string `json:"paths,omitempty"`
}

// PathOf returns the path user sees the file at, or "" when the index does
// not know it. For an index written before Paths was kept it knows only
// Path, which is then the path of the file's one reader.
func (m FileMeta) PathOf(user UserID) string {
	if len(m.Paths) > 0 {
		return m.Paths[user]
	}
	if len(m.Readers) == 1 && m.Readers[0] == user {
		return m.Path
	}
	return ""
}

// Point is one stored chunk: the chunk, its vectors and its file's metadata.
type Point struct {
	ID      string       `json:"id"` // PointID(file, chunk no)
	Chunk   Chunk        `json:"chunk"`
	File    FileMeta     `json:"file"`
	Dense   []float32    `json:"dense,omitempty"`
	BM25    SparseVector `json:"bm25"`
	Trigram SparseVector `json:"trigram"`
}

// Filter narrows a search. Zero fields do not filter.
type Filter struct {
	Types          []DocType `json:"types,omitempty"`
	MIMEs          []string  `json:"mimes,omitempty"`
	PathPrefix     string    `json:"path_prefix,omitempty"`
	ModifiedAfter  time.Time `json:"modified_after,omitzero"`
	ModifiedBefore time.Time `json:"modified_before,omitzero"`
	// OmitText asks a store for hits whose Chunk holds only FileID and
	// No, for a caller that reads the rest afterwards for the few chunks
	// it needs (ReadChunks) and never changes a hit's File: the hits may
	// share the store's own metadata. It narrows nothing and is never part
	// of a request; a store may ignore it.
	OmitText bool `json:"-"`
}

// Hit is one chunk found by one retrieval leg, with the leg's raw score.
// Hits of one answer may share their file metadata's slices and maps:
// treat them as read-only.
type Hit struct {
	Point Point   `json:"point"` // vectors are not filled in hits
	Score float32 `json:"score"`
}
