package hybridsearch

import "time"

// FileID is Nextcloud's numeric file id (oc:fileid). It is the same in every
// user's view of a shared file, and a note's id is its file id.
type FileID int64

// DocType tells notes from other files.
type DocType string

// Document types.
const (
	DocFile DocType = "file"
	DocNote DocType = "note"
)

// FileRef names a file as one user sees it.
type FileRef struct {
	ID   FileID `json:"id"`
	User UserID `json:"user"`
	Path string `json:"path"` // relative to the user's files root, starting with "/"
}

// FileInfo is what Nextcloud reports about a file or folder.
type FileInfo struct {
	ID          FileID    `json:"id"`
	Path        string    `json:"path"` // relative to the user's files root, starting with "/"
	ETag        string    `json:"etag"` // without quotes
	MIME        string    `json:"mime"`
	Size        int64     `json:"size"`
	Modified    time.Time `json:"modified"`
	IsDir       bool      `json:"is_dir"`
	Permissions string    `json:"permissions,omitempty"`
	Owner       UserID    `json:"owner,omitempty"`
}

// Name returns the last element of the path.
func (f FileInfo) Name() string {
	for i := len(f.Path) - 1; i >= 0; i-- {
		if f.Path[i] == '/' {
			return f.Path[i+1:]
		}
	}
	return f.Path
}
