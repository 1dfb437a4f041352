package qualitytest_test

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/search/qualitytest"
)

var docs = []qualitytest.Doc{
	{ID: "1", Title: "Library catalogues", Text: "Cataloguing rules for university libraries and their catalogues."},
	{ID: "2", Title: "Indexing", Text: "Automatic indexing of scientific documents by computer programs."},
	{ID: "3", Title: "Retrieval", Text: "Information retrieval systems: evaluation of retrieval with recall and precision, and indexing."},
	{ID: "4", Title: "Budgets", Text: "The budget of a public library, and how it was spent."},
}

// TestBleveScoresWithBM25: the reference index really scores with BM25.
// bleve's in-memory index (upsidedown) ignores the mapping's scoring model
// and explains its scores "as per tf-idf model"; scorch follows it.
func TestBleveScoresWithBM25(t *testing.T) {
	ref, err := qualitytest.NewBleve(filepath.Join(t.TempDir(), "bleve"), docs)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	expl, err := ref.Explain("indexing retrieval")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(expl, "as per bm25 model") || strings.Contains(expl, "tf-idf") {
		t.Errorf("bleve's explanation does not name BM25 alone:\n%s", expl)
	}
	got, err := ref.Search("indexing retrieval", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "3" {
		t.Errorf("bleve found %v, want 3 first of 2", got)
	}
}

// TestTextbookBM25 checks the reference's scores against the formula
// computed by hand on the app's terms (English stems, stop words dropped).
func TestTextbookBM25(t *testing.T) {
	lengths := []int{7, 7, 9, 5}
	for i, d := range docs {
		if got := analysis.DocumentTerms(d.Title + "\n\n" + d.Text); len(got) != lengths[i] {
			t.Fatalf("document %s has terms %q, want %d", d.ID, got, lengths[i])
		}
	}
	ref := qualitytest.NewTextbookBM25(docs)
	const k1, b, n, avgdl = 1.2, 0.75, 4.0, 28.0 / 4
	idf := func(df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }
	part := func(tf, dl float64) float64 { return tf * (k1 + 1) / (tf + k1*(1-b+b*dl/avgdl)) }
	// "retrieval indexing retrieval": retrieval twice (qtf 2, df 1: three
	// times in document 3), indexing once (df 2: twice in document 2, once
	// in 3).
	const q = "retrieval indexing retrieval"
	want := map[string]float64{
		"2": idf(2) * part(2, 7),
		"3": 2*idf(1)*part(3, 9) + idf(2)*part(1, 9),
	}
	for id, w := range want {
		if got := ref.Score(q, id); math.Abs(got-w) > 1e-9 {
			t.Errorf("score of %s = %v, want %v", id, got, w)
		}
	}
	if got := ref.Search(q, 10); !slices.Equal(got, []string{"3", "2"}) {
		t.Errorf("found %v, want [3 2]", got)
	}
	if got := ref.Search("zzqx", 10); len(got) != 0 {
		t.Errorf("an unknown word found %v", got)
	}
}
