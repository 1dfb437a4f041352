package analysis_test

import (
	"testing"
	"unicode/utf8"

	"github.com/hybrid-search/hybridsearch/analysis"
)

// FuzzParseQuery feeds arbitrary text to the query parser: it must never
// panic, and its terms and phrases are valid, non-empty UTF-8 drawn from
// the query's own terms.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		`"quarterly report" PII-2024-0042`, `what does 30 CFR 75.1725 require?`, `„Grüße aus Köln“ «x y»`,
		`「東京の天気」はどうですか`, `"unpaired quote`, "\xff\xfe", `a.b.c-d_e/f:g`, `""""`, `ｆｕｌｌ　ｗｉｄｔｈ？`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		p := analysis.ParseQuery(q)
		seen := map[string]bool{}
		for _, term := range p.Terms {
			if term == "" || !utf8.ValidString(term) {
				t.Fatalf("ParseQuery(%q) term %q", q, term)
			}
			if seen[term] {
				t.Fatalf("ParseQuery(%q) repeats term %q", q, term)
			}
			seen[term] = true
		}
		for _, ph := range p.Phrases {
			if len(ph) < 2 {
				t.Fatalf("ParseQuery(%q) phrase %q has fewer than two terms", q, ph)
			}
		}
	})
}
