package chunk

import (
	"crypto/sha256"
	"encoding/hex"

	hs "github.com/hybrid-search/hybridsearch"
)

// Default sizes, in runes.
const (
	DefaultSize    = 1000
	DefaultOverlap = 200
)

// Chunker splits a file's text into chunks. The zero value is ready to use.
type Chunker struct {
	// Size is the most runes in a chunk, overlap included; 0 means
	// DefaultSize. Only a single grapheme cluster longer than Size−Overlap
	// (a letter with hundreds of combining marks) can make a longer chunk.
	Size int
	// Overlap is about how many runes a chunk repeats from the end of the
	// chunk before it in the same section and page; 0 means DefaultOverlap,
	// a negative value means none. It is capped at Size/2.
	Overlap int
}

// Chunk splits t into chunks of fileID, in order, numbered from 0.
//
// Structure comes first. Markdown headings (ATX "## Title" and setext
// underlines) start sections and give each chunk its heading path; a
// heading-only section is joined to the subsection after it, and a heading
// is kept in one chunk with the start of the text under it. Blank-line
// separated paragraphs and fenced code blocks are the packing unit; a block
// longer than Size−Overlap is split into sentences (UAX #29: after . ! ?
// and a space, after 。！？, at line ends), a sentence that is still too
// long after a clause mark (, ; : 、), else at line break opportunities or
// word boundaries, and only as a last resort between grapheme clusters.
// Text is never cut inside a grapheme cluster. Page boundaries (t.Pages)
// are hard: a chunk lies on one page, and Page is that page's number (0
// when unpaged); a page boundary inside a grapheme cluster moves to the
// cluster's start.
//
// Chunks are packed up to Size runes. Each chunk after the first in a
// section and page starts with about Overlap runes from the end of the one
// before, beginning at a sentence or word start. Chunks end at anchors,
// block or sentence starts chosen by a hash of their first runes, so where
// a chunk ends depends on nearby text only: editing a paragraph in one
// place almost always changes at most three chunks (the edited one, the
// next one through its overlap, one more where a boundary moves).
//
// Text is []rune(t.Body)[Start:End] with surrounding whitespace left out;
// every non-space rune of the body is in at least one chunk. An empty or
// all-whitespace body gives no chunks.
func (c Chunker) Chunk(fileID hs.FileID, t hs.Text) []hs.Chunk {
	size, overlap := c.sizes()
	tx := newText(t.Body)
	segs := tx.segments(sections(tx.parseBlocks()), t.Pages, size-overlap)
	pk := newPacker(tx, size, overlap)
	var out []hs.Chunk
	for _, seg := range segs {
		for _, sp := range pk.pack(seg.pieces) {
			text := string(tx.r[sp.start:sp.end])
			sum := sha256.Sum256([]byte(text))
			out = append(out, hs.Chunk{
				FileID:   fileID,
				No:       len(out),
				Text:     text,
				Start:    sp.start,
				End:      sp.end,
				Headings: append([]string{}, seg.path...),
				Page:     seg.page,
				Hash:     hex.EncodeToString(sum[:]),
			})
		}
	}
	return out
}

// sizes returns the effective Size and Overlap.
func (c Chunker) sizes() (size, overlap int) {
	size, overlap = c.Size, c.Overlap
	if size <= 0 {
		size = DefaultSize
	}
	switch {
	case overlap == 0:
		overlap = DefaultOverlap
	case overlap < 0:
		overlap = 0
	}
	return size, min(overlap, size/2)
}
