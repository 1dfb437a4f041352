package chunk

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// Boundary flags of a rune position p: the boundary just before rune p.
const (
	grapheme  uint8 = 1 << iota // between grapheme clusters: the only places we ever cut
	word                        // a UAX #29 word boundary
	sentence                    // a UAX #29 sentence boundary
	lineBreak                   // a UAX #14 line break opportunity: after a space, between CJK characters
)

// text is the body as runes, with the boundary flags of positions
// 0..len(r): the boundary just before rune p. Grapheme boundaries are known
// everywhere; the others are computed per block, on demand (see mark),
// because UAX #29 and #14 segmentation is the costly part of chunking and
// most blocks never need it.
type text struct {
	r      []rune
	flags  []uint8
	blocks []block // set by parse
	marked []bool  // marked[i]: the flags of blocks[i] are computed
}

func newText(body string) *text {
	t := &text{r: []rune(body)}
	t.flags = make([]uint8, len(t.r)+1)
	t.markGraphemes()
	return t
}

// markGraphemes sets the grapheme flag of every position. Between two
// ASCII runes there is always a boundary, except inside "\r\n"; other
// stretches go through uniseg, restarted at an ASCII rune, before which no
// grapheme rule looks back.
func (t *text) markGraphemes() {
	r := t.r
	n := len(r)
	t.flags[0] |= grapheme
	t.flags[n] |= grapheme
	ascii := func(i int) bool { return r[i] < 0x80 }
	for p := 0; p < n; {
		if ascii(p) && (p+1 == n || ascii(p+1)) {
			if !(r[p] == '\r' && p+1 < n && r[p+1] == '\n') {
				t.flags[p+1] |= grapheme
			}
			p++
			continue
		}
		q := p + 1 // end the stretch where two ASCII runes meet
		for q < n && !(ascii(q-1) && ascii(q) && r[q-1] != '\r') {
			q++
		}
		s, pos, state := string(r[p:q]), p, -1
		for len(s) > 0 {
			var cluster string
			cluster, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
			pos += utf8.RuneCountInString(cluster)
			t.flags[pos] |= grapheme
		}
		p = q
	}
}

// mark computes the word, sentence and line break flags inside block i,
// once. A block starts a paragraph, so segmenting it alone gives the same
// boundaries as segmenting the whole body; its ends count as every kind.
func (t *text) mark(i int) {
	if t.marked[i] {
		return
	}
	t.marked[i] = true
	b := t.blocks[i]
	all := word | sentence | lineBreak
	t.flags[b.start] |= all
	t.flags[b.end] |= all
	s, pos, state := string(t.r[b.start:b.end]), b.start, -1
	for len(s) > 0 {
		var cluster string
		var bounds int
		cluster, s, bounds, state = uniseg.StepString(s, state)
		pos += utf8.RuneCountInString(cluster)
		var f uint8
		if bounds&uniseg.MaskWord != 0 {
			f |= word
		}
		if bounds&uniseg.MaskSentence != 0 {
			f |= sentence
		}
		if bounds&uniseg.MaskLine != uniseg.LineDontBreak {
			f |= lineBreak
		}
		t.flags[pos] |= f
	}
}

// markRange marks every block that overlaps [a, b).
func (t *text) markRange(a, b int) {
	i, _ := slices.BinarySearchFunc(t.blocks, a, func(bl block, p int) int { return cmp.Compare(bl.end, p) })
	for ; i < len(t.blocks) && t.blocks[i].start < b; i++ {
		t.mark(i)
	}
}

func (t *text) is(p int, f uint8) bool { return t.flags[p]&f != 0 }

// snapDown returns the last grapheme boundary at or before p.
func (t *text) snapDown(p int) int {
	for p > 0 && !t.is(p, grapheme) {
		p--
	}
	return p
}

// snapUp returns the first grapheme boundary at or after p.
func (t *text) snapUp(p int) int {
	for p < len(t.r) && !t.is(p, grapheme) {
		p++
	}
	return p
}

// trim shrinks [a, b) by whole grapheme clusters of whitespace at either
// end. a and b must be grapheme boundaries; so are the results.
func (t *text) trim(a, b int) (int, int) {
	for a < b {
		e := t.snapUp(a + 1)
		if e > b || !t.allSpace(a, e) {
			break
		}
		a = e
	}
	for b > a {
		s := t.snapDown(b - 1)
		if s < a || !t.allSpace(s, b) {
			break
		}
		b = s
	}
	return a, b
}

func (t *text) allSpace(a, b int) bool {
	for _, c := range t.r[a:b] {
		if !unicode.IsSpace(c) {
			return false
		}
	}
	return true
}

// cutBefore returns the best place to end a piece that starts at a and may
// reach at most max (a < max): the last clause end (after , ; : 、 ， ；
// and spaces) in (a, max], else the last line break opportunity (after a
// space, between CJK characters), else the last word boundary, else the
// last grapheme boundary. If no grapheme boundary lies in (a, max], a single
// cluster is longer than the limit; it is kept whole and the first boundary
// after it is returned.
func (t *text) cutBefore(a, max int) int {
	for _, f := range []uint8{0, lineBreak, word, grapheme} {
		for p := max; p > a; p-- {
			if !t.is(p, grapheme) {
				continue
			}
			if f == 0 && t.afterClause(p) || f != 0 && t.is(p, f) {
				return p
			}
		}
	}
	return t.snapUp(a + 1)
}

// afterClause reports whether p follows a clause mark and optional spaces,
// and starts a non-space rune.
func (t *text) afterClause(p int) bool {
	if p >= len(t.r) || unicode.IsSpace(t.r[p]) {
		return false
	}
	q := p
	for q > 0 && unicode.IsSpace(t.r[q-1]) {
		q--
	}
	return q > 0 && strings.ContainsRune(",;:、，；：", t.r[q-1])
}
