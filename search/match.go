package search

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/hybrid-search/hybridsearch/analysis"
)

// matcher finds a query's terms, phrases and identifiers in chunk text.
//
// It sees text as analysis.Tokens cuts it (TestScanMatchesTokens compares
// them on the analyzer's corner cases), but without running the slow word
// segmenter over all of it: words never span whitespace, so the
// text is split at whitespace first, and a field made only of ASCII is cut
// into tokens only when it contains a query term (or, for highlighting, a
// word close to one). Runs of CJK characters, which the analyzer turns
// into bigrams without looking at word boundaries, are cut directly.
type matcher struct {
	terms     map[string]bool
	ascii     []string     // the ASCII terms, for the substring pre-check
	fuzzy     []fuzzyTerm  // words long enough to match with typos
	phrases   [][]string   // quoted phrases, as terms
	idPhrases [][]string   // each identifier's terms, highlighted as one range
	ids       []identifier // identifiers, for the boost
}

// identifier is a query identifier and its space-separated parts.
type identifier struct {
	id    string
	parts []string
}

func newMatcher(q analysis.Query) *matcher {
	m := &matcher{terms: make(map[string]bool, len(q.Terms)), phrases: q.Phrases}
	for _, t := range analysis.Tokens(q.Raw) {
		if m.terms[t.Text] {
			continue
		}
		m.terms[t.Text] = true
		if isASCII(t.Text) {
			m.ascii = append(m.ascii, t.Text)
		}
		if n := utf8.RuneCountInString(t.Text); t.Kind == analysis.KindWord && n >= minFuzzyRunes {
			f := fuzzyTerm{runes: []rune(t.Text), maxDist: 1 + n/8}
			f.counts, f.mask, f.ascii = countLetters(t.Text)
			m.fuzzy = append(m.fuzzy, f)
		}
	}
	for _, id := range q.Identifiers {
		m.ids = append(m.ids, identifier{id: id, parts: strings.Fields(id)})
		if terms := analysis.Terms(id); len(terms) > 1 {
			m.idPhrases = append(m.idPhrases, terms)
		}
	}
	return m
}

// addTerms makes the terms of text (a corrected query word) terms to
// highlight.
func (m *matcher) addTerms(text string) {
	for _, t := range analysis.Tokens(text) {
		if m.terms[t.Text] {
			continue
		}
		m.terms[t.Text] = true
		if isASCII(t.Text) {
			m.ascii = append(m.ascii, t.Text)
		}
	}
}

// markKind says what a mark is.
type markKind uint8

const (
	markGap   markKind = iota // one or more tokens that are not query terms
	markTerm                  // a query term
	markFuzzy                 // a word within a few edits of a query word
)

// marksPool holds mark buffers for scans whose marks do not outlive the
// call (highlights, chunkMatch): a page of excerpts would otherwise
// allocate about 4 KB of marks per chunk.
var marksPool = sync.Pool{New: func() any { return new([]mark) }}

// mark is a token of the scanned text as the matcher sees it.
type mark struct {
	kind       markKind
	term       string // for markTerm
	start, end int    // rune offsets; zero for markGap
}

// scan appends to out the marks of text, in order: every token that is a
// query term (and with fuzzy, every word close to a query word) with its
// rune span, and gap marks standing for the tokens in between.
func (m *matcher) scan(text string, fuzzy bool, out []mark) []mark {
	out = slices.Grow(out, len(text)/8)
	lower := asciiLower(text)
	pos := 0 // rune offset of i
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			if asciiSpace(c) {
				i++
				pos++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); unicode.IsSpace(r) {
			i += size
			pos++
			continue
		}
		start, startPos := i, pos
		ascii, alnum := true, false
		for i < len(text) {
			if c := text[i]; c < utf8.RuneSelf {
				if asciiSpace(c) {
					break
				}
				alnum = alnum || isASCIIAlnum(c)
				i++
				pos++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsSpace(r) {
				break
			}
			ascii = false
			i += size
			pos++
		}
		field := text[start:i]
		switch {
		case !ascii:
			out = m.scanField(field, startPos, fuzzy, out)
		case m.hasTerm(lower[start:i]) || fuzzy && m.nearTerm(lower[start:i]):
			for _, t := range analysis.Tokens(field) {
				out = append(out, m.classify(t.Text, t.Kind, startPos+t.Start, startPos+t.End, fuzzy))
			}
		case alnum:
			out = append(out, mark{kind: markGap})
		}
	}
	return out
}

// scanField adds the marks of a field holding non-ASCII runes.
func (m *matcher) scanField(field string, off int, fuzzy bool, out []mark) []mark {
	if !cjkSplittable(field) {
		for _, t := range analysis.Tokens(field) {
			out = append(out, m.classify(t.Text, t.Kind, off+t.Start, off+t.End, fuzzy))
		}
		return out
	}
	// CJK runs become bigrams (a lone character a unigram), the parts
	// between them go through the analyzer.
	runes := []rune(field)
	for i := 0; i < len(runes); {
		j := i + 1
		cjk := isCJK(runes[i])
		for j < len(runes) && isCJK(runes[j]) == cjk {
			j++
		}
		switch {
		case !cjk:
			part := string(runes[i:j])
			for _, t := range analysis.Tokens(part) {
				out = append(out, m.classify(t.Text, t.Kind, off+i+t.Start, off+i+t.End, fuzzy))
			}
		case j-i == 1:
			out = append(out, m.classify(string(runes[i]), analysis.KindCJK, off+i, off+j, fuzzy))
		default:
			for k := i; k+1 < j; k++ {
				out = append(out, m.classify(string(runes[k:k+2]), analysis.KindCJK, off+k, off+k+2, fuzzy))
			}
		}
		i = j
	}
	return out
}

// cjkSplittable reports whether field's CJK runs can be cut without the
// analyzer: it holds CJK, is already NFKC and has no format characters
// (which the analyzer drops, joining the runes around them).
func cjkSplittable(field string) bool {
	hasCJK := false
	for _, r := range field {
		if unicode.Is(unicode.Cf, r) {
			return false
		}
		hasCJK = hasCJK || isCJK(r)
	}
	return hasCJK && norm.NFKC.IsNormalString(field)
}

// classify returns the mark of one token.
func (m *matcher) classify(text string, kind analysis.Kind, start, end int, fuzzy bool) mark {
	switch {
	case m.terms[text]:
		return mark{kind: markTerm, term: text, start: start, end: end}
	case fuzzy && kind == analysis.KindWord && m.isNear(text):
		return mark{kind: markFuzzy, start: start, end: end}
	}
	return mark{kind: markGap}
}

// hasTerm reports whether an ASCII field, lowercased, contains an ASCII
// query term; a field that does not cannot yield one.
func (m *matcher) hasTerm(lowerField string) bool {
	for _, t := range m.ascii {
		if strings.Contains(lowerField, t) {
			return true
		}
	}
	return false
}

// asciiLower lowercases the ASCII letters of s, leaving every other byte
// (and so every offset) as it is.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiSpace is unicode.IsSpace for an ASCII byte.
func asciiSpace(c byte) bool {
	return c == ' ' || '\t' <= c && c <= '\r'
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isCJK is analysis's test for scripts cut into bigrams; it must agree
// with it (TestScanMatchesTokens checks).
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー'
}
