package mcp

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/link"
)

// Paging limits of nc_get_document, in characters (runes).
const (
	defaultMaxChars = 20000
	minMaxChars     = 1000
	maxMaxChars     = 100000
	defaultWindow   = 2
	maxWindow       = 10
)

const documentDescription = `Read the text of one of the user's files or notes by file_id (from nc_semantic_search), as the search index extracted it, only if the user can read it. ` +
	`Without chunk, returns the whole text in pages of at most max_chars characters: when truncated is true, call again with offset set to next_offset. ` +
	`With chunk (a chunk_no from the search), returns that chunk with window chunks before and after it.`

// documentInput are nc_get_document's arguments.
type documentInput struct {
	FileID   int64 `json:"file_id"`
	Chunk    *int  `json:"chunk,omitempty"`
	Window   int   `json:"window,omitempty"`
	Offset   int   `json:"offset,omitempty"`
	MaxChars int   `json:"max_chars,omitempty"`
}

func documentInputSchema() (*jsonschema.Schema, error) {
	return schemaFor[documentInput](map[string]func(*jsonschema.Schema){
		"file_id":   all(describe("The document's file_id, as nc_semantic_search returns it."), atLeast(1)),
		"chunk":     all(describe("Return a window around this chunk number (chunk_no in search results) instead of the whole text."), atLeast(0)),
		"window":    all(describe(fmt.Sprintf("With chunk: how many chunks before and after it, 0 to %d.", maxWindow)), between(0, maxWindow), def(defaultWindow)),
		"offset":    all(describe("Character offset to start from: 0, or next_offset from the previous page."), atLeast(0), def(0)),
		"max_chars": all(describe(fmt.Sprintf("Most characters to return, %d to %d.", minMaxChars, maxMaxChars)), between(minMaxChars, maxMaxChars), def(defaultMaxChars)),
	})
}

// documentOutput is nc_get_document's structured result.
type documentOutput struct {
	FileID      int64     `json:"file_id"`
	Title       string    `json:"title"`
	Path        string    `json:"path"`
	Link        string    `json:"link"`
	DocType     string    `json:"doc_type"`
	MIME        string    `json:"mime"`
	Modified    time.Time `json:"modified"`
	TotalChunks int       `json:"total_chunks"`
	FirstChunk  int       `json:"first_chunk"` // the chunks this text comes from
	LastChunk   int       `json:"last_chunk"`
	TotalChars  int       `json:"total_chars"` // of the whole text (or the window)
	Offset      int       `json:"offset"`
	Text        string    `json:"text"`
	Truncated   bool      `json:"truncated"`
	NextOffset  int       `json:"next_offset,omitempty"` // set when truncated
}

// document runs nc_get_document.
func (h *handler) document(ctx context.Context, user hs.UserID, in documentInput) (documentOutput, string, error) {
	id := hs.FileID(in.FileID)
	if id <= 0 {
		return documentOutput{}, "", hs.Errorf(hs.EINVALID, "file_id must be a positive number")
	}
	// One message for "not indexed" and "not yours": the answer must not
	// tell whether someone else's file exists.
	missing := hs.Errorf(hs.ENOTFOUND, "no document with file_id %d that you can read is indexed", id)
	points, err := h.o.Chunks.FilePoints(ctx, id, false)
	if err != nil {
		return documentOutput{}, "", err
	}
	if len(points) == 0 || !slices.Contains(points[0].File.Readers, user) {
		return documentOutput{}, "", missing
	}
	info, err := h.o.Access.FindByID(ctx, user, id)
	switch hs.ErrorKind(err) {
	case "":
	case hs.ENOTFOUND, hs.EUNAUTHORIZED:
		return documentOutput{}, "", missing
	case hs.EUNAVAILABLE:
		return documentOutput{}, "", hs.WrapError(hs.EUNAVAILABLE, err, "Nextcloud did not confirm that you can read this document")
	default:
		return documentOutput{}, "", err
	}
	meta := points[0].File
	// The path is the one user sees: Nextcloud's answer, else the one the
	// index keeps for user; never another reader's (the owner's folders).
	userPath := info.Path
	if userPath == "" {
		userPath = meta.PathOf(user)
	}
	if userPath == "" {
		return documentOutput{}, "", hs.Errorf(hs.EUNAVAILABLE, "Nextcloud did not say where you see document %d", id)
	}
	out := documentOutput{
		FileID: int64(id), Title: titleAt(meta, userPath), Path: userPath, Link: link.Document(h.o.NextcloudURL, meta), DocType: string(meta.Type),
		MIME: meta.MIME, Modified: meta.Modified, TotalChunks: len(points), FirstChunk: points[0].Chunk.No,
		LastChunk: points[len(points)-1].Chunk.No, Offset: in.Offset,
	}
	part := points
	if in.Chunk != nil {
		c := *in.Chunk
		at := slices.IndexFunc(points, func(p hs.Point) bool { return p.Chunk.No == c })
		if at < 0 {
			return documentOutput{}, "", hs.Errorf(hs.EINVALID, "chunk %d is out of range: the document has chunks %d to %d", c, out.FirstChunk, out.LastChunk)
		}
		w := min(max(in.Window, 0), maxWindow)
		part = points[max(at-w, 0):min(at+w+1, len(points))]
		out.FirstChunk, out.LastChunk = part[0].Chunk.No, part[len(part)-1].Chunk.No
	}
	text := []rune(Assemble(part))
	out.TotalChars = len(text)
	if in.Offset < 0 || in.Offset > len(text) {
		return documentOutput{}, "", hs.Errorf(hs.EINVALID, "offset %d is past the end of the text (%d characters)", in.Offset, len(text))
	}
	maxChars := in.MaxChars
	if maxChars <= 0 {
		maxChars = defaultMaxChars
	}
	maxChars = min(max(maxChars, minMaxChars), maxMaxChars)
	end := pageEnd(text, in.Offset, maxChars)
	out.Text = string(text[in.Offset:end])
	if end < len(text) {
		out.Truncated, out.NextOffset = true, end
	}
	return out, renderDocument(out), nil
}

