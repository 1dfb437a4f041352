package chunk_test

import (
	"testing"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
)

// FuzzChunk checks that Chunk never panics and keeps every promise about
// offsets, coverage, grapheme clusters, pages and sizes, for any text. The
// seed corpus runs as a normal test.
func FuzzChunk(f *testing.F) {
	seeds := []struct {
		body       string
		size, over int
		pages      bool
	}{
		{"", 0, 0, false},
		{"# Title\n\nSome text. More text!\n\nAnother paragraph?", 20, 5, false},
		{"東京都の天気は晴れです。明日は雨が降るでしょう。", 8, 2, false},
		{"Straße\r\n\r\n## Größe\r\nÄrger", 10, 3, true},
		{"```\n# code\n\n```\nafter", 6, 1, false},
		{"🇩🇪🇯🇵👨\u200d👩\u200d👧e\u0301\u0302 a\u0301", 3, 1, true},
		{"Title\n===\n\ntext\n---\n", 7, 0, false},
		{"a\fb\fc", 2, 1, true},
		{"\xff\xfe invalid \xc3", 5, 1, false},
		{" \u0301 x \u200b y", 4, 1, true},
	}
	for _, s := range seeds {
		f.Add(s.body, s.size, s.over, s.pages)
	}
	f.Fuzz(func(t *testing.T, body string, size, overlap int, paged bool) {
		if !utf8.ValidString(body) {
			body = string([]rune(body)) // Text.Body is valid UTF-8
		}
		c := chunk.Chunker{Size: size % 300, Overlap: overlap % 300}
		text := hs.Text{Body: body}
		if paged {
			text.Pages = thirds(utf8.RuneCountInString(body))
		}
		checkChunks(t, c, 3, text, c.Chunk(3, text))
	})
}

// thirds cuts n runes into three pages.
func thirds(n int) []hs.Page {
	a, b := n/3, 2*n/3
	return []hs.Page{{Number: 1, Start: 0, End: a}, {Number: 2, Start: a, End: b}, {Number: 3, Start: b, End: n}}
}
