package search

import (
	"math/bits"
	"unicode/utf8"
)

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

func countLetters[S ~string | ~[]byte](w S) (c letterCounts, mask uint64, ok bool) {
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

// minFuzzyRunes is the shortest word that highlights near misses: shorter
// words have too many neighbours ("form" is one edit from "from").
const minFuzzyRunes = 5

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
