package analysis_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/analysis"
)

func TestTokenID(t *testing.T) {
	tests := []struct {
		term string
		want uint32
	}{
		{"hello", 613153351}, // mmh3.hash("hello") = 613153351
		{"foo", 156908512},   // mmh3.hash("foo") = -156908512
		{"", 0},
	}
	for _, tt := range tests {
		if got := analysis.TokenID(tt.term); got != tt.want {
			t.Errorf("TokenID(%q) = %d, want %d", tt.term, got, tt.want)
		}
	}
}

// bm25 is the document-side formula, written out independently.
func bm25(n, docLen float64) float32 {
	const k, b, avg = 1.2, 0.75, float64(analysis.BM25AvgLen)
	return float32(n * (k + 1) / (n + k*(1-b+b*docLen/avg)))
}

func TestBM25Doc(t *testing.T) {
	terms := []string{"hello", "world", "hello", "foo"}
	got := analysis.BM25Doc(terms)
	want := map[uint32]float32{
		analysis.TokenID("hello"): bm25(2, 4),
		analysis.TokenID("world"): bm25(1, 4),
		analysis.TokenID("foo"):   bm25(1, 4),
	}
	checkSorted(t, got)
	if len(got.Indices) != len(want) {
		t.Fatalf("BM25Doc(%q) has %d entries, want %d", terms, len(got.Indices), len(want))
	}
	for i, id := range got.Indices {
		if w, ok := want[id]; !ok || math.Abs(float64(got.Values[i]-w)) > 1e-6 {
			t.Errorf("BM25Doc(%q)[%d] = %v, want %v", terms, id, got.Values[i], w)
		}
	}
}

func TestBM25DocLengthNormalisation(t *testing.T) {
	short := analysis.BM25Doc([]string{"x", "y"})
	long := analysis.BM25Doc(append([]string{"x"}, strings.Fields(strings.Repeat("y ", 500))...))
	id := analysis.TokenID("x")
	if s, l := weight(short, id), weight(long, id); !(s > l) {
		t.Errorf("weight of a term once in a short doc (%v) should exceed once in a long doc (%v)", s, l)
	}
	// At the average length, one occurrence weighs (k+1)/(1+k) = 1.
	avg := make([]string, analysis.BM25AvgLen)
	for i := range avg {
		avg[i] = "w" + strings.Repeat("x", i)
	}
	if got := weight(analysis.BM25Doc(avg), analysis.TokenID(avg[0])); math.Abs(float64(got)-1) > 1e-6 {
		t.Errorf("weight at average length = %v, want 1", got)
	}
}

func TestBM25Empty(t *testing.T) {
	for name, v := range map[string]analysis.SparseVector{
		"doc":            analysis.BM25Doc(nil),
		"query":          analysis.BM25Query(nil),
		"trigrams":       analysis.Trigrams(""),
		"trigram query":  analysis.TrigramQuery("!!"),
		"cjk trigrams":   analysis.Trigrams("東京都"),
		"punct trigrams": analysis.Trigrams("... --- ..."),
	} {
		if len(v.Indices) != 0 || len(v.Values) != 0 {
			t.Errorf("%s: got %v, want an empty vector", name, v)
		}
	}
}

func TestBM25Query(t *testing.T) {
	got := analysis.BM25Query([]string{"b", "a", "b", "c"})
	checkSorted(t, got)
	if len(got.Indices) != 3 {
		t.Fatalf("BM25Query has %d entries, want 3", len(got.Indices))
	}
	for i, v := range got.Values {
		if v != 1 {
			t.Errorf("BM25Query value %d = %v, want 1", i, v)
		}
	}
	want := []uint32{analysis.TokenID("a"), analysis.TokenID("b"), analysis.TokenID("c")}
	slices.Sort(want)
	if !slices.Equal(got.Indices, want) {
		t.Errorf("BM25Query indices = %v, want %v", got.Indices, want)
	}
}

func TestBM25Ranking(t *testing.T) {
	docs := []string{
		"The operator shall maintain the conveyor belt.",
		"Belt conveyors: belt inspection, belt cleaning and belt repair.",
		"Quarterly budget report for the finance team.",
	}
	q := analysis.BM25Query(analysis.Terms("belt"))
	var scores []float32
	for _, d := range docs {
		scores = append(scores, analysis.Dot(q, analysis.BM25Doc(analysis.Terms(d))))
	}
	if !(scores[1] > scores[0] && scores[0] > scores[2] && scores[2] == 0) {
		t.Errorf("scores for %q = %v, want doc 1 > doc 0 > doc 2 = 0", "belt", scores)
	}
}

