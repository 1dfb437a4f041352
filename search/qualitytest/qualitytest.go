// Package qualitytest measures retrieval quality on judged test
// collections: it reads collections in the SMART format (CISI), computes
// the usual measures (nDCG@10, P@10, MAP@30, recall@30), makes one-typo
// variants of queries, and runs a reference BM25 (bleve v2.5.7 with its
// English analyzer) over the same documents, so that our search and the
// reference are measured side by side in one run. It exists for tests and
// benchmarks only.
package qualitytest

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Doc is one document of a collection.
type Doc struct {
	ID    string
	Title string
	Text  string
}

// Query is one judged query: Rel holds the ids of its relevant documents.
type Query struct {
	ID   string
	Text string
	Rel  map[string]bool
}

// Collection is a judged test collection.
type Collection struct {
	Name    string
	Docs    []Doc
	Queries []Query // only queries with at least one relevant document
}

// CISIDir returns the CISI folder: $CISI_DIR, or the copy kept in this
// package's testdata (found from this file, so tests of any package in
// the checkout reach it).
func CISIDir() string {
	if d := os.Getenv("CISI_DIR"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "cisi")
}

// ReadCISI reads CISI.ALL, CISI.QRY and CISI.REL from dir: 1,460
// library-science abstracts and the 76 queries that have judgments.
// Query texts are cut to maxQueryRunes at a word boundary (0: no limit)
// and their whitespace collapsed.
func ReadCISI(dir string, maxQueryRunes int) (*Collection, error) {
	docs, err := readSMART(filepath.Join(dir, "CISI.ALL"))
	if err != nil {
		return nil, err
	}
	qs, err := readSMART(filepath.Join(dir, "CISI.QRY"))
	if err != nil {
		return nil, err
	}
	rels, err := readRel(filepath.Join(dir, "CISI.REL"))
	if err != nil {
		return nil, err
	}
	c := &Collection{Name: "CISI"}
	for _, d := range docs {
		c.Docs = append(c.Docs, Doc{ID: d.id, Title: d.title, Text: d.text})
	}
	for _, q := range qs {
		if len(rels[q.id]) == 0 {
			continue
		}
		text := strings.Join(strings.Fields(q.text), " ")
		if maxQueryRunes > 0 {
			text = truncateRunes(text, maxQueryRunes)
		}
		c.Queries = append(c.Queries, Query{ID: q.id, Text: text, Rel: rels[q.id]})
	}
	if len(c.Docs) == 0 || len(c.Queries) == 0 {
		return nil, fmt.Errorf("qualitytest: %s holds no documents or no judged queries", dir)
	}
	return c, nil
}

// smart is one record of a SMART-format file (.I id, .T title, .W text).
type smart struct {
	id, title, text string
}

func readSMART(file string) ([]smart, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("qualitytest: %w", err)
	}
	defer f.Close()
	var out []smart
	field := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, ".") && len(line) >= 2 && strings.ContainsRune("ITAWXB", rune(line[1])) && (len(line) == 2 || line[2] == ' ') {
			field = line[:2]
			if field == ".I" {
				out = append(out, smart{id: strings.TrimSpace(line[2:])})
			}
			continue
		}
		if len(out) == 0 {
			continue
		}
		r := &out[len(out)-1]
		switch field {
		case ".T":
			r.title = strings.TrimSpace(r.title + " " + line)
		case ".W":
			r.text += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("qualitytest: read %s: %w", file, err)
	}
	return out, nil
}

func readRel(file string) (map[string]map[string]bool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("qualitytest: %w", err)
	}
	out := map[string]map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		if out[f[0]] == nil {
			out[f[0]] = map[string]bool{}
		}
		out[f[0]][f[1]] = true
	}
	return out, nil
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndexByte(string(r), ' '); i > 0 {
		return string(r)[:i]
	}
	return string(r)
}

