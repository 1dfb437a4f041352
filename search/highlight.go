package search

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// highlights returns the rune ranges of text to mark for the query: each
// query term, each word close to a query word, each quoted phrase and
// identifier as one range; sorted, and overlapping or touching ranges
// merged (CJK bigrams overlap).
func (m *matcher) highlights(text string) [][2]int {
	buf := marksPool.Get().(*[]mark)
	defer marksPool.Put(buf)
	marks := m.scan(text, true, (*buf)[:0])
	*buf = marks
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
		folded, ok := cheapFold(text)
		for _, id := range m.ids {
			if containsIdentifier(text, folded, ok, id) {
				match.Identifiers++
			}
		}
	}
	if len(m.phrases) > 0 {
		buf := marksPool.Get().(*[]mark)
		defer marksPool.Put(buf)
		marks := m.scan(text, false, (*buf)[:0])
		*buf = marks
		for _, ph := range m.phrases {
			if len(findPhrase(marks, ph)) > 0 {
				match.Phrases++
			}
		}
	}
	return match
}

// containsIdentifier is analysis.ContainsIdentifier with a cheap
// pre-check: when folded is text as analysis.Fold would return it, every
// part of the identifier must occur in it (the canonical form only also
// collapses whitespace, which parts do not contain).
func containsIdentifier(text, folded string, ok bool, id identifier) bool {
	if ok {
		for _, part := range id.parts {
			if !strings.Contains(folded, part) {
				return false
			}
		}
	}
	return analysis.ContainsIdentifier(text, id.id)
}

// foldSpecial are the folds analysis.Fold makes beyond lowercasing.
var foldSpecial = strings.NewReplacer("ß", "ss", "\u2019", "'")

// cheapFold returns analysis.Fold(text) and true when that is cheap to get
// exactly: for ASCII, the lowercase; for text already in NFKC without
// format characters (which Fold drops), the lowercase with ß → ss and
// U+2019 → '. Otherwise it returns false.
func cheapFold(text string) (string, bool) {
	if isASCII(text) {
		return asciiLower(text), true
	}
	for _, r := range text {
		if unicode.Is(unicode.Cf, r) {
			return "", false
		}
	}
	if !norm.NFKC.IsNormalString(text) {
		return "", false
	}
	return foldSpecial.Replace(strings.ToLower(text)), true
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
