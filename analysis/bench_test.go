package analysis_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hybrid-search/hybridsearch/analysis"
)

// chunk1000 returns about 1000 runes of English prose.
func chunk1000(tb testing.TB) string {
	tb.Helper()
	const para = "The operator of each underground coal mine shall maintain the conveyor belt " +
		"in safe operating condition, as required by 30 CFR 75.1725, and record every " +
		"inspection in the D40 log before the end of the shift. "
	var b strings.Builder
	for utf8.RuneCountInString(b.String()) < 1000 {
		b.WriteString(para)
	}
	return string([]rune(b.String())[:1000])
}

func BenchmarkTokens(b *testing.B) {
	text := chunk1000(b)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		analysis.Tokens(text)
	}
}

func BenchmarkTokensJapanese(b *testing.B) {
	text := string([]rune(strings.Repeat("東京都の天気は晴れです。明日は雨が降るでしょう。", 50))[:1000])
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		analysis.Tokens(text)
	}
}

func BenchmarkBM25Doc(b *testing.B) {
	terms := analysis.Terms(chunk1000(b))
	for b.Loop() {
		analysis.BM25Doc(terms)
	}
}

func BenchmarkTrigrams(b *testing.B) {
	text := chunk1000(b)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		analysis.Trigrams(text)
	}
}
