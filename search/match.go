package search

import (
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// matcher finds a query's terms, phrases and identifiers in chunk text.
//
// It sees text exactly as analysis.Tokens cuts it, but without running the
// (slow) word segmenter over all of it: words never span whitespace, so the
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

// fuzzyTerm is a query word that highlights words within maxDist edits.
type fuzzyTerm struct {
	runes   []rune
	maxDist int
	counts  letterCounts // when ascii
	mask    uint64       // letters and digits present, when ascii
	ascii   bool
}

// letterCounts counts the ASCII letters and digits of a word, for a cheap
// lower bound of the edit distance: one edit changes the counts by at most
// 2 in total (a substitution removes one letter and adds another), so two
// words whose counts differ by more than 2·d are more than d edits apart.
type letterCounts [36]int8

func countLetters(w string) (c letterCounts, mask uint64, ok bool) {
	for i := 0; i < len(w); i++ {
		var k byte
		switch b := w[i]; {
		case 'a' <= b && b <= 'z':
			k = b - 'a'
		case '0' <= b && b <= '9':
			k = 26 + b - '0'
		default:
			return c, 0, false
		}
		c[k]++
		mask |= 1 << k
	}
	return c, mask, true
}

// within reports whether the counts differ by at most limit in total.
func (c *letterCounts) within(o *letterCounts, limit int) bool {
	d := 0
	for i := range c {
		x := int(c[i]) - int(o[i])
		if x < 0 {
			x = -x
		}
		d += x
	}
	return d <= limit
}

// identifier is a query identifier and its space-separated parts.
type identifier struct {
	id    string
	parts []string
}

// minFuzzyRunes is the shortest word that highlights near misses: shorter
// words have too many neighbours ("form" is one edit from "from").
const minFuzzyRunes = 5

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

// markKind says what a mark is.
type markKind uint8

const (
	markGap   markKind = iota // one or more tokens that are not query terms
	markTerm                  // a query term
	markFuzzy                 // a word within a few edits of a query word
)

// mark is a token of the scanned text as the matcher sees it.
type mark struct {
	kind       markKind
	term       string // for markTerm
	start, end int    // rune offsets; zero for markGap
}

// scan returns the marks of text, in order: every token that is a query
// term (and with fuzzy, every word close to a query word) with its rune
// span, and gap marks standing for the tokens in between.
func (m *matcher) scan(text string, fuzzy bool) []mark {
	out := make([]mark, 0, len(text)/8)
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

// nearTerm reports whether an ASCII field, lowercased, has a run of
// letters and digits close to a query word.
func (m *matcher) nearTerm(lowerField string) bool {
	if len(m.fuzzy) == 0 {
		return false
	}
	for i := 0; i < len(lowerField); {
		if !isASCIIAlnum(lowerField[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(lowerField) && isASCIIAlnum(lowerField[j]) {
			j++
		}
		if m.isNear(lowerField[i:j]) {
			return true
		}
		i = j
	}
	return false
}

// isNear reports whether word is a near miss of a query word: at most
// 1 + len/8 edits away (insertions, deletions, substitutions and swaps of
// neighbours), and not the word itself.
func (m *matcher) isNear(word string) bool {
	n := utf8.RuneCountInString(word)
	if n < minFuzzyRunes-1 {
		return false
	}
	counts, mask, ascii := countLetters(word)
	var w []rune
	for i := range m.fuzzy {
		f := &m.fuzzy[i]
		if d := n - len(f.runes); d > f.maxDist || -d > f.maxDist {
			continue
		}
		// The letters present differ in at most as many places as the
		// counts do: a one-instruction check first.
		if ascii && f.ascii && (bits.OnesCount64(mask^f.mask) > 2*f.maxDist || !counts.within(&f.counts, 2*f.maxDist)) {
			continue
		}
		if w == nil {
			w = []rune(word)
		}
		if d := editDistance(w, f.runes, f.maxDist); d > 0 && d <= f.maxDist {
			return true
		}
	}
	return false
}

// editDistance returns the optimal string alignment distance of a and b
// (Damerau-Levenshtein without moving a letter twice), or max+1 once it
// is sure to exceed max.
func editDistance(a, b []rune, max int) int {
	var buf [3][32]int
	var prev2, prev, cur []int
	if len(b) < len(buf[0]) {
		prev2, prev, cur = buf[0][:len(b)+1], buf[1][:len(b)+1], buf[2][:len(b)+1]
	} else {
		prev2, prev, cur = make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
			rowMin = min(rowMin, d)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// highlights returns the rune ranges of text to mark for the query: each
// query term, each word close to a query word, each quoted phrase and
// identifier as one range; sorted, and overlapping or touching ranges
// merged (CJK bigrams overlap).
func (m *matcher) highlights(text string) [][2]int {
	marks := m.scan(text, true)
	var rs [][2]int
	for _, mk := range marks {
		if mk.kind != markGap {
			rs = append(rs, [2]int{mk.start, mk.end})
		}
	}
	for _, ph := range slices.Concat(m.phrases, m.idPhrases) {
		for _, at := range findPhrase(marks, ph) {
			rs = append(rs, [2]int{marks[at].start, marks[at+len(ph)-1].end})
		}
	}
	if len(rs) == 0 {
		return nil
	}
	slices.SortFunc(rs, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return b[1] - a[1]
	})
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r[0] <= last[1] {
			last[1] = max(last[1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// findPhrase returns the indexes in marks where the terms of phrase
// follow one another.
func findPhrase(marks []mark, phrase []string) []int {
	var at []int
	for i := 0; i+len(phrase) <= len(marks); i++ {
		ok := true
		for j, t := range phrase {
			if mk := marks[i+j]; mk.kind != markTerm || mk.term != t {
				ok = false
				break
			}
		}
		if ok {
			at = append(at, i)
		}
	}
	return at
}

// chunkMatch counts the query identifiers and phrases a chunk contains,
// in its title, headings or text.
func (m *matcher) chunkMatch(p hs.Point) Match {
	var match Match
	if len(m.ids) == 0 && len(m.phrases) == 0 {
		return match
	}
	text := matchText(p)
	if len(m.ids) > 0 {
		lower, ascii := asciiLower(text), isASCII(text)
		for _, id := range m.ids {
			if containsIdentifier(text, lower, ascii, id) {
				match.Identifiers++
			}
		}
	}
	if len(m.phrases) > 0 {
		marks := m.scan(text, false)
		for _, ph := range m.phrases {
			if len(findPhrase(marks, ph)) > 0 {
				match.Phrases++
			}
		}
	}
	return match
}

// containsIdentifier is analysis.ContainsIdentifier with a cheap pre-check
// for ASCII text, whose canonical form is just its lowercase: every part
// of the identifier must occur in it.
func containsIdentifier(text, lower string, ascii bool, id identifier) bool {
	if ascii {
		for _, part := range id.parts {
			if !strings.Contains(lower, part) {
				return false
			}
		}
	}
	return analysis.ContainsIdentifier(text, id.id)
}

// matchText is the text a chunk is matched on: its document's title, its
// headings and its text, on lines of their own (the index analyses the
// same parts).
func matchText(p hs.Point) string {
	var b strings.Builder
	b.Grow(len(p.File.Title) + len(p.Chunk.Text) + 64)
	b.WriteString(p.File.Title)
	for _, h := range p.Chunk.Headings {
		b.WriteByte('\n')
		b.WriteString(h)
	}
	b.WriteByte('\n')
	b.WriteString(p.Chunk.Text)
	return b.String()
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
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
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
