package search_test

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/search"
)

// TestCISI measures retrieval quality on the CISI test collection (1,460
// library-science abstracts, 76 judged queries): nDCG@10 and recall@30 per
// algorithm, next to a textbook BM25 over whole documents. It runs only
// with CISI=1 (CISI_DIR overrides the data folder) and prints a table:
//
//	CISI=1 go test -run TestCISI -v ./search/
//
// The semantic leg uses the Deterministic test embedder, a bag of words
// and trigrams, not a language model: its numbers say nothing about real
// semantic search, and hybrid here fuses three lexical signals.
func TestCISI(t *testing.T) {
	if os.Getenv("CISI") == "" {
		t.Skip("set CISI=1 to run the CISI evaluation")
	}
	dir := os.Getenv("CISI_DIR")
	if dir == "" {
		dir = "/work/shared/data/cisi"
	}
	docs := readSMART(t, filepath.Join(dir, "CISI.ALL"))
	queries := readSMART(t, filepath.Join(dir, "CISI.QRY"))
	rels := readRel(t, filepath.Join(dir, "CISI.REL"))

	st := openLocal(t)
	var fixture []doc
	for _, d := range docs {
		id, _ := strconv.Atoi(d.id)
		fixture = append(fixture, doc{ID: hs.FileID(id), Title: d.title, Path: "/cisi/" + d.id + ".txt", Text: d.text})
	}
	mustIndex(t, st, fixture...)
	svc := mustService(t, st)
	ref := newRefBM25(docs)

	type run struct {
		name string
		req  hs.SearchRequest
	}
	runs := []run{
		{"keyword", hs.SearchRequest{Algorithm: hs.AlgorithmKeyword}},
		{"fuzzy", hs.SearchRequest{Algorithm: hs.AlgorithmFuzzy}},
		{"semantic (test embedder)", hs.SearchRequest{Algorithm: hs.AlgorithmSemantic}},
		{"hybrid rrf", hs.SearchRequest{}},
		{"hybrid linear", hs.SearchRequest{Fusion: hs.FusionLinear}},
		{"hybrid auto", hs.SearchRequest{Fusion: hs.FusionAuto}},
		{"hybrid keyword+fuzzy", hs.SearchRequest{Weights: &hs.Weights{Keyword: 0.6, Fuzzy: 0.4}}},
	}
	sums := make(map[string][2]float64)
	judged := 0
	for _, q := range queries {
		rel := rels[q.id]
		if len(rel) == 0 {
			continue
		}
		judged++
		text := truncateRunes(strings.Join(strings.Fields(q.text), " "), search.MaxQueryRunes)
		for _, r := range runs {
			req := r.req
			req.Query, req.TopK = text, 30
			res := mustSearch(t, svc, "alice", req)
			var got []string
			for _, x := range res.Results {
				got = append(got, strconv.Itoa(int(x.FileID)))
			}
			s := sums[r.name]
			sums[r.name] = [2]float64{s[0] + ndcg(got, rel, 10), s[1] + recall(got, rel, 30)}
		}
		got := ref.search(text, 30)
		s := sums["reference BM25 (documents)"]
		sums["reference BM25 (documents)"] = [2]float64{s[0] + ndcg(got, rel, 10), s[1] + recall(got, rel, 30)}
	}
	t.Logf("CISI: %d documents, %d judged queries (queries cut to %d characters)", len(docs), judged, search.MaxQueryRunes)
	t.Logf("%-28s %8s %10s", "run", "nDCG@10", "recall@30")
	var names []string
	for _, r := range runs {
		names = append(names, r.name)
	}
	for _, name := range append(names, "reference BM25 (documents)") {
		s := sums[name]
		t.Logf("%-28s %8.3f %10.3f", name, s[0]/float64(judged), s[1]/float64(judged))
	}
	if k := sums["keyword"][0] / float64(judged); k < 0.2 {
		t.Errorf("keyword nDCG@10 %.3f is far below what BM25 gets on CISI", k)
	}
}

// smart is one record of a SMART-format file (.I id, .T title, .W text).
type smart struct {
	id, title, text string
}

func readSMART(t *testing.T, file string) []smart {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
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
		t.Fatal(err)
	}
	return out
}

func readRel(t *testing.T, file string) map[string]map[string]bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
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
	return out
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

// ndcg is nDCG@k with binary relevance.
func ndcg(got []string, rel map[string]bool, k int) float64 {
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

func recall(got []string, rel map[string]bool, k int) float64 {
	n := 0
	for i := 0; i < k && i < len(got); i++ {
		if rel[got[i]] {
			n++
		}
	}
	return float64(n) / float64(len(rel))
}

// refBM25 is textbook BM25 (k1 1.2, b 0.75, the collection's average
// length, Lucene's idf) over whole documents, as a yardstick.
type refBM25 struct {
	ids   []string
	tf    []map[string]int
	lens  []int
	df    map[string]int
	avgdl float64
}

func newRefBM25(docs []smart) *refBM25 {
	r := &refBM25{df: map[string]int{}}
	total := 0
	for _, d := range docs {
		terms := analysis.Terms(d.title + "\n\n" + d.text)
		tf := map[string]int{}
		for _, x := range terms {
			tf[x]++
		}
		for x := range tf {
			r.df[x]++
		}
		r.ids = append(r.ids, d.id)
		r.tf = append(r.tf, tf)
		r.lens = append(r.lens, len(terms))
		total += len(terms)
	}
	r.avgdl = float64(total) / float64(len(docs))
	return r
}

func (r *refBM25) search(q string, k int) []string {
	type scored struct {
		id    string
		score float64
	}
	var terms []string
	for _, x := range analysis.Terms(q) {
		if !slices.Contains(terms, x) {
			terms = append(terms, x)
		}
	}
	n := float64(len(r.ids))
	var res []scored
	for i, tf := range r.tf {
		var s float64
		for _, x := range terms {
			f := float64(tf[x])
			if f == 0 {
				continue
			}
			df := float64(r.df[x])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			s += idf * f * 2.2 / (f + 1.2*(0.25+0.75*float64(r.lens[i])/r.avgdl))
		}
		if s > 0 {
			res = append(res, scored{r.ids[i], s})
		}
	}
	slices.SortFunc(res, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	var out []string
	for i := 0; i < k && i < len(res); i++ {
		out = append(out, res[i].id)
	}
	return out
}
