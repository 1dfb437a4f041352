package analysis

import (
	"slices"
	"strings"
	"unicode"
)

// Shape is what a query looks like, for picking fusion weights.
type Shape uint8

// Query shapes.
const (
	ShapeKeyword    Shape = iota // a few words
	ShapeQuestion                // a natural-language question
	ShapeIdentifier              // mostly identifiers: "D40", "30 CFR 75.1725"
)

// String returns the shape's name.
func (s Shape) String() string {
	switch s {
	case ShapeKeyword:
		return "keyword"
	case ShapeQuestion:
		return "question"
	case ShapeIdentifier:
		return "identifier"
	}
	return "unknown"
}

// Query is a parsed search query.
type Query struct {
	Raw   string
	Terms []string // analysed terms of the whole query, without repeats, in order
	// Words are the query's distinct terms with the index terms that match
	// them, in order (see QueryWords).
	Words []Word
	// Phrases are the analysed terms of each "quoted phrase" of two or
	// more terms; a quoted single word is an ordinary term.
	Phrases     [][]string
	Identifiers []string // as Identifiers returns them
	Shape       Shape
}

// Word is one distinct term of a query and the index terms that match it.
type Word struct {
	Text string // the folded token, as Terms has it
	Kind Kind
	// Count is how often the word occurs in the query: a word said twice
	// matters more ("information retrieval ... retrieval of information").
	Count int
	// Terms are the index terms that match the word in a chunk, whatever
	// the chunk's language: for a word of letters, its stem in every
	// supported language of which it is not a stop word ("en retriev",
	// "de retrieval", ...) and the word itself for chunks in no supported
	// language, unless it is a stop word of any language; for numbers,
	// words with digits and CJK bigrams, the term itself. A chunk is in one
	// language, so it matches at most one of a word's terms (barring a
	// hash collision).
	Terms []string
	// Stop reports whether the word is a stop word of some supported
	// language ("the", "die", "was"): such a word only counts where its
	// language does not drop it.
	Stop bool
}

// QueryWords returns the words of a query text (see Word).
func QueryWords(text string) []Word {
	var out []Word
	seen := make(map[string]int)
	stemmers := make([]*stemmer, 0, len(specs))
	for _, l := range languages() {
		stemmers = append(stemmers, newStemmer(l))
	}
	for _, t := range Tokens(text) {
		if i, ok := seen[t.Text]; ok {
			out[i].Count++
			continue
		}
		seen[t.Text] = len(out)
		w := Word{Text: t.Text, Kind: t.Kind, Count: 1}
		if t.Kind != KindWord || strings.ContainsFunc(t.Text, unicode.IsDigit) {
			w.Terms = []string{t.Text}
			out = append(out, w)
			continue
		}
		w.Stop = isStopAnywhere(t.Text)
		if !w.Stop {
			w.Terms = append(w.Terms, t.Text)
		}
		for _, st := range stemmers {
			if term, ok := st.term(t.Text); ok && !slices.Contains(w.Terms, term) {
				w.Terms = append(w.Terms, term)
			}
		}
		out = append(out, w)
	}
	return out
}

// quotePairs maps opening to closing quote characters. NFKC already turns a
// full-width ＂ into ".
var quotePairs = map[rune]rune{'"': '"', '“': '”', '„': '“', '«': '»', '「': '」'}

// ParseQuery parses a search query. Phrases are the text between a pair of
// double quotes ("…", “…”, „…“, «…», 「…」) when it holds two or more
// terms; an unpaired quote is ignored.
// Terms are the analysed terms of the whole query, phrases included.
//
// Shape is, in this order of precedence:
//   - ShapeIdentifier when the query has identifiers and the terms inside
//     them are at least half of its word and number terms ("D40",
//     "PII-2024-0042 status", "what does 30 CFR 75.1725 require");
//   - ShapeQuestion when it contains "?" (also "？"), or its first word is a
//     question word (English what, how, why, when, where, who, which,
//     can, does, is, …; German was, wie, warum, wann, wo, wer, welche, …),
//     or it contains a Japanese question word (なぜ, どう, 何, いつ, どこ, 誰,
//     どれ, どの, どんな, ですか, ますか), or it has five or more words,
//     counting a CJK run as one word per two characters;
//   - ShapeKeyword otherwise.
func ParseQuery(q string) Query {
	query := Query{Raw: q, Identifiers: Identifiers(q), Words: QueryWords(q)}
	toks := Tokens(q)
	for _, t := range toks {
		if !slices.Contains(query.Terms, t.Text) {
			query.Terms = append(query.Terms, t.Text)
		}
	}
	for _, p := range phrases(q) {
		if terms := Terms(p); len(terms) > 1 {
			query.Phrases = append(query.Phrases, terms)
		}
	}
	query.Shape = shape(q, toks)
	return query
}

// phrases returns the texts between paired quotes in q.
func phrases(q string) []string {
	var out []string
	r := []rune(q)
	for i := 0; i < len(r); i++ {
		closing, ok := quotePairs[r[i]]
		if !ok {
			continue
		}
		for j := i + 1; j < len(r); j++ {
			if r[j] == closing {
				out = append(out, string(r[i+1:j]))
				i = j
				break
			}
		}
	}
	return out
}

var questionWords = []string{
	// English
	"what", "how", "why", "when", "where", "who", "whom", "whose", "which",
	"can", "could", "should", "would", "will", "is", "are", "does", "do", "did",
	"explain", "describe",
	// German
	"was", "wie", "warum", "wieso", "weshalb", "wann", "wo", "wer", "wen", "wem",
	"wessen", "welche", "welcher", "welches", "welchen", "woher", "wohin",
	"womit", "wofür", "worum", "kann", "können", "gibt", "ist", "sind", "erkläre",
}

var japaneseQuestionWords = []string{
	"なぜ", "どう", "何", "なに", "いつ", "どこ", "誰", "だれ", "どれ", "どの", "どんな",
	"ですか", "ますか",
}

func shape(q string, toks []Token) Shape {
	words, cjk := 0, 0
	for _, t := range toks {
		if t.Kind == KindCJK {
			continue
		}
		words++
	}
	folded := Fold(q)
	for _, r := range folded {
		if isCJK(r) {
			cjk++
		}
	}
	if ms := findIdentifiers(q); len(ms) > 0 {
		covered := 0
		for _, t := range toks {
			if t.Kind != KindCJK && insideAny(t, ms) {
				covered++
			}
		}
		if covered > 0 && 2*covered >= words {
			return ShapeIdentifier
		}
	}
	switch {
	case strings.ContainsRune(folded, '?'):
		return ShapeQuestion
	case words > 0 && firstWordIsQuestion(toks):
		return ShapeQuestion
	case containsAny(folded, japaneseQuestionWords):
		return ShapeQuestion
	case words+cjk/2 >= 5:
		return ShapeQuestion
	}
	return ShapeKeyword
}

func firstWordIsQuestion(toks []Token) bool {
	for _, t := range toks {
		if t.Kind != KindCJK {
			return slices.Contains(questionWords, t.Text)
		}
	}
	return false
}

func insideAny(t Token, ms []idMatch) bool {
	for _, m := range ms {
		if m.start <= t.Start && t.End <= m.end {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
