package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// scanTexts cover the analyzer's corners: ASCII prose, German with ß and
// umlauts, Japanese and Korean runs, full-width letters, ligatures, format
// characters, NFKC expansions that contain spaces (´ → space + accent),
// identifiers, numbers and apostrophes.
var scanTexts = []string{
	"The operator of each underground coal mine shall maintain the conveyor belt, as required by 30 CFR 75.1725, and record every inspection in the D40 log.",
	"Die Straße wird gesperrt. Die Strasse ist nass! Öffnungszeiten: Mo–Fr 8–17 Uhr; Größe 1,5 m² (ca.) — geht´s?",
	"東京都の天気は晴れです。明日は雨が降るでしょう。会議メモ 2024-05: Kubernetes のアップグレード手順",
	"한국어 텍스트와 English mixed, 서울특별시 2024년",
	"ＰＤＦ ﬁle ﬂow Ｄ４０ and ㍿ and ①②③ with soft\u00adhyphen and zero\u200bwidth and joiner\u200dtext",
	"Release v2.3.1 fixes PII-2024-0042 (see RFC 5323, ISO-9001, § 823 BGB); don't re-run it isn't 1,000.50 USD.",
	"e.g. U.S.A. foo_bar foo.bar 3.14 can't won’t naïve café résumé coöperate",
	"   leading and trailing spaces\t\ttabs\nnewlines\r\n   ",
	"漢\u200d字 と ｶﾀｶﾅ half width and 　ideographic space",
	"",
}

// markSeq is the sequence of query-term tokens in a text, with "·" for
// each run of other tokens: what phrase matching sees.
func markSeq(marks []mark) []string {
	var out []string
	for _, m := range marks {
		switch m.kind {
		case markTerm:
			out = append(out, fmt.Sprintf("%s@%d-%d", m.term, m.start, m.end))
		default:
			if len(out) == 0 || out[len(out)-1] != "·" {
				out = append(out, "·")
			}
		}
	}
	return out
}

// tokenSeq is markSeq computed from analysis.Tokens of the whole text.
func tokenSeq(text string, terms map[string]bool) []string {
	var out []string
	for _, t := range analysis.Tokens(text) {
		if terms[t.Text] {
			out = append(out, fmt.Sprintf("%s@%d-%d", t.Text, t.Start, t.End))
		} else if len(out) == 0 || out[len(out)-1] != "·" {
			out = append(out, "·")
		}
	}
	return out
}

// TestScanMatchesTokens checks the matcher's shortcut against the
// analyzer: for random queries made of each text's own terms, the terms it
// finds, their spans and the gaps between them are what analysis.Tokens
// of the whole text gives.
func TestScanMatchesTokens(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for ti, text := range scanTexts {
		all := analysis.Terms(text)
		for round := range 20 {
			var picked []string
			for _, term := range all {
				if rng.IntN(3) == 0 {
					picked = append(picked, term)
				}
			}
			if round == 0 {
				picked = all
			}
			m := newMatcher(analysis.ParseQuery(strings.Join(picked, " ")))
			got := markSeq(m.scan(text, false, nil))
			want := tokenSeq(text, m.terms)
			if !slices.Equal(got, want) {
				t.Errorf("text %d, query %q:\nscan   %v\nTokens %v", ti, picked, got, want)
			}
		}
	}
}

