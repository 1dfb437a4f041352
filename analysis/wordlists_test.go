package analysis

import (
	"maps"
	"slices"
	"testing"

	blevean "github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/da"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fi"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/no"
	"github.com/blevesearch/bleve/v2/analysis/lang/pt"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/analysis/lang/sv"
)

// TestWordListsMatchBleve: the stop words and articles in stopwords/ are
// the very words bleve's language packages ship (the lists the analyzer
// used before they became the project's own files), so no term, and so
// no ranking, changed with the move. bleve is the reference here only.
func TestWordListsMatchBleve(t *testing.T) {
	bleve := map[string][]byte{
		"en.txt": en.EnglishStopWords, "de.txt": de.GermanStopWords, "fr.txt": fr.FrenchStopWords,
		"es.txt": es.SpanishStopWords, "it.txt": it.ItalianStopWords, "nl.txt": nl.DutchStopWords,
		"pt.txt": pt.PortugueseStopWords, "sv.txt": sv.SwedishStopWords, "da.txt": da.DanishStopWords,
		"no.txt": no.NorwegianStopWords, "fi.txt": fi.FinnishStopWords, "ru.txt": ru.RussianStopWords,
		"fr_articles.txt": fr.FrenchArticles, "it_articles.txt": it.ItalianArticles,
	}
	files, err := wordLists.ReadDir("stopwords")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	if want := slices.Sorted(maps.Keys(bleve)); !slices.Equal(names, want) {
		t.Fatalf("stopwords/ holds %v, want %v", names, want)
	}
	for name, ref := range bleve {
		tm := blevean.NewTokenMap()
		if err := tm.LoadBytes(ref); err != nil {
			t.Fatal(err)
		}
		want := slices.Sorted(maps.Keys(tm))
		list, err := wordLists.ReadFile("stopwords/" + name)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Compact(slices.Sorted(slices.Values(parseWordList(list))))
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d words, bleve's list %d; they differ", name, len(got), len(want))
		}
		if len(got) < 2 {
			t.Errorf("%s: %d words; the list did not parse", name, len(got))
		}
	}
	for _, s := range specs {
		l := lookup(s.code)
		if len(l.stop) == 0 || s.articles != (len(l.articles) > 0) {
			t.Errorf("%s: %d stop words, %d articles", s.code, len(l.stop), len(l.articles))
		}
	}
}
