package analysis

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normText is text after normalisation, with a map back to the original.
// Rune i of runes came from the original runes [from[i], to[i]).
//
// NFKC works on segments (a starter and the marks that follow it), so every
// rune of a normalised segment maps to the whole original segment: the
// ligature "ﬁ" becomes "f" and "i", both mapped to the one original rune,
// and "e" + U+0301 becomes "é", mapped to both original runes. A token's
// span is then the union of its runes' spans, which never cuts an original
// segment in half.
type normText struct {
	runes    []rune
	from, to []int
}

// normalize returns s in NFKC. With fold, it is also lowercased, ß and ẞ
// become "ss" and the typographic apostrophe U+2019 becomes "'". Format
// characters (soft hyphen, zero-width joiners, BOM, bidi marks) are dropped,
// except that a zero-width space becomes a space.
func normalize(s string, fold bool) normText {
	t := normText{
		runes: make([]rune, 0, len(s)),
		from:  make([]int, 0, len(s)),
		to:    make([]int, 0, len(s)),
	}
	var it norm.Iter
	it.InitString(norm.NFKC, s)
	// A long expansion ("㍿" → "株式会社") may come out of several calls to
	// Next, only the last of which advances the input position. Output that
	// consumed no input is kept pending and given the span of the input
	// segment that completes it.
	var pending []byte
	pos, bytePos, last := 0, 0, 0
	for !it.Done() {
		pending = append(pending, it.Next()...)
		end := it.Pos()
		if end == bytePos {
			continue
		}
		n := utf8.RuneCountInString(s[bytePos:end])
		t.addAll(pending, fold, pos, pos+n)
		pending = pending[:0]
		last = pos
		pos += n
		bytePos = end
	}
	t.addAll(pending, fold, last, pos)
	return t
}

func (t *normText) addAll(b []byte, fold bool, from, to int) {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		t.add(r, fold, from, to)
	}
}

func (t *normText) add(r rune, fold bool, from, to int) {
	switch {
	case r == '\u200b':
		r = ' '
	case unicode.Is(unicode.Cf, r):
		return
	}
	if fold {
		switch r {
		case 'ß', 'ẞ':
			t.push('s', from, to)
			t.push('s', from, to)
			return
		case '\u2019':
			r = '\''
		default:
			r = unicode.ToLower(r)
		}
	}
	t.push(r, from, to)
}

func (t *normText) push(r rune, from, to int) {
	t.runes = append(t.runes, r)
	t.from = append(t.from, from)
	t.to = append(t.to, to)
}

// Fold returns s as the analyzer sees it: NFKC, lowercase, ß folded to "ss",
// format characters dropped. Use it to compare text the way the index does.
func Fold(s string) string {
	return string(normalize(s, true).runes)
}

// isCJK reports whether r belongs to a script written without spaces between
// words, which the analyzer cuts into character bigrams.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r == 'ー' // the prolonged sound mark is "Common", but part of Katakana words
}

// isAlnum reports whether r is a letter, digit or other number.
func isAlnum(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}
