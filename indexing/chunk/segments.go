package chunk

import (
	"hash/fnv"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
)

// section is a heading and the blocks up to the next heading.
type section struct {
	path   []string // heading path, outermost first
	level  int      // level of the section's heading, 0 before the first
	blocks []block
}

// sections groups blocks under their headings. A section that holds only
// headings ("# Title" straight before "## Intro") is joined to the deeper
// section that follows, so a lone heading never becomes a chunk of its own.
func sections(blocks []block) []section {
	var (
		out   []section
		stack []block // open headings, outermost first
	)
	for _, b := range blocks {
		if b.level > 0 || len(out) == 0 {
			for len(stack) > 0 && stack[len(stack)-1].level >= b.level && b.level > 0 {
				stack = stack[:len(stack)-1]
			}
			if b.level > 0 {
				stack = append(stack, b)
			}
			path := make([]string, len(stack))
			for i, h := range stack {
				path[i] = h.title
			}
			out = append(out, section{path: path, level: b.level})
		}
		out[len(out)-1].blocks = append(out[len(out)-1].blocks, b)
	}
	var glued []section
	for i := 0; i < len(out); i++ {
		s := out[i]
		for i+1 < len(out) && onlyHeadings(s) && out[i+1].level > s.level && s.level > 0 {
			next := out[i+1]
			next.blocks = append(slices.Clip(s.blocks), next.blocks...)
			s = next
			i++
		}
		glued = append(glued, s)
	}
	return glued
}

func onlyHeadings(s section) bool {
	for _, b := range s.blocks {
		if b.level == 0 {
			return false
		}
	}
	return true
}

// segment is the part of a section on one page: the unit within which
// chunks are packed and overlap is taken. Chunks never cross segments.
type segment struct {
	path   []string
	page   int // 1-based page number, 0 when unpaged
	pieces []piece
}

// piece is an atomic run of text for packing: a whole block, or a sentence
// (or a part of a long sentence) of a block longer than the piece limit.
type piece struct {
	start, end int
	blockStart bool   // the piece starts a block
	heading    bool   // the piece is a heading
	anchor     uint32 // a hash of the piece's first runes
}

// segments cuts the sections at page boundaries and the blocks into pieces
// of at most maxPiece runes.
func (t *text) segments(secs []section, pages []hs.Page, maxPiece int) []segment {
	pages = t.snapPages(pages)
	cuts := t.pageCuts(pages)
	var out []segment
	for _, sec := range secs {
		fresh := true // the next part starts a new segment
		for _, b := range sec.blocks {
			for _, part := range t.splitAt(b.start, b.end, cuts) {
				page := pageAt(pages, part[0])
				if fresh || out[len(out)-1].page != page {
					out = append(out, segment{path: sec.path, page: page})
					fresh = false
				}
				seg := &out[len(out)-1]
				n := len(seg.pieces)
				limit := maxPiece
				if h := headingRun(seg.pieces); h >= 0 && part[0]-h < maxPiece/2 {
					// Leave room to glue the headings to this block's first piece.
					limit = maxPiece - (part[0] - h)
				}
				seg.pieces = t.appendPieces(seg.pieces, part[0], part[1], limit)
				for i := n; i < len(seg.pieces); i++ {
					seg.pieces[i].heading = b.level > 0
				}
			}
		}
	}
	for i := range out {
		out[i].pieces = glueHeadings(out[i].pieces, maxPiece)
	}
	return out
}

// headingRun returns the start of the run of heading pieces that ends
// pieces, or -1 if the last piece is no heading.
func headingRun(pieces []piece) int {
	start := -1
	for i := len(pieces) - 1; i >= 0 && pieces[i].heading; i-- {
		start = pieces[i].start
	}
	return start
}

// glueHeadings joins each heading piece to the piece after it when both
// fit in maxPiece, so that a heading always starts the chunk of the text
// under it.
func glueHeadings(pieces []piece, maxPiece int) []piece {
	for i := len(pieces) - 2; i >= 0; i-- {
		h, next := pieces[i], pieces[i+1]
		if h.heading && next.end-h.start <= maxPiece {
			h.end, h.heading = next.end, next.heading
			pieces[i] = h
			pieces = slices.Delete(pieces, i+1, i+2)
		}
	}
	return pieces
}

// snapPages returns the pages clamped to the body, with each boundary moved
// to the start of the grapheme cluster it falls in (text is never cut inside
// a cluster), and without empty or inverted pages.
func (t *text) snapPages(pages []hs.Page) []hs.Page {
	var out []hs.Page
	for _, p := range pages {
		p.Start = t.snapDown(min(max(p.Start, 0), len(t.r)))
		p.End = t.snapDown(min(max(p.End, 0), len(t.r)))
		if p.Start < p.End {
			out = append(out, p)
		}
	}
	return out
}

// pageCuts returns the sorted page boundaries inside the body.
func (t *text) pageCuts(pages []hs.Page) []int {
	var cuts []int
	for _, p := range pages {
		for _, c := range []int{p.Start, p.End} {
			if c > 0 && c < len(t.r) {
				cuts = append(cuts, c)
			}
		}
	}
	slices.Sort(cuts)
	return slices.Compact(cuts)
}

// splitAt cuts [a, b) at every cut inside it and trims the parts.
func (t *text) splitAt(a, b int, cuts []int) [][2]int {
	var out [][2]int
	add := func(x, y int) {
		if x, y = t.trim(x, y); x < y {
			out = append(out, [2]int{x, y})
		}
	}
	for _, c := range cuts {
		if c > a && c < b {
			add(a, c)
			a = c
		}
	}
	add(a, b)
	return out
}

// pageAt returns the number of the page that holds rune offset p, or 0.
func pageAt(pages []hs.Page, p int) int {
	for _, pg := range pages {
		if pg.Start <= p && p < pg.End {
			return pg.Number
		}
	}
	return 0
}

// appendPieces appends the pieces of the block part [a, b): the part itself
// if it fits in maxPiece runes, else its sentences, and a sentence longer
// than maxPiece cut at line break opportunities (after spaces, between CJK
// characters), word boundaries or, as a last resort, grapheme boundaries.
func (t *text) appendPieces(out []piece, a, b, maxPiece int) []piece {
	if b-a <= maxPiece {
		return append(out, t.newPiece(a, b, true))
	}
	t.markRange(a, b)
	first := true
	add := func(x, y int) {
		if x, y = t.trim(x, y); x < y {
			out = append(out, t.newPiece(x, y, first))
			first = false
		}
	}
	s := a
	for p := a + 1; p <= b; p++ {
		if p < b && !t.is(p, sentence) {
			continue
		}
		for x, y := t.trim(s, p); x < y; {
			if y-x <= maxPiece {
				add(x, y)
				break
			}
			c := t.cutBefore(x, x+maxPiece)
			add(x, c)
			x, y = t.trim(c, y)
		}
		s = p
	}
	return out
}

// anchorRunes is how many leading runes of a piece its anchor hash covers.
// Edits further into a paragraph leave its anchor alone.
const anchorRunes = 12

func (t *text) newPiece(a, b int, blockStart bool) piece {
	h := fnv.New32a()
	end := min(b, a+anchorRunes)
	h.Write([]byte(string(t.r[a:end])))
	return piece{start: a, end: b, blockStart: blockStart, anchor: h.Sum32()}
}
