package analysis_test

import (
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/hybrid-search/hybridsearch/analysis"
)

// tok is a compact token for tables: text, original span and kind.
type tok struct {
	text       string
	start, end int
	kind       analysis.Kind
}

const (
	word = analysis.KindWord
	num  = analysis.KindNumber
	cjk  = analysis.KindCJK
)

func TestTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []tok
	}{
		{name: "empty", in: "", want: nil},
		{name: "space and punctuation only", in: " \t\n... -- !? ", want: nil},
		{name: "english", in: "Hello, World! It's 2024.", want: []tok{
			{"hello", 0, 5, word}, {"world", 7, 12, word}, {"it's", 14, 18, word}, {"2024", 19, 23, num},
		}},
		{name: "german sharp s folds to ss", in: "Straße STRASSE ẞ", want: []tok{
			{"strasse", 0, 6, word}, {"strasse", 7, 14, word}, {"ss", 15, 16, word},
		}},
		{name: "umlauts are kept", in: "Müller Größe", want: []tok{
			{"müller", 0, 6, word}, {"grösse", 7, 12, word},
		}},
		{name: "full-width letters and digits", in: "ＡＢＣ１２３", want: []tok{
			{"abc123", 0, 6, word},
		}},
		{name: "ligature maps to its one rune", in: "ﬁnance", want: []tok{
			{"finance", 0, 6, word},
		}},
		{name: "combining accent composes", in: "e\u0301cole", want: []tok{
			{"école", 0, 6, word},
		}},
		{name: "typographic apostrophe", in: "don’t", want: []tok{
			{"don't", 0, 5, word},
		}},
		{name: "soft hyphen is dropped", in: "Straf\u00adrecht", want: []tok{
			{"strafrecht", 0, 11, word},
		}},
		{name: "zero-width space separates", in: "ab\u200bcd", want: []tok{
			{"ab", 0, 2, word}, {"cd", 3, 5, word},
		}},
		{name: "dotted and underscored words stay whole", in: "v2.3.1 snake_case 3.14", want: []tok{
			{"v2.3.1", 0, 6, word}, {"snake_case", 7, 17, word}, {"3.14", 18, 22, num},
		}},
		{name: "hyphen splits", in: "PII-2024-0042", want: []tok{
			{"pii", 0, 3, word}, {"2024", 4, 8, num}, {"0042", 9, 13, num},
		}},
		{name: "symbols and emoji are dropped", in: "a + b = 😀 €", want: []tok{
			{"a", 0, 1, word}, {"b", 4, 5, word},
		}},
		{name: "japanese bigrams", in: "東京都の天気", want: []tok{
			{"東京", 0, 2, cjk}, {"京都", 1, 3, cjk}, {"都の", 2, 4, cjk}, {"の天", 3, 5, cjk}, {"天気", 4, 6, cjk},
		}},
		{name: "cjk runs end at punctuation", in: "晴れ。雨", want: []tok{
			{"晴れ", 0, 2, cjk}, {"雨", 3, 4, cjk},
		}},
		{name: "lone cjk char is a unigram", in: "日 本", want: []tok{
			{"日", 0, 1, cjk}, {"本", 2, 3, cjk},
		}},
		{name: "katakana with prolonged sound mark", in: "サーバー", want: []tok{
			{"サー", 0, 2, cjk}, {"ーバ", 1, 3, cjk}, {"バー", 2, 4, cjk},
		}},
		{name: "half-width katakana", in: "ｻｰﾊﾞｰ", want: []tok{
			{"サー", 0, 2, cjk}, {"ーバ", 1, 4, cjk}, {"バー", 2, 5, cjk},
		}},
		{name: "hangul", in: "한국어", want: []tok{
			{"한국", 0, 2, cjk}, {"국어", 1, 3, cjk},
		}},
		{name: "digits next to han", in: "2024年", want: []tok{
			{"2024", 0, 4, num}, {"年", 4, 5, cjk},
		}},
		{name: "latin inside japanese", in: "Goの勉強", want: []tok{
			{"go", 0, 2, word}, {"の勉", 2, 4, cjk}, {"勉強", 3, 5, cjk},
		}},
		{name: "nfkc expansion to cjk", in: "㍿", want: []tok{
			{"株式", 0, 1, cjk}, {"式会", 0, 1, cjk}, {"会社", 0, 1, cjk},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []tok
			for _, tk := range analysis.Tokens(tt.in) {
				got = append(got, tok{tk.Text, tk.Start, tk.End, tk.Kind})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tokens(%q) =\n %v\nwant\n %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestTokensOffsetsHighlight(t *testing.T) {
	in := "Die Straße führt nach 東京. ﬁne"
	r := []rune(in)
	want := []string{"Die", "Straße", "führt", "nach", "東京", "ﬁne"}
	var got []string
	for _, tk := range analysis.Tokens(in) {
		got = append(got, string(r[tk.Start:tk.End]))
	}
	if !slices.Equal(got, want) {
		t.Errorf("highlighted spans = %q, want %q", got, want)
	}
}

func TestTerms(t *testing.T) {
	got := analysis.Terms("The the THE cat")
	want := []string{"the", "the", "the", "cat"}
	if !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
	if got := analysis.Terms(""); len(got) != 0 {
		t.Errorf("Terms(\"\") = %q, want none", got)
	}
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Straße", "strasse"},
		{"ＡＢＣ", "abc"},
		{"don’t", "don't"},
		{"a\u00adb", "ab"},
	}
	for _, tt := range tests {
		if got := analysis.Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[analysis.Kind]string{word: "word", num: "number", cjk: "cjk", 0: "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

// checkTokens verifies the invariants every Tokens result must hold.
func checkTokens(t *testing.T, in string) {
	t.Helper()
	n := utf8.RuneCountInString(in)
	prev := 0
	for _, tk := range analysis.Tokens(in) {
		if tk.Text == "" || !utf8.ValidString(tk.Text) {
			t.Fatalf("Tokens(%q): bad text %q", in, tk.Text)
		}
		if tk.Start < 0 || tk.End > n || tk.Start >= tk.End {
			t.Fatalf("Tokens(%q): bad span [%d,%d) of %d runes", in, tk.Start, tk.End, n)
		}
		if tk.Start < prev {
			t.Fatalf("Tokens(%q): span [%d,%d) before previous start %d", in, tk.Start, tk.End, prev)
		}
		prev = tk.Start
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"", "Hello, World!", "Straße", "東京都の天気", "ﬁ㍿", "e\u0301", "\xff\xfe", "a\u0301\u0301\u0301b", "ｻｰﾊﾞｰ 한국어 2024年"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkTokens(t, s)
		analysis.Identifiers(s)
		analysis.ParseQuery(s)
		analysis.Trigrams(s)
	})
}
