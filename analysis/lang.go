package analysis

import (
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/abadojack/whatlanggo"
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
	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
)

// Language is an ISO 639-1 code of a language the analyzer stems ("en",
// "de", ...), or LangNone for text it leaves unstemmed.
type Language string

// LangNone is the language of text that is in no supported language, or
// too short to tell: its words are indexed as they are, stop words too.
const LangNone Language = ""

// language is what the analyzer knows of one supported language: its
// Snowball stemmer, its Snowball stop words (folded as tokens are) and the
// elided articles that precede words after an apostrophe ("l'", "dell'").
type language struct {
	code     Language
	detect   whatlanggo.Lang
	stem     func(*snowballstem.Env) bool
	stop     map[string]bool
	articles map[string]bool
}

// languageSpec is the static part of a language, before its word lists
// are parsed.
type languageSpec struct {
	code     Language
	detect   whatlanggo.Lang
	stem     func(*snowballstem.Env) bool
	stop     []byte
	articles []byte
}

// specs lists the supported languages: those with a Snowball stemmer and
// stop-word list. Stemmers come from github.com/blevesearch/snowballstem
// (the Snowball project's algorithms compiled to Go), stop words and
// articles from bleve's language packages (the Snowball lists).
var specs = []languageSpec{
	{"en", whatlanggo.Eng, english.Stem, en.EnglishStopWords, nil},
	{"de", whatlanggo.Deu, german.Stem, de.GermanStopWords, nil},
	{"fr", whatlanggo.Fra, french.Stem, fr.FrenchStopWords, fr.FrenchArticles},
	{"es", whatlanggo.Spa, spanish.Stem, es.SpanishStopWords, nil},
	{"it", whatlanggo.Ita, italian.Stem, it.ItalianStopWords, it.ItalianArticles},
	{"nl", whatlanggo.Nld, dutch.Stem, nl.DutchStopWords, nil},
	{"pt", whatlanggo.Por, portuguese.Stem, pt.PortugueseStopWords, nil},
	{"sv", whatlanggo.Swe, swedish.Stem, sv.SwedishStopWords, nil},
	{"da", whatlanggo.Dan, danish.Stem, da.DanishStopWords, nil},
	{"no", whatlanggo.Nob, norwegian.Stem, no.NorwegianStopWords, nil},
	{"fi", whatlanggo.Fin, finnish.Stem, fi.FinnishStopWords, nil},
	{"ru", whatlanggo.Rus, russian.Stem, ru.RussianStopWords, nil},
}

// languages returns the supported languages with their lists parsed, in
// the order of specs. The tables are built once and never change.
var languages = sync.OnceValue(func() []*language {
	out := make([]*language, len(specs))
	for i, s := range specs {
		out[i] = &language{code: s.code, detect: s.detect, stem: s.stem, stop: wordSet(s.stop), articles: wordSet(s.articles)}
	}
	return out
})

// wordSet parses a Snowball word list ("|" or "#" start comments) into a
// set of folded words.
func wordSet(list []byte) map[string]bool {
	if list == nil {
		return nil
	}
	tm := blevean.NewTokenMap()
	if err := tm.LoadBytes(list); err != nil {
		panic("analysis: bad built-in word list: " + err.Error()) // the lists are constants
	}
	out := make(map[string]bool, len(tm))
	for w := range tm {
		out[Fold(w)] = true
	}
	return out
}

// Languages returns the codes of the languages the analyzer stems, in a
// fixed order: en, de, fr, es, it, nl, pt, sv, da, no, fi, ru.
func Languages() []Language {
	out := make([]Language, len(specs))
	for i, s := range specs {
		out[i] = s.code
	}
	return out
}

// lookup returns the supported language with the code, or nil.
func lookup(code Language) *language {
	for _, l := range languages() {
		if l.code == code {
			return l
		}
	}
	return nil
}

// detectSample is how many runes of a text language detection reads: the
// detector's cost grows with the text, its accuracy hardly after a few
// hundred letters.
const detectSample = 400

// minDetectLetters is the fewest letters a text needs for its language to
// be detected; shorter texts are LangNone.
const minDetectLetters = 40

// minConfidence is the detector's confidence below which a text is
// LangNone.
const minConfidence = 0.2

// otherLanguages are languages the detector may also answer, so that text
// in them is LangNone instead of being taken for a supported language.
// Cyrillic languages besides Ukrainian are left out: on short texts the
// detector often takes Russian for Bulgarian or Belarusian.
var otherLanguages = []whatlanggo.Lang{
	whatlanggo.Ukr, whatlanggo.Pol, whatlanggo.Ces, whatlanggo.Tur, whatlanggo.Ron,
	whatlanggo.Hun, whatlanggo.Hrv, whatlanggo.Slv, whatlanggo.Lit, whatlanggo.Lav,
}

// detectOptions limits the detector to the supported and the other
// languages.
var detectOptions = sync.OnceValue(func() whatlanggo.Options {
	wl := make(map[whatlanggo.Lang]bool, len(specs)+len(otherLanguages))
	for _, s := range specs {
		wl[s.detect] = true
	}
	for _, l := range otherLanguages {
		wl[l] = true
	}
	return whatlanggo.Options{Whitelist: wl}
})

// Detect returns the language of text, one of Languages, or LangNone when
// the text is short (under 40 letters), in another language, or mixed
// enough that the detector (github.com/abadojack/whatlanggo, trigram
// profiles, limited to the supported languages and otherLanguages) is
// unsure. It reads the first 400 runes.
func Detect(text string) Language {
	n, letters := 0, 0
	end := len(text)
	for i, r := range text {
		if n == detectSample {
			end = i
			break
		}
		n++
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters < minDetectLetters {
		return LangNone
	}
	info := whatlanggo.DetectWithOptions(text[:end], detectOptions())
	if info.Confidence < minConfidence {
		return LangNone
	}
	for _, l := range languages() {
		if l.detect == info.Lang {
			return l.code
		}
	}
	return LangNone
}

// stemmer turns words of one language into index terms. It is not safe for
// concurrent use; each analysis makes its own.
type stemmer struct {
	lang *language
	env  *snowballstem.Env
}

func newStemmer(l *language) *stemmer {
	return &stemmer{lang: l, env: snowballstem.NewEnv("")}
}

// term returns the index term of a folded word token, and false when the
// word is a stop word of the language. Words with digits are not stemmed
// (they are codes, not words). Elided articles are cut off first
// ("l'information" → "information").
func (s *stemmer) term(word string) (string, bool) {
	if s.lang == nil {
		return word, true
	}
	if len(s.lang.articles) > 0 {
		if i := strings.IndexByte(word, '\''); i > 0 && s.lang.articles[word[:i]] {
			word = word[i+1:]
		}
	}
	if s.lang.stop[word] {
		return "", false
	}
	if strings.ContainsFunc(word, unicode.IsDigit) {
		return word, true
	}
	s.env.SetCurrent(word)
	s.lang.stem(s.env)
	return tagged(s.lang.code, s.env.Current()), true
}

// tagged returns the index term of a stem in a language: the language code,
// a space, the stem. Tokens never contain spaces, so a tagged term never
// equals an untagged one, and stems of different languages stay apart:
// each has its own document frequency, and a query matches a document
// only through the stems of the document's language.
func tagged(code Language, stem string) string {
	return string(code) + " " + stem
}

// isStopAnywhere reports whether a folded word is a stop word of some
// supported language.
func isStopAnywhere(word string) bool {
	return slices.ContainsFunc(languages(), func(l *language) bool { return l.stop[word] })
}
