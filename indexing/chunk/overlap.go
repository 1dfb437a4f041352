package chunk

import (
	"strings"
	"unicode"
)

// overlapStart returns where the overlap of a chunk whose own text starts
// at core begins: at most pk.overlap runes back, never before prevCore+1 (so
// a chunk never repeats all of the one before), at the earliest sentence
// start if that gives at least half the overlap, else at the earliest word
// start, else at the earliest grapheme boundary. The rules are simple
// character tests (see sentenceStart, wordStart), not UAX #29, which would
// have to segment every block for a few hundred runes each.
func (pk packer) overlapStart(prevCore, core int) int {
	t := pk.t
	lo := max(core-pk.overlap, prevCore+1)
	if lo >= core {
		return core
	}
	first := func(ok func(int) bool) int {
		for p := lo; p < core; p++ {
			if t.is(p, grapheme) && !unicode.IsSpace(t.r[p]) && ok(p) {
				return p
			}
		}
		return core
	}
	p := first(t.sentenceStart)
	if core-p < pk.overlap/2 {
		p = first(t.wordStart)
	}
	if p == core {
		p = first(func(int) bool { return true })
	}
	start, _ := t.trim(p, core)
	return start
}

// sentenceStart reports whether a sentence starts at p: at a line start,
// right after 。！？, or after . ! ? (and closing quotes or brackets) and a
// space.
func (t *text) sentenceStart(p int) bool {
	if p == 0 {
		return true
	}
	prev := t.r[p-1]
	switch {
	case prev == '\n' || prev == '。' || prev == '！' || prev == '？':
		return true
	case !unicode.IsSpace(prev):
		return false
	}
	q := p - 1
	for q > 0 && unicode.IsSpace(t.r[q-1]) && t.r[q-1] != '\n' {
		q--
	}
	for q > 0 && strings.ContainsRune(`"')]»”’`, t.r[q-1]) {
		q--
	}
	return q > 0 && strings.ContainsRune(".!?", t.r[q-1])
}

// wordStart reports whether a word starts at p: after a space, or next to
// a CJK character (CJK text has no spaces between words).
func (t *text) wordStart(p int) bool {
	return p == 0 || unicode.IsSpace(t.r[p-1]) || isCJK(t.r[p-1]) || isCJK(t.r[p])
}

// isCJK reports whether r is Han, Hiragana, Katakana or Hangul.
func isCJK(r rune) bool {
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