// titleAt is the document's title for a reader who sees it at p: a title
// taken from the file name is the reader's name for the file (a recipient
// may have renamed a share), any other stays.
func titleAt(m hs.FileMeta, p string) string {
	name := func(p string) string { b := path.Base(p); return strings.TrimSuffix(b, path.Ext(b)) }
	if m.Title == name(m.Path) {
		return name(p)
	}
	return m.Title
}

// Assemble rebuilds the text of consecutive chunks of one file, in chunk
// order, without repeating their overlaps: each chunk covers the rune span
// [Start, End) of the extracted text, so the part of a chunk before the
// end of the previous one is skipped. Whitespace between chunks that do
// not touch (section and page breaks) becomes a line break, or a blank
// line for gaps of two or more characters.
func Assemble(points []hs.Point) string {
	var b strings.Builder
	pos := -1 // rune offset up to which text is written; -1 before the first chunk
	for _, p := range points {
		c := p.Chunk
		text := []rune(c.Text)
		switch {
		case pos < 0, c.Start == pos:
		case c.End <= pos:
			continue // wholly inside what is written
		case c.Start < pos:
			skip := pos - c.Start
			if skip >= len(text) {
				continue
			}
			text = text[skip:]
		case c.Start-pos >= 2:
			b.WriteString("\n\n")
		default:
			b.WriteString("\n")
		}
		b.WriteString(string(text))
		pos = max(pos, c.End)
	}
	return b.String()
}

// pageEnd returns where a page of at most n runes from start ends: at the
// last paragraph break, else line break, else space in the page's last
// fifth, so pages do not cut words; at the text's end when it fits.
func pageEnd(text []rune, start, n int) int {
	end := start + n
	if end >= len(text) {
		return len(text)
	}
	floor := end - n/5
	for _, isBreak := range []func(i int) bool{
		func(i int) bool { return text[i-1] == '\n' && i >= 2 && text[i-2] == '\n' },
		func(i int) bool { return text[i-1] == '\n' },
		func(i int) bool { return unicode.IsSpace(text[i-1]) },
	} {
		for i := end; i > floor && i > start; i-- {
			if isBreak(i) {
				return i
			}
		}
	}
	return end
}

// renderDocument is the text content: a header, then the text.
func renderDocument(out documentOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s\nfile_id %d · %s · %s\n", out.Title, out.Path, out.FileID, out.DocType, out.Link)
	fmt.Fprintf(&b, "Chunks %d to %d of %d; characters %d to %d of %d.\n\n", out.FirstChunk, out.LastChunk, out.TotalChunks,
		out.Offset, out.Offset+len([]rune(out.Text)), out.TotalChars)
	b.WriteString(out.Text)
	if out.Truncated {
		fmt.Fprintf(&b, "\n\n[More text follows: call %s with file_id %d and offset %d.]", ToolDocument, out.FileID, out.NextOffset)
	}
	return b.String()
}
