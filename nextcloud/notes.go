package nextcloud

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// notesAPI is the Notes app's REST base. index.php works with and without
// pretty URLs.
const notesAPI = "/index.php/apps/notes/api/v1"

// Note is a note of the Notes app. Its ID is the note file's id.
type Note struct {
	ID       hs.FileID `json:"id"`
	ETag     string    `json:"etag"` // the Notes app's own etag, not the WebDAV one
	ReadOnly bool      `json:"readonly"`
	Modified time.Time `json:"modified"`
	Title    string    `json:"title"`
	Category string    `json:"category"` // folder below the notes folder, "/"-separated
	Content  string    `json:"content"`
	Favorite bool      `json:"favorite"`
}

// UnmarshalJSON reads the Notes API's note object (modified in unix
// seconds).
func (n *Note) UnmarshalJSON(b []byte) error {
	var raw struct {
		ID       json.RawMessage `json:"id"`
		ETag     json.RawMessage `json:"etag"`
		ReadOnly json.RawMessage `json:"readonly"`
		Modified json.RawMessage `json:"modified"`
		Title    json.RawMessage `json:"title"`
		Category json.RawMessage `json:"category"`
		Content  json.RawMessage `json:"content"`
		Favorite json.RawMessage `json:"favorite"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*n = Note{
		ID:       hs.FileID(jsonInt(raw.ID)),
		ETag:     jsonString(raw.ETag),
		ReadOnly: jsonBool(raw.ReadOnly),
		Title:    jsonString(raw.Title),
		Category: jsonString(raw.Category),
		Content:  jsonString(raw.Content),
		Favorite: jsonBool(raw.Favorite),
	}
	if ts := jsonInt(raw.Modified); ts > 0 {
		n.Modified = time.Unix(ts, 0).UTC()
	}
	return nil
}

// ListNotesOptions narrows ListNotes.
type ListNotesOptions struct {
	Category       string    // only notes in this category; "" = all
	ExcludeContent bool      // leave Content empty (much smaller answer)
	PruneBefore    time.Time // notes unchanged since then come back with only ID set
}

// NoteSettings are a user's Notes app settings.
type NoteSettings struct {
	NotesPath  string `json:"notesPath"`  // folder of the notes, relative to the files root
	FileSuffix string `json:"fileSuffix"` // suffix of new notes, e.g. ".md"
}

// ListNotes returns user's notes.
func (c *Client) ListNotes(ctx context.Context, user hs.UserID, opts ListNotesOptions) ([]Note, error) {
	q := url.Values{}
	if opts.Category != "" {
		q.Set("category", opts.Category)
	}
	if opts.ExcludeContent {
		q.Set("exclude", "content")
	}
	if !opts.PruneBefore.IsZero() {
		q.Set("pruneBefore", strconv.FormatInt(opts.PruneBefore.Unix(), 10))
	}
	var notes []Note
	if err := c.notesJSON(ctx, user, "/notes", q, &notes); err != nil {
		return nil, err
	}
	return notes, nil
}

// GetNote returns one note of user; ENOTFOUND if there is none with id.
func (c *Client) GetNote(ctx context.Context, user hs.UserID, id hs.FileID) (Note, error) {
	var n Note
	err := c.notesJSON(ctx, user, "/notes/"+strconv.FormatInt(int64(id), 10), nil, &n)
	return n, err
}

// NotesSettings returns user's Notes settings.
func (c *Client) NotesSettings(ctx context.Context, user hs.UserID) (NoteSettings, error) {
	var s NoteSettings
	err := c.notesJSON(ctx, user, "/settings", nil, &s)
	return s, err
}

// notesJSON GETs a Notes API path as user and decodes the JSON answer.
func (c *Client) notesJSON(ctx context.Context, user hs.UserID, p string, q url.Values, out any) error {
	if err := requireUser("notes", user); err != nil {
		return err
	}
	r := &request{method: http.MethodGet, path: notesAPI + p, query: q, user: user,
		header: http.Header{"Accept": {"application/json"}}}
	return c.getJSON(ctx, r, out)
}

// getJSON sends r and decodes a plain (non-OCS) JSON answer into out.
func (c *Client) getJSON(ctx context.Context, r *request, out any) error {
	status, _, b, err := c.call(ctx, r)
	if err != nil {
		return err
	}
	if status < 200 || status > 299 {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(b, &e)
		return statusError(r.op(), status, e.Message)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return errorf(hs.EINTERNAL, "%s: decode JSON: %w", r.op(), err)
	}
	return nil
}
