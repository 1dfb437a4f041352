package search

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// fuzzyWord is a query word the fuzzy leg looks for, with its weight in
// the fuzzy match.
type fuzzyWord struct {
	text    string
	runes   []rune
	maxDist int // edits allowed: 0 below minFuzzyRunes-1 runes or with digits, else 1 + n/10
	weight  float64
	counts  letterCounts
	mask    uint64
	ascii   bool
}

func newFuzzyWord(text string, weight float64) fuzzyWord {
	f := fuzzyWord{text: text, runes: []rune(text), weight: weight}
	if n := len(f.runes); n >= minFuzzyRunes-1 && !strings.ContainsFunc(text, unicode.IsDigit) {
		f.maxDist = 1 + n/10
	}
	f.counts, f.mask, f.ascii = countLetters(text)
	return f
}

// near returns the edit distance between the folded word w (as runes in
// wr) and f, or -1 when it is above f.maxDist. Distances are optimal
// string alignment distances (insertions, deletions, substitutions, swaps
// of neighbours).
func (f *fuzzyWord) near(w []byte, wr []rune) int {
	if string(w) == f.text {
		return 0
	}
	if f.maxDist == 0 {
		return -1
	}
	if d := len(wr) - len(f.runes); d > f.maxDist || -d > f.maxDist {
		return -1
	}
	if f.ascii {
		counts, mask, ascii := countLetters(w)
		if ascii && (bits.OnesCount64(mask^f.mask) > 2*f.maxDist || !counts.within(&f.counts, 2*f.maxDist)) {
			return -1
		}
	}
	if d := editDistance(wr, f.runes, f.maxDist); d <= f.maxDist {
		return d
	}
	return -1
}

// fuzzyMatch is how a chunk matches the fuzzy leg's words.
type fuzzyMatch struct {
	share float64           // Σ weight·similarity / Σ weight, in [0, 1]
	near  map[string]string // for each word, the closest different word of the chunk
	dist  map[string]int    // and its distance
}

// matchFuzzy finds the fuzzy words in a chunk (title, headings and text,
// folded as the analyzer folds them): a word found as it is counts fully,
// one found within its edit allowance (one edit, two from 10 letters on;
// none for words under four letters or with digits) counts 1 − d/(n+1)
// for d edits in a word of n letters ("kuberntes" in a chunk with
// "kubernetes": 0.9).
func matchFuzzy(words []fuzzyWord, text string) fuzzyMatch {
	m := fuzzyMatch{}
	best := make([]float64, len(words))
	var total float64
	lo, hi := 1<<30, 0 // the token lengths, in runes, that can match a word
	for _, w := range words {
		total += w.weight
		lo, hi = min(lo, len(w.runes)-w.maxDist), max(hi, len(w.runes)+w.maxDist)
	}
	var buf []byte // the token, folded
	var tr []rune  // and its runes
	eachWord(text, func(tok string, ascii bool) {
		// A folded token has at least as many runes as an ASCII one has
		// bytes, and NFKC rarely shortens text: checking the byte length
		// of ASCII tokens first skips most of them cheaply.
		if ascii && (len(tok) < lo || len(tok) > hi) {
			return
		}
		if ascii {
			buf, tr = append(buf[:0], tok...), tr[:0]
			for i, c := range buf {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
					buf[i] = c
				}
				tr = append(tr, rune(c))
			}
		} else {
			folded := analysis.Fold(tok)
			buf, tr = append(buf[:0], folded...), append(tr[:0], []rune(folded)...)
		}
		for i := range words {
			f := &words[i]
			if best[i] == 1 {
				continue
			}
			d := f.near(buf, tr)
			if d < 0 {
				continue
			}
			if d > 0 {
				if m.near == nil {
					m.near, m.dist = make(map[string]string), make(map[string]int)
				}
				if old, ok := m.dist[f.text]; !ok || d < old || d == old && string(buf) < m.near[f.text] {
					m.near[f.text], m.dist[f.text] = string(buf), d
				}
			}
			best[i] = max(best[i], 1-float64(d)/float64(len(f.runes)+1))
		}
	})
	if total <= 0 {
		return m
	}
	for i, w := range words {
		m.share += w.weight * best[i]
	}
	m.share /= total
	return m
}

