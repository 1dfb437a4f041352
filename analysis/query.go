package analysis

import (
	"slices"
	"strings"
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
	Raw         string
	Terms       []string   // analysed terms of the whole query, without repeats, in order
	Phrases     [][]string // analysed terms of each "quoted phrase"
	Identifiers []string   // as Identifiers returns them
	Shape       Shape
}

// quotePairs maps opening to closing quote characters. NFKC already turns a
// full-width ＂ into ".
var quotePairs = map[rune]rune{'"': '"', '“': '”', '„': '“', '«': '»', '「': '」'}

// ParseQuery parses a search query. Phrases are the text between a pair of
// double quotes ("…", “…”, „…“, «…», 「…」); an unpaired quote is ignored.
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
	query := Query{Raw: q, Identifiers: Identifiers(q)}
	toks := Tokens(q)
	for _, t := range toks {
		if !slices.Contains(query.Terms, t.Text) {
			query.Terms = append(query.Terms, t.Text)
		}
	}
	for _, p := range phrases(q) {
		if terms := Terms(p); len(terms) > 0 {
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
