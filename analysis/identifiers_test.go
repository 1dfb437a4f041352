package analysis_test

import (
	"slices"
	"testing"

	"github.com/hybrid-search/hybridsearch/analysis"
)

func TestIdentifiers(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{name: "none", in: "plain words and 2024 numbers", want: nil},
		{name: "empty", in: "", want: nil},
		{name: "letter digit", in: "Form D40 is due", want: []string{"d40"}},
		{name: "dashed code", in: "see PII-2024-0042.", want: []string{"pii-2024-0042"}},
		{name: "version", in: "upgrade to v2.3.1, then", want: []string{"v2.3.1"}},
		{name: "standard with dash", in: "ISO-9001 and RFC5323", want: []string{"iso-9001", "rfc5323"}},
		{name: "cfr citation", in: "under 30 CFR 75.1725 the operator", want: []string{"30 cfr 75.1725", "75.1725"}},
		{name: "cfr across a line break", in: "30 CFR\n75.1725", want: []string{"30 cfr 75.1725", "75.1725"}},
		{name: "usc with dots", in: "42 U.S.C. 1983 claims", want: []string{"42 u.s.c. 1983"}},
		{name: "acronym number", in: "certified to ISO 9001 and RFC 5323", want: []string{"iso 9001", "rfc 5323"}},
		{name: "german statute", in: "nach § 823 BGB und § 3a UWG", want: []string{"§ 823 bgb", "§ 3a uwg", "3a"}},
		{name: "statute needs an abbreviation", in: "§ 823 Absatz", want: nil},
		{name: "capitalised words are not acts", in: "PAGE 3 of THE 2 reports", want: nil},
		{name: "lowercase citation keeps its section", in: "30 cfr 75.1725", want: []string{"75.1725"}},
		{name: "dates and dotted numbers", in: "on 2024-01-15 read 1.2.3", want: []string{"2024-01-15", "1.2.3"}},
		{name: "ranges and amounts are not codes", in: "pages 2-3 cost 1,000.50", want: nil},
		{name: "ordinals are not codes", in: "the 21st and 2nd and 4th", want: nil},
		{name: "mixed ordinal-like code", in: "unit 4th2", want: []string{"4th2"}},
		{name: "full-width normalised", in: "ＰＩＩ－２０２４－００４２", want: []string{"pii-2024-0042"}},
		{name: "repeats removed", in: "D40, d40 and D40", want: []string{"d40"}},
		{name: "cjk is not an identifier", in: "第3章", want: nil},
		{name: "too long", in: "a1bcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnop", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := analysis.Identifiers(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Identifiers(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestContainsIdentifier(t *testing.T) {
	tests := []struct {
		name  string
		chunk string
		id    string
		want  bool
	}{
		{name: "verbatim", chunk: "Fill in Form D40.", id: "d40", want: true},
		{name: "case and width", chunk: "Ｆｏｒｍ Ｄ４０", id: "D40", want: true},
		{name: "longer code", chunk: "Form D400", id: "d40", want: false},
		{name: "inside a word", chunk: "AD40", id: "d40", want: false},
		{name: "compound with a word", chunk: "das D40-Formular", id: "d40", want: true},
		{name: "section at end of sentence", chunk: "see 30 CFR 75.1725.", id: "75.1725", want: true},
		{name: "longer section", chunk: "see 75.1725.3", id: "75.1725", want: false},
		{name: "longer number before", chunk: "see 1975.1725", id: "75.1725", want: false},
		{name: "dotted number before", chunk: "see 3.75.1725", id: "75.1725", want: false},
		{name: "shorter code in longer", chunk: "PII-2024-0042", id: "pii-2024", want: false},
		{name: "code in parentheses", chunk: "(PII-2024-0042)", id: "pii-2024-0042", want: true},
		{name: "multi-token with other spacing", chunk: "under 30  CFR\n 75.1725 we", id: "30 cfr 75.1725", want: true},
		{name: "multi-token missing", chunk: "under 30 CFR 75.1726", id: "30 cfr 75.1725", want: false},
		{name: "second occurrence matches", chunk: "D400 and D40", id: "d40", want: true},
		{name: "sharp s", chunk: "Straße 5a", id: "STRASSE 5A", want: true},
		{name: "empty id", chunk: "anything", id: "", want: false},
		{name: "blank id", chunk: "anything", id: "  ", want: false},
		{name: "empty chunk", chunk: "", id: "d40", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := analysis.ContainsIdentifier(tt.chunk, tt.id); got != tt.want {
				t.Errorf("ContainsIdentifier(%q, %q) = %v, want %v", tt.chunk, tt.id, got, tt.want)
			}
		})
	}
}

// Every identifier found in a text must be contained in it.
func TestIdentifiersContainedInSource(t *testing.T) {
	texts := []string{
		"under 30 CFR 75.1725 the operator of PII-2024-0042 uses v2.3.1",
		"ISO 9001, RFC5323 und § 823 BGB am 2024-01-15",
		"ＰＩＩ－２０２４－００４２ and D40.",
	}
	for _, text := range texts {
		for _, id := range analysis.Identifiers(text) {
			if !analysis.ContainsIdentifier(text, id) {
				t.Errorf("ContainsIdentifier(%q, %q) = false for an identifier of that text", text, id)
			}
		}
	}
}