// NDCG is nDCG@k with binary relevance.
func NDCG(got []string, rel map[string]bool, k int) float64 {
	var dcg, ideal float64
	for i := 0; i < k && i < len(got); i++ {
		if rel[got[i]] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := 0; i < k && i < len(rel); i++ {
		ideal += 1 / math.Log2(float64(i+2))
	}
	return dcg / ideal
}

// Precision is P@k: the share of the first k places holding a relevant
// document (an empty place counts as not relevant).
func Precision(got []string, rel map[string]bool, k int) float64 {
	n := 0
	for i := 0; i < k && i < len(got); i++ {
		if rel[got[i]] {
			n++
		}
	}
	return float64(n) / float64(k)
}

// AP is average precision at k (the summand of MAP@k): the mean of P@i
// over the ranks i ≤ k that hold a relevant document, divided by
// min(k, |rel|).
func AP(got []string, rel map[string]bool, k int) float64 {
	var sum float64
	n := 0
	for i := 0; i < k && i < len(got); i++ {
		if rel[got[i]] {
			n++
			sum += float64(n) / float64(i+1)
		}
	}
	return sum / float64(min(k, len(rel)))
}

// Recall is recall@k.
func Recall(got []string, rel map[string]bool, k int) float64 {
	n := 0
	for i := 0; i < k && i < len(got); i++ {
		if rel[got[i]] {
			n++
		}
	}
	return float64(n) / float64(len(rel))
}

// Scores sums the measures of a run over queries.
type Scores struct {
	Queries             int
	NDCG10, P10, MAP30  float64
	Recall30, Stability float64
	stabilityRuns       int
}

// Add adds one query's ranking (document ids, best first, at least 30
// asked for).
func (s *Scores) Add(got []string, rel map[string]bool) {
	s.Queries++
	s.NDCG10 += NDCG(got, rel, 10)
	s.P10 += Precision(got, rel, 10)
	s.MAP30 += AP(got, rel, 30)
	s.Recall30 += Recall(got, rel, 30)
}

// AddStability records whether the first 10 results of pages of several
// sizes were identical for one query.
func (s *Scores) AddStability(stable bool) {
	s.stabilityRuns++
	if stable {
		s.Stability++
	}
}

// Mean returns the means: nDCG@10, P@10, MAP@30, recall@30 and the share
// of queries with stable pages (-1 when not measured).
func (s Scores) Mean() (ndcg, p10, map30, recall, stability float64) {
	n := float64(max(s.Queries, 1))
	stability = -1
	if s.stabilityRuns > 0 {
		stability = s.Stability / float64(s.stabilityRuns)
	}
	return s.NDCG10 / n, s.P10 / n, s.MAP30 / n, s.Recall30 / n, stability
}

// Typo returns q with one typo in one of its words of four or more
// letters, chosen by rng: a deleted, inserted, replaced or swapped letter
// (inside the word, never its first letter). q is returned unchanged when
// it has no such word.
func Typo(rng *rand.Rand, q string) string {
	words := strings.Fields(q)
	var cand []int
	for i, w := range words {
		if n := utf8.RuneCountInString(w); n >= 4 && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 {
			cand = append(cand, i)
		}
	}
	if len(cand) == 0 {
		return q
	}
	i := cand[rng.IntN(len(cand))]
	r := []rune(words[i])
	j := 1 + rng.IntN(len(r)-2) // a letter inside the word
	letter := rune('a' + rng.IntN(26))
	switch rng.IntN(4) {
	case 0: // delete
		r = append(r[:j], r[j+1:]...)
	case 1: // insert
		r = append(r[:j], append([]rune{letter}, r[j:]...)...)
	case 2: // replace
		if r[j] == letter {
			letter = 'a' + (letter-'a'+1)%26
		}
		r[j] = letter
	default: // swap with the next letter
		r[j], r[j+1] = r[j+1], r[j]
	}
	words[i] = string(r)
	return strings.Join(words, " ")
}

// RandomLetters returns n queries of two or three words of random lower-case
// letters (5 to 10 each), from rng: text no collection contains.
func RandomLetters(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		words := make([]string, 2+rng.IntN(2))
		for j := range words {
			w := make([]byte, 5+rng.IntN(6))
			for k := range w {
				w[k] = byte('a' + rng.IntN(26))
			}
			words[j] = string(w)
		}
		out[i] = strings.Join(words, " ")
	}
	return out
}
