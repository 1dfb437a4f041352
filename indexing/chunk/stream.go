package chunk

import (
	"strings"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
)

// WindowBytes is how much of a body ChunkEach chunks at a time. Chunking
// holds about 5 bytes per rune of what it works on (the runes and their
// boundary flags), so a body of 20 million characters chunked whole
// would need 100 MB; in windows it needs 20 MB at most.
const WindowBytes = 4 << 20

// DefaultBatch is ChunkEach's batch size when none is given.
const DefaultBatch = 256

// ChunkEach splits t into chunks of fileID like Chunk and hands them to fn
// in order, at most batch at a time (0 means DefaultBatch), numbered from
// 0 with Start and End as rune offsets into t.Body. It stops at fn's first
// error and returns it.
//
// A body of up to WindowBytes gives exactly Chunk's chunks. A longer one
// is chunked in windows of about WindowBytes, cut where a section starts
// (a heading line after a blank line), else where a paragraph starts,
// else at a line start, else between characters; a window's chunks know
// only the headings inside it, and no chunk spans two windows.
func (c Chunker) ChunkEach(fileID hs.FileID, t hs.Text, batch int, fn func([]hs.Chunk) error) error {
	if batch <= 0 {
		batch = DefaultBatch
	}
	send := func(chunks []hs.Chunk) error {
		for len(chunks) > 0 {
			n := min(batch, len(chunks))
			if err := fn(chunks[:n:n]); err != nil {
				return err
			}
			chunks = chunks[n:]
		}
		return nil
	}
	if len(t.Body) <= WindowBytes {
		return send(c.Chunk(fileID, t))
	}
	no, runes := 0, 0
	for start := 0; start < len(t.Body); {
		end := cutWindow(t.Body, start, WindowBytes)
		body := t.Body[start:end]
		n := utf8.RuneCountInString(body)
		chunks := c.Chunk(fileID, hs.Text{Body: body, Title: t.Title, Extractor: t.Extractor, Pages: pagesWithin(t.Pages, runes, runes+n)})
		for i := range chunks {
			chunks[i].No = no + i
			chunks[i].Start += runes
			chunks[i].End += runes
		}
		if err := send(chunks); err != nil {
			return err
		}
		no += len(chunks)
		runes += n
		start = end
	}
	return nil
}

// cutWindow returns the end of the window of body that starts at byte
// start and holds at most size bytes: the last section start in its
// second half, else the last paragraph start, else the last line start,
// else the last rune start.
func cutWindow(body string, start, size int) int {
	if len(body)-start <= size {
		return len(body)
	}
	lo, hi := start+size/2, start+size
	w := body[lo:hi]
	for _, sep := range []string{"\n\n#", "\n\n", "\n"} {
		if i := strings.LastIndex(w, sep); i >= 0 {
			cut := lo + i + len(sep)
			if sep == "\n\n#" {
				cut-- // before the '#'
			}
			return cut
		}
	}
	for hi > lo && !utf8.RuneStart(body[hi]) {
		hi--
	}
	return hi
}

// pagesWithin returns the parts of pages inside runes [from, to), as
// offsets from from.
func pagesWithin(pages []hs.Page, from, to int) []hs.Page {
	var out []hs.Page
	for _, p := range pages {
		s, e := max(p.Start, from), min(p.End, to)
		if s < e {
			out = append(out, hs.Page{Number: p.Number, Start: s - from, End: e - from})
		}
	}
	return out
}