func TestHighlights(t *testing.T) {
	tests := []struct {
		name  string
		query string
		text  string
		want  []string // highlighted substrings, in order
	}{
		{"terms", "conveyor belt", "Keep the Conveyor running; the belt is new.", []string{"Conveyor", "belt"}},
		{"phrase as one range", `"conveyor belt" inspection`, "The conveyor belt needs inspection.", []string{"conveyor belt", "inspection"}},
		{"identifier as one range", "PII-2024-0042", "Case PII-2024-0042 is closed.", []string{"PII-2024-0042"}},
		{"multi-token identifier", "30 CFR 75.1725", "as required by 30 CFR 75.1725, and", []string{"30 CFR 75.1725"}},
		{"typos and word forms", "kuberntes upgrade", "Kubernetes upgrades are planned.", []string{"Kubernetes", "upgrades"}},
		{"swapped letters", "recieve", "You will receive it.", []string{"receive"}},
		{"eszett folding", "Strasse", "Die Straße ist nass.", []string{"Straße"}},
		{"cjk bigrams merge", "東京都", "今日の東京都は晴れ", []string{"東京都"}},
		{"short words need exact match", "form", "from the form", []string{"form"}},
		{"nothing", "zebra", "no match here", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMatcher(analysis.ParseQuery(tt.query))
			runes := []rune(tt.text)
			var got []string
			for _, r := range m.highlights(tt.text) {
				got = append(got, string(runes[r[0]:r[1]]))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("highlights(%q) for %q = %q, want %q", tt.text, tt.query, got, tt.want)
			}
		})
	}
}

func TestChunkMatch(t *testing.T) {
	point := func(title, text string, headings ...string) hs.Point {
		return hs.Point{File: hs.FileMeta{Title: title}, Chunk: hs.Chunk{Text: text, Headings: headings}}
	}
	tests := []struct {
		name  string
		query string
		p     hs.Point
		want  Match
	}{
		{"identifier in text", "D40 form", point("Forms", "Fill in form D40."), Match{Identifiers: 1}},
		{"identifier in title", "D40", point("D40 guide", "How to fill it in."), Match{Identifiers: 1}},
		{"identifier in heading", "D40", point("Guide", "text", "Form D40"), Match{Identifiers: 1}},
		{"longer code is not a match", "D40", point("x", "Form D400 only."), Match{}},
		{"part of a code is not a match", "PII-2024", point("x", "PII-2024-0042"), Match{}},
		{"two identifiers", "D40 v2.3.1", point("x", "D40 needs v2.3.1"), Match{Identifiers: 2}},
		{"non-ASCII text", "D40", point("x", "Das Formular D40 für Größe"), Match{Identifiers: 1}},
		{"full-width identifier", "D40", point("x", "Formular Ｄ４０"), Match{Identifiers: 1}},
		{"phrase", `"machine learning"`, point("x", "Machine learning is fun."), Match{Phrases: 1}},
		{"phrase words apart", `"machine learning"`, point("x", "learning about the machine"), Match{}},
		{"phrase across punctuation only", `"machine learning"`, point("x", "machine — learning"), Match{Phrases: 1}},
		{"japanese phrase", `「東京都」`, point("x", "今日の東京都は"), Match{Phrases: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMatcher(analysis.ParseQuery(tt.query))
			if got := m.chunkMatch(tt.p); got != tt.want {
				t.Errorf("chunkMatch(%q) for %q = %+v, want %+v", tt.p.Chunk.Text, tt.query, got, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		max  int
		want int
	}{
		{"kubernetes", "kuberntes", 2, 1},
		{"receive", "recieve", 2, 1},
		{"abc", "abc", 1, 0},
		{"abcdef", "uvwxyz", 2, 3}, // stops past max
		{"", "ab", 2, 2},
	}
	for _, tt := range tests {
		if got := editDistance([]rune(tt.a), []rune(tt.b), tt.max); got != tt.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.max, got, tt.want)
		}
	}
}

// TestCheapFold: when cheapFold claims to be exact, it is analysis.Fold.
func TestCheapFold(t *testing.T) {
	texts := append(slices.Clone(scanTexts), "STRASSE Straße ẞ it’s İstanbul ΣΊΣΥΦΟΣ", "plain ascii D40")
	exact := 0
	for _, text := range texts {
		got, ok := cheapFold(text)
		if !ok {
			continue
		}
		exact++
		if want := analysis.Fold(text); got != want {
			t.Errorf("cheapFold(%q) = %q, want %q", text, got, want)
		}
	}
	if exact < 5 {
		t.Errorf("cheapFold was exact for only %d texts", exact)
	}
}
