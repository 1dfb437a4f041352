package analysis

import (
	"embed"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/abadojack/whatlanggo"
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
// are read.
type languageSpec struct {
	code     Language
	detect   whatlanggo.Lang
	stem     func(*snowballstem.Env) bool
	articles bool // whether stopwords/<code>_articles.txt exists
}

// specs lists the supported languages: those with a Snowball stemmer and
// stop-word list. Stemmers come from github.com/blevesearch/snowballstem
// (the Snowball project's algorithms compiled to Go); stop words and
// articles are the project's own files in stopwords/ (see its README).
var specs = []languageSpec{
	{"en", whatlanggo.Eng, english.Stem, false},
	{"de", whatlanggo.Deu, german.Stem, false},
	{"fr", whatlanggo.Fra, french.Stem, true},
	{"es", whatlanggo.Spa, spanish.Stem, false},
	{"it", whatlanggo.Ita, italian.Stem, true},
	{"nl", whatlanggo.Nld, dutch.Stem, false},
	{"pt", whatlanggo.Por, portuguese.Stem, false},
	{"sv", whatlanggo.Swe, swedish.Stem, false},
	{"da", whatlanggo.Dan, danish.Stem, false},
	{"no", whatlanggo.Nob, norwegian.Stem, false},
	{"fi", whatlanggo.Fin, finnish.Stem, false},
	{"ru", whatlanggo.Rus, russian.Stem, false},
}

// wordLists holds the Snowball stop-word lists and the elided articles.
//
//go:embed stopwords/*.txt
var wordLists embed.FS

// languages returns the supported languages with their lists parsed, in
// the order of specs. The tables are built once and never change.
var languages = sync.OnceValue(func() []*language {
	out := make([]*language, len(specs))
	for i, s := range specs {
		l := &language{code: s.code, detect: s.detect, stem: s.stem, stop: mustWordSet(string(s.code) + ".txt")}
		if s.articles {
			l.articles = mustWordSet(string(s.code) + "_articles.txt")
		}
		out[i] = l
	}
	return out
})

// mustWordSet reads the word list stopwords/name into a set of folded
// words. The lists are embedded, so a missing one is a build mistake.
func mustWordSet(name string) map[string]bool {
	list, err := wordLists.ReadFile("stopwords/" + name)
	if err != nil {
		panic("analysis: built-in word list: " + err.Error())
	}
	words := parseWordList(list)
	out := make(map[string]bool, len(words))
	for _, w := range words {
		out[Fold(w)] = true
	}
	return out
}

// parseWordList returns the words of a list in the Snowball format: words
// separated by white space, "|" or "#" starting a comment that runs to the
// end of the line. Words are returned as written, in order.
func parseWordList(list []byte) []string {
	var out []string
	for line := range strings.Lines(string(list)) {
		if i := strings.IndexAny(line, "#|"); i >= 0 {
			line = line[:i]
		}
		out = append(out, strings.Fields(line)...)
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
//
// whatlanggo is old (2019) but small, pure Go and without dependencies.
// It was kept over github.com/pemistahl/lingua-go after measuring both
// on 1,800 short chunks in the twelve languages (analysis/langeval):
// lingua names the right language more often (94% against 87% in its
// high-accuracy mode), but the wrong one more often too (4.7% against
// 2.8%; where unsure, Detect says none, and an unstemmed chunk is still
// found by its words, a wrongly stemmed one less so). And it embeds
// 128 MB of models in any binary that imports it, holds 483 MiB of them
// in memory (21 MiB in its low-accuracy mode, which is wrong on 9%), and
// takes 8 (4) times the CPU time per chunk.
func Detect(text string) Language {
	sample, ok := DetectSample(text)
	if !ok {
		return LangNone
	}
	info := whatlanggo.DetectWithOptions(sample, detectOptions())
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

// DetectSample returns the part of text that Detect reads (its first 400
// runes) and whether that part has the 40 letters Detect needs. Detectors
// measured against Detect (analysis/langeval) use it to work under the
// same rules.
func DetectSample(text string) (string, bool) {
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
	return text[:end], letters >= minDetectLetters
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
