package indexing

import (
	"context"
	"io"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// FileSource reads files from Nextcloud as a given user.
type FileSource interface {
	FindByID(ctx context.Context, user hs.UserID, id hs.FileID) (hs.FileInfo, error)
	Stat(ctx context.Context, user hs.UserID, path string) (hs.FileInfo, error)
	List(ctx context.Context, user hs.UserID, path string) ([]hs.FileInfo, error)
	Download(ctx context.Context, user hs.UserID, path string, maxBytes int64) (io.ReadCloser, hs.FileInfo, error)
}

// Extractor turns a file's bytes into text.
type Extractor interface {
	// Supported reports whether the format is known, before downloading.
	Supported(name, mime string) bool
	Extract(ctx context.Context, name, mime string, r io.Reader) (hs.Text, error)
}

// OCRExtractor is an Extractor that also recognises text in images and
// scans (*extract.Extractor). Its Extract returns an error wrapping
// hs.ErrNeedsOCR for such a file; the pipeline calls ExtractOCR for it on
// the queue's OCR lane (IndexJob.OCR).
type OCRExtractor interface {
	Extractor
	ExtractOCR(ctx context.Context, name, mime string, r io.Reader) (hs.Text, error)
}

// Chunker splits text into chunks and hands them out in batches of at
// most batch, numbered from 0 in order, stopping at fn's first error
// (chunk.Chunker). Its memory must not grow with the text.
type Chunker interface {
	ChunkEach(file hs.FileID, t hs.Text, batch int, fn func([]hs.Chunk) error) error
}

// SparseFunc computes a chunk's BM25 and trigram vectors from the chunk
// and its file's metadata (title and path are indexed with it).
type SparseFunc func(meta hs.FileMeta, c hs.Chunk) (bm25, trigram hs.SparseVector)

// Embedder embeds document texts; nil in Pipeline means "no dense vectors".
// An error of kind ETOOLARGE says an input is too long for the model and
// could not be truncated: the pipeline then splits that input (see
// Pipeline.embed). Other errors fail the whole call.
type Embedder interface {
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
}

// ChunkWriter is the part of the store indexing writes to. A file of one
// batch is written whole (WriteFile); a larger one batch by batch
// (UpsertPoints), then cut to its length (TrimFile).
type ChunkWriter interface {
	WriteFile(ctx context.Context, meta hs.FileMeta, points []hs.Point) error
	UpsertPoints(ctx context.Context, meta hs.FileMeta, points []hs.Point) error
	TrimFile(ctx context.Context, id hs.FileID, keep int) error
	UpdateFileMeta(ctx context.Context, meta hs.FileMeta) error
	DeleteFile(ctx context.Context, id hs.FileID) error
	FilePoints(ctx context.Context, id hs.FileID, withVectors bool) ([]hs.Point, error)
	VectorsByHash(ctx context.Context, hashes []string) (map[string][]float32, error)
}

// StateStore keeps per-file state (JetStream KV in production).
type StateStore interface {
	Get(ctx context.Context, id hs.FileID) (hs.FileState, uint64, error)
	Put(ctx context.Context, st hs.FileState) error
	Delete(ctx context.Context, id hs.FileID) error
}

// Leaser grants a per-file lease so two workers never write one file at
// the same time. Lease returns ECONFLICT while someone else holds it.
type Leaser interface {
	Lease(ctx context.Context, key string, ttl time.Duration) (release func(), err error)
}

// EnqueueFunc publishes jobs (folder moves fan out into one job per file).
type EnqueueFunc func(ctx context.Context, jobs ...hs.IndexJob) error

// UserChecker tells whether a Nextcloud user exists
// (*nextcloud.UserDirectory). A call as a user that does not exist fails
// like any refused login; this is how such a job is told from one that
// may pass later.
type UserChecker interface {
	UserExists(ctx context.Context, user hs.UserID) (bool, error)
}
