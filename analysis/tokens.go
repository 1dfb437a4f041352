package analysis

import (
	"unicode"

	"github.com/rivo/uniseg"
)

// Kind tells what sort of text a Token is.
type Kind uint8

// Token kinds.
const (
	KindWord   Kind = iota + 1 // letters, possibly mixed with digits: "straße" → "strasse", "d40"
	KindNumber                 // digits with optional separators: "2024", "75.1725"
	KindCJK                    // a Han/Kana/Hangul bigram, or a lone CJK character
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case KindWord:
		return "word"
	case KindNumber:
		return "number"
	case KindCJK:
		return "cjk"
	}
	return "unknown"
}

// Token is one analysed term of a text.
type Token struct {
	// Text is the normalised term (NFKC, lowercase, ß folded to "ss").
	Text string
	// Start and End are rune offsets [Start, End) in the original,
	// un-normalised text: []rune(text)[Start:End] is what to highlight.
	// When NFKC expanded one original rune into several (a ligature, "㍿"),
	// every token made from them spans that whole original rune.
	Start, End int
	Kind       Kind
}

// Tokens cuts text into terms: NFKC, lowercase, Unicode word boundaries
// (UAX #29), punctuation and symbols dropped, numbers kept. Runs of Han,
// Hiragana, Katakana and Hangul become overlapping character bigrams
// ("東京都" → "東京", "京都"); a lone CJK character is a unigram. A CJK run
// ends at any other character, so bigrams never span punctuation or spaces.
func Tokens(text string) []Token {
	nt := normalize(text, true)
	tk := tokenizer{nt: nt, out: make([]Token, 0, len(nt.runes)/5+1)}
	s := string(nt.runes)
	pos, state := 0, -1
	for len(s) > 0 {
		var word string
		word, s, state = uniseg.FirstWordInString(s, state)
		n := 0
		for range word {
			n++
		}
		tk.segment(pos, pos+n)
		pos += n
	}
	tk.flushCJK()
	return tk.out
}

// Terms returns the texts of Tokens(text), in order, with repeats: the input
// of BM25Doc.
func Terms(text string) []string {
	toks := Tokens(text)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Text
	}
	return out
}

type tokenizer struct {
	nt  normText
	out []Token
	cjk []int // indexes into nt.runes of the pending CJK run
}

// segment handles one UAX #29 word segment, runes [start, end) of nt.
// It may mix CJK and other runes; each maximal part is handled on its own.
func (tk *tokenizer) segment(start, end int) {
	r := tk.nt.runes
	for i := start; i < end; {
		if isCJK(r[i]) {
			tk.cjk = append(tk.cjk, i)
			i++
			continue
		}
		tk.flushCJK()
		j := i + 1
		for j < end && !isCJK(r[j]) {
			j++
		}
		tk.word(i, j)
		i = j
	}
}

// word emits runes [start, end) as a token if they hold a letter or number.
func (tk *tokenizer) word(start, end int) {
	r := tk.nt.runes
	letters, numbers := false, false
	for _, c := range r[start:end] {
		switch {
		case unicode.IsLetter(c):
			letters = true
		case unicode.IsNumber(c):
			numbers = true
		}
	}
	if !letters && !numbers {
		return
	}
	kind := KindWord
	if !letters {
		kind = KindNumber
	}
	tk.emit(start, end, kind)
}

func (tk *tokenizer) flushCJK() {
	run := tk.cjk
	switch len(run) {
	case 0:
		return
	case 1:
		tk.emit(run[0], run[0]+1, KindCJK)
	default:
		for k := 0; k+1 < len(run); k++ {
			tk.emit(run[k], run[k+1]+1, KindCJK)
		}
	}
	tk.cjk = tk.cjk[:0]
}

func (tk *tokenizer) emit(start, end int, kind Kind) {
	tk.out = append(tk.out, Token{
		Text:  string(tk.nt.runes[start:end]),
		Start: tk.nt.from[start],
		End:   tk.nt.to[end-1],
		Kind:  kind,
	})
}
