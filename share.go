package hybridsearch

// Share is a file or folder shared with a user, as that user received it
// (Nextcloud's shares API, shared_with_me).
type Share struct {
	ID     string `json:"id"`               // Nextcloud's share id
	FileID FileID `json:"file_id"`          // the shared file or folder
	Path   string `json:"path,omitempty"`   // where the recipient sees it, leading "/"
	IsDir  bool   `json:"is_dir,omitempty"` // a folder: its files are shared too
}
