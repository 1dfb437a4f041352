package analysis_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/analysis"
)

// samples are a few sentences in some supported languages.
var samples = map[analysis.Language]string{
	"en": "The libraries of the university collect books and journals for every student, and the catalogue lists them all.",
	"de": "Die Bibliotheken der Universität sammeln Bücher und Zeitschriften für alle Studierenden, und der Katalog verzeichnet sie.",
	"fr": "Les bibliothèques de l'université rassemblent des livres et des revues pour tous les étudiants, et le catalogue les recense.",
	"es": "Las bibliotecas de la universidad reúnen libros y revistas para todos los estudiantes, y el catálogo los registra todos.",
	"it": "Le biblioteche dell'università raccolgono libri e riviste per tutti gli studenti, e il catalogo li elenca tutti quanti.",
	"nl": "De bibliotheken van de universiteit verzamelen boeken en tijdschriften voor alle studenten, en de catalogus vermeldt ze.",
	"sv": "Universitetets bibliotek samlar böcker och tidskrifter för alla studenter, och katalogen förtecknar dem alla.",
	"ru": "Библиотеки университета собирают книги и журналы для всех студентов, а каталог перечисляет их все без исключения.",
}

func TestDetect(t *testing.T) {
	for want, text := range samples {
		if got := analysis.Detect(text); got != want {
			t.Errorf("Detect(%.30q…) = %q, want %q", text, got, want)
		}
	}
	for _, text := range []string{"", "Kubernetes upgrade", "Biblioteki uniwersytetu gromadzą książki i czasopisma dla wszystkich studentów, a katalog wymienia je wszystkie.", "東京都の天気は晴れです。明日は雨が降るでしょう。東京都の天気は晴れです。明日は雨が降るでしょう。", "12345 67890 12345 67890 12345 67890 12345 67890 12345"} {
		if got := analysis.Detect(text); got != analysis.LangNone {
			t.Errorf("Detect(%q) = %q, want none", text, got)
		}
	}
}

func TestLanguagesHaveStemmersAndStopWords(t *testing.T) {
	want := []analysis.Language{"en", "de", "fr", "es", "it", "nl", "pt", "sv", "da", "no", "fi", "ru"}
	if got := analysis.Languages(); !slices.Equal(got, want) {
		t.Fatalf("Languages() = %v, want %v", got, want)
	}
	// Every language stems some word of the query and drops its own "and".
	ands := map[analysis.Language]string{"en": "and", "de": "und", "fr": "et", "es": "y", "it": "e", "nl": "en", "pt": "e", "sv": "och", "da": "og", "no": "og", "fi": "ja", "ru": "и"}
	for _, lang := range want {
		w := analysis.QueryWords(ands[lang])[0]
		if !w.Stop || slices.Contains(w.Terms, string(lang)+" "+ands[lang]) {
			t.Errorf("%s: %q is not a stop word of its language: %+v", lang, ands[lang], w)
		}
	}
}

func TestQueryWords(t *testing.T) {
	words := analysis.QueryWords("Retrieval of retrieval systems, D40, 2024 and 東京")
	byText := map[string]analysis.Word{}
	for _, w := range words {
		byText[w.Text] = w
	}
	r := byText["retrieval"]
	if r.Count != 2 || r.Stop || !slices.Contains(r.Terms, "en retriev") || !slices.Contains(r.Terms, "retrieval") {
		t.Errorf("retrieval: %+v, want count 2, the English stem and the word itself", r)
	}
	if of := byText["of"]; !of.Stop || slices.Contains(of.Terms, "of") || slices.Contains(of.Terms, "en of") {
		t.Errorf("of: %+v, want a stop word without an English or untagged term", of)
	}
	for _, code := range []string{"d40", "2024", "東京"} {
		if w := byText[code]; !slices.Equal(w.Terms, []string{code}) {
			t.Errorf("%s: terms %v, want only the term itself", code, w.Terms)
		}
	}
}

// TestChunkMatchesQueryInItsLanguage: an inflected query word meets a
// chunk in any supported language through that language's stem.
func TestChunkMatchesQueryInItsLanguage(t *testing.T) {
	queries := map[analysis.Language]string{"en": "library", "de": "Bibliothek", "fr": "bibliothèque", "es": "biblioteca", "it": "biblioteca", "nl": "bibliotheek", "sv": "biblioteken", "ru": "библиотека"}
	for lang, text := range samples {
		bm25, _ := analysis.ChunkVectors(analysis.Fields{Body: text})
		var ids []uint32
		for _, w := range analysis.QueryWords(queries[lang]) {
			for _, term := range w.Terms {
				ids = append(ids, analysis.TokenID(term))
			}
		}
		found := slices.ContainsFunc(ids, func(id uint32) bool { return slices.Contains(bm25.Indices, id) })
		if !found {
			t.Errorf("%s: the query %q shares no term with %q", lang, queries[lang], text)
		}
	}
}

func TestChunkVectorsDropStopWordsAndStem(t *testing.T) {
	bm25, _ := analysis.ChunkVectors(analysis.Fields{Body: samples["en"]})
	for _, term := range []string{"en librari", "en collect", "en student"} {
		if !slices.Contains(bm25.Indices, analysis.TokenID(term)) {
			t.Errorf("no %q in the English chunk", term)
		}
	}
	for _, term := range []string{"en the", "the", "en and", "libraries"} {
		if slices.Contains(bm25.Indices, analysis.TokenID(term)) {
			t.Errorf("%q is in the English chunk; stop words are dropped and words stemmed", term)
		}
	}
}

func TestTitleWeighsMore(t *testing.T) {
	body := samples["en"] + " Catalogue records describe every holding."
	inTitle, _ := analysis.ChunkVectors(analysis.Fields{Title: "Budget", Body: body})
	inBody, _ := analysis.ChunkVectors(analysis.Fields{Title: "Notes", Body: body + " Budget."})
	id := analysis.TokenID("en budget")
	if a, b := weight(inTitle, id), weight(inBody, id); !(a > b && b > 0) {
		t.Errorf("weight of a title word %v, of the same word in the body %v: want the title's higher", a, b)
	}
	folders, _ := analysis.ChunkVectors(analysis.Fields{Path: "/Projects/Apollo/notes.md", Body: body})
	if !slices.Contains(folders.Indices, analysis.TokenID("en apollo")) || slices.Contains(folders.Indices, analysis.TokenID("en note")) {
		t.Errorf("path: want the folder names indexed, not the file name")
	}
}

func TestIdentifiersAndCJKStayUnstemmed(t *testing.T) {
	bm25, tri := analysis.ChunkVectors(analysis.Fields{Body: samples["en"] + " Form D40 and PII-2024-0042 apply. 東京都の予算。 Die Straße."})
	for _, term := range []string{"d40", "en pii", "2024", "0042", "東京", "予算"} {
		if !slices.Contains(bm25.Indices, analysis.TokenID(term)) {
			t.Errorf("no %q in the chunk", term)
		}
	}
	// ß is folded before stemming: "strasse" and "Straße" are one term.
	q := analysis.QueryWords("Strasse")[0]
	if !slices.ContainsFunc(q.Terms, func(term string) bool { return slices.Contains(bm25.Indices, analysis.TokenID(term)) }) {
		t.Errorf("Strasse does not meet Straße: %v", q.Terms)
	}
	if len(tri.Indices) == 0 || strings.Contains(samples["en"], "ß") {
		t.Errorf("no trigrams")
	}
}