func TestTrigrams(t *testing.T) {
	// "ab" padded is "  ab ": three trigrams, each once.
	v := analysis.Trigrams("ab")
	checkSorted(t, v)
	if len(v.Indices) != 3 {
		t.Errorf("Trigrams(\"ab\") has %d entries, want 3", len(v.Indices))
	}
	// A trigram counts once however often it occurs, on both sides.
	doc, query := analysis.Trigrams("aaa aaa"), analysis.TrigramQuery("aaa aaa")
	if got := sum(doc); got != 4 {
		t.Errorf("Trigrams(\"aaa aaa\") sums to %v, want 4 (4 trigrams, each once)", got)
	}
	for _, x := range query.Values {
		if x != 1 {
			t.Errorf("TrigramQuery value = %v, want 1", x)
		}
	}
	if !slices.Equal(doc.Indices, query.Indices) {
		t.Errorf("Trigrams and TrigramQuery ids differ: %v vs %v", doc.Indices, query.Indices)
	}
	// Trigram ids use their own seed, so they are not BM25 term ids.
	if slices.Contains(analysis.Trigrams("abc").Indices, analysis.TokenID("abc")) {
		t.Errorf("trigram id of \"abc\" equals its BM25 term id")
	}
}

func TestTrigramsFold(t *testing.T) {
	a, b := analysis.Trigrams("Straße"), analysis.Trigrams("STRASSE")
	if !slices.Equal(a.Indices, b.Indices) || !slices.Equal(a.Values, b.Values) {
		t.Errorf("Trigrams(Straße) != Trigrams(STRASSE)")
	}
}

// The fuzzy leg must rank the document with the intended word first.
func TestTrigramsFindTypos(t *testing.T) {
	docs := []string{
		"Deploying services on Kubernetes clusters",
		"Cube root tables and other numbers",
		"We receive invoices by mail",
		"Die Hauptstraße ist gesperrt",
		"Internet services and routers",
	}
	tests := []struct {
		query string
		want  int
	}{
		{"kuberntes", 0},
		{"kubernets", 0},
		{"recieve", 2},
		{"Hauptstrasse", 3},
		{"hauptstrase", 3},
	}
	vecs := make([]analysis.SparseVector, len(docs))
	for i, d := range docs {
		vecs[i] = analysis.Trigrams(d)
	}
	for _, tt := range tests {
		q := analysis.TrigramQuery(tt.query)
		best, bestScore := -1, float32(0)
		for i, v := range vecs {
			if s := cosine(q, v); s > bestScore {
				best, bestScore = i, s
			}
		}
		if best != tt.want {
			t.Errorf("best trigram match for %q = doc %d (%q), want doc %d (%q)", tt.query, best, at(docs, best), tt.want, docs[tt.want])
		}
	}
}

func TestDot(t *testing.T) {
	a := analysis.SparseVector{Indices: []uint32{1, 3, 5}, Values: []float32{1, 2, 3}}
	b := analysis.SparseVector{Indices: []uint32{2, 3, 5, 9}, Values: []float32{7, 10, 100, 1}}
	if got, want := analysis.Dot(a, b), float32(2*10+3*100); got != want {
		t.Errorf("Dot = %v, want %v", got, want)
	}
	if got := analysis.Dot(a, analysis.SparseVector{}); got != 0 {
		t.Errorf("Dot with empty = %v, want 0", got)
	}
}

func checkSorted(t *testing.T, v analysis.SparseVector) {
	t.Helper()
	if len(v.Indices) != len(v.Values) {
		t.Fatalf("%d indices but %d values", len(v.Indices), len(v.Values))
	}
	for i := 1; i < len(v.Indices); i++ {
		if v.Indices[i-1] >= v.Indices[i] {
			t.Fatalf("indices not sorted and unique at %d: %v", i, v.Indices)
		}
	}
}

func weight(v analysis.SparseVector, id uint32) float32 {
	if i, ok := slices.BinarySearch(v.Indices, id); ok {
		return v.Values[i]
	}
	return 0
}

func sum(v analysis.SparseVector) float32 {
	var s float32
	for _, x := range v.Values {
		s += x
	}
	return s
}

func cosine(a, b analysis.SparseVector) float32 {
	na, nb := float32(math.Sqrt(float64(analysis.Dot(a, a)))), float32(math.Sqrt(float64(analysis.Dot(b, b))))
	if na == 0 || nb == 0 {
		return 0
	}
	return analysis.Dot(a, b) / (na * nb)
}

func at(docs []string, i int) string {
	if i < 0 {
		return ""
	}
	return docs[i]
}

func TestDocVectors(t *testing.T) {
	text := "Die Straße nach Kubernetes, 東京都"
	bm25, trigram := analysis.DocVectors(text)
	if want := analysis.BM25Doc(analysis.Terms(text)); !slices.Equal(bm25.Indices, want.Indices) || !slices.Equal(bm25.Values, want.Values) {
		t.Errorf("DocVectors bm25 = %v, want %v", bm25, want)
	}
	if want := analysis.Trigrams(text); !slices.Equal(trigram.Indices, want.Indices) || !slices.Equal(trigram.Values, want.Values) {
		t.Errorf("DocVectors trigram = %v, want %v", trigram, want)
	}
}
