package analysis_test

import (
	"slices"
	"testing"

	"github.com/hybrid-search/hybridsearch/analysis"
)

func TestParseQueryShape(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want analysis.Shape
	}{
		{name: "empty", in: "", want: analysis.ShapeKeyword},
		{name: "keywords", in: "budget report", want: analysis.ShapeKeyword},
		{name: "four keywords", in: "quarterly budget report draft", want: analysis.ShapeKeyword},
		{name: "five words", in: "quarterly budget report draft final", want: analysis.ShapeQuestion},
		{name: "question mark", in: "budget?", want: analysis.ShapeQuestion},
		{name: "full-width question mark", in: "予算？", want: analysis.ShapeQuestion},
		{name: "english question word", in: "how budget", want: analysis.ShapeQuestion},
		{name: "question word later is not enough", in: "budget how", want: analysis.ShapeKeyword},
		{name: "german question word", in: "Warum Budget", want: analysis.ShapeQuestion},
		{name: "german was", in: "was kostet", want: analysis.ShapeQuestion},
		{name: "japanese question word", in: "なぜ予算", want: analysis.ShapeQuestion},
		{name: "japanese desu ka", in: "予算はいくらですか", want: analysis.ShapeQuestion},
		{name: "japanese keyword", in: "会議の議事録", want: analysis.ShapeKeyword},
		{name: "long japanese", in: "来年度の予算案の概要資料", want: analysis.ShapeQuestion},
		{name: "lone identifier", in: "D40", want: analysis.ShapeIdentifier},
		{name: "citation", in: "30 CFR 75.1725", want: analysis.ShapeIdentifier},
		{name: "identifier and a word", in: "PII-2024-0042 status", want: analysis.ShapeIdentifier},
		{name: "question around a citation", in: "what does 30 CFR 75.1725 require", want: analysis.ShapeIdentifier},
		{name: "identifier in a long question", in: "what is the status of the D40 form today", want: analysis.ShapeQuestion},
		{name: "identifier among keywords", in: "D40 form tax office deadline", want: analysis.ShapeQuestion},
		{name: "identifier with two keywords", in: "D40 tax form", want: analysis.ShapeKeyword},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := analysis.ParseQuery(tt.in).Shape; got != tt.want {
				t.Errorf("ParseQuery(%q).Shape = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		terms       []string
		phrases     [][]string
		identifiers []string
	}{
		{name: "empty", in: ""},
		{name: "terms without repeats", in: "the cat and THE dog", terms: []string{"the", "cat", "and", "dog"}},
		{name: "phrase", in: `report "Straße nach Rom" 2024`,
			terms:   []string{"report", "strasse", "nach", "rom", "2024"},
			phrases: [][]string{{"strasse", "nach", "rom"}}},
		{name: "two phrases and curly quotes", in: `"a b" “c d”`,
			terms: []string{"a", "b", "c", "d"}, phrases: [][]string{{"a", "b"}, {"c", "d"}}},
		{name: "german quotes", in: `„guten Tag“`, terms: []string{"guten", "tag"}, phrases: [][]string{{"guten", "tag"}}},
		{name: "japanese brackets", in: `「東京都」`, terms: []string{"東京", "京都"}, phrases: [][]string{{"東京", "京都"}}},
		{name: "unpaired quote is ignored", in: `say "hello`, terms: []string{"say", "hello"}},
		{name: "empty phrase dropped", in: `a "" b "!!"`, terms: []string{"a", "b"}},
		{name: "identifiers", in: "D40 under 30 CFR 75.1725", terms: []string{"d40", "under", "30", "cfr", "75.1725"},
			identifiers: []string{"d40", "30 cfr 75.1725", "75.1725"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := analysis.ParseQuery(tt.in)
			if got.Raw != tt.in {
				t.Errorf("ParseQuery(%q).Raw = %q", tt.in, got.Raw)
			}
			if !slices.Equal(got.Terms, tt.terms) {
				t.Errorf("ParseQuery(%q).Terms = %q, want %q", tt.in, got.Terms, tt.terms)
			}
			if !slices.EqualFunc(got.Phrases, tt.phrases, slices.Equal) {
				t.Errorf("ParseQuery(%q).Phrases = %q, want %q", tt.in, got.Phrases, tt.phrases)
			}
			if !slices.Equal(got.Identifiers, tt.identifiers) {
				t.Errorf("ParseQuery(%q).Identifiers = %q, want %q", tt.in, got.Identifiers, tt.identifiers)
			}
		})
	}
}

func TestShapeString(t *testing.T) {
	for s, want := range map[analysis.Shape]string{
		analysis.ShapeKeyword: "keyword", analysis.ShapeQuestion: "question",
		analysis.ShapeIdentifier: "identifier", 9: "unknown",
	} {
		if got := s.String(); got != want {
			t.Errorf("Shape(%d).String() = %q, want %q", s, got, want)
		}
	}
}