// eachWord calls f with each run of letters, digits and apostrophes of
// text, and whether it is all ASCII.
func eachWord(text string, f func(tok string, ascii bool)) {
	start, ascii := -1, true
	for i := 0; i < len(text); {
		c := text[i]
		size, word := 1, false
		if c < utf8.RuneSelf {
			word = isASCIIAlnum(c) || c == '\''
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			word = !notWordRune(r)
		}
		switch {
		case word && start < 0:
			start, ascii = i, c < utf8.RuneSelf
		case word:
			ascii = ascii && c < utf8.RuneSelf
		case start >= 0:
			f(text[start:i], ascii)
			start = -1
		}
		i += size
	}
	if start >= 0 {
		f(text[start:], ascii)
	}
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
}

// verifyFuzzy keeps the fuzzy hits that hold at least one of the words,
// as they are or within their edit allowance, and at least minShare of
// them (matchFuzzy), and returns them with their matches. Trigrams only
// find candidates: random letters share a few common trigrams with any
// text, a typo keeps a word within an edit or two. So "zzqxxv
// nothingmatches" finds nothing.
func verifyFuzzy(words []fuzzyWord, hits []hs.Hit, minShare float64) ([]hs.Hit, []fuzzyMatch) {
	kept := hits[:0]
	var matches []fuzzyMatch
	for _, h := range hits {
		m := matchFuzzy(words, matchText(h.Point))
		if m.share > 0 && m.share >= minShare {
			kept = append(kept, h)
			matches = append(matches, m)
		}
	}
	return kept, matches
}

// corrections returns, for each unknown query word, the closest word the
// fuzzy leg's chunks hold that starts with the same letter (spelling
// errors rarely hit the first letter, and a different first letter is
// more often another word: "tenses", "senses"): the fewest edits first,
// then the most chunks, then alphabetical order. This is how a typo ("retreival") finds
// the word the collection uses ("retrieval"), which the keyword leg then
// matches exactly.
func corrections(matches []fuzzyMatch) map[string]string {
	type cand struct {
		dist, seen int
	}
	count := make(map[[2]string]*cand)
	for _, m := range matches {
		for u, w := range m.near {
			if firstRune(u) != firstRune(w) {
				continue // few typos hit the first letter; "rlin" is not "lin"
			}
			k := [2]string{u, w}
			if count[k] == nil {
				count[k] = &cand{dist: m.dist[u]}
			}
			count[k].seen++
		}
	}
	out := make(map[string]string)
	bestOf := make(map[string]*cand)
	for k, c := range count {
		b := bestOf[k[0]]
		if b == nil || c.dist < b.dist || c.dist == b.dist && (c.seen > b.seen || c.seen == b.seen && k[1] < out[k[0]]) {
			bestOf[k[0]], out[k[0]] = c, k[1]
		}
	}
	return out
}

// correct adds the corrections of unknown words to the keyword query: each
// correction is matched as the word it replaces would have been, with the
// importance count·idf of its own most frequent index term, and that
// importance replaces the unknown word's in full. A correction that is a
// stop word, or that no chunk's index holds, is skipped.
func (s *Service) correct(ctx context.Context, q *sparseQuery, corr map[string]string) error {
	stats, ok := s.sparse.(SparseStats)
	if !ok || len(corr) == 0 {
		return nil
	}
	unknown := slices.Clone(q.unknownWords)
	slices.SortFunc(unknown, cmp.Compare)
	for _, u := range unknown {
		fix, ok := corr[u]
		if !ok {
			continue
		}
		words := analysis.QueryWords(fix)
		if len(words) != 1 || words[0].Stop || utf8.RuneCountInString(u) < minFuzzyRunes-1 {
			continue
		}
		w := words[0]
		ids := make([]uint32, len(w.Terms))
		for i, t := range w.Terms {
			ids[i] = analysis.TokenID(t)
		}
		df, total, err := stats.SparseDocFreq(ctx, vectorBM25, ids)
		if err != nil {
			return fmt.Errorf("bm25 statistics of corrections: %w", err)
		}
		best := slices.Max(df)
		if best == 0 {
			continue
		}
		old := q.words[u]
		c := float64(old.count) * analysis.IDF(best, total)
		weights := make(map[uint32]float32, len(q.vec.Indices)+len(ids))
		for i, id := range q.vec.Indices {
			weights[id] = q.vec.Values[i]
		}
		for i, id := range ids {
			if df[i] > 0 {
				weights[id] += float32(c / analysis.IDF(df[i], total))
			}
		}
		q.vec = sparseOf(weights)
		q.full += c - old.weight
		q.unknownWeight -= old.weight
		q.words[u] = queryWord{count: old.count, weight: c}
		q.corrected = append(q.corrected, [2]string{u, fix})
		q.unknownWords = slices.DeleteFunc(q.unknownWords, func(x string) bool { return x == u })
	}
	return nil
}
