package chunk_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
)

// graphemeStarts returns, for each rune offset of s (and len), whether a
// grapheme cluster starts there.
func graphemeStarts(s string) []bool {
	n := utf8.RuneCountInString(s)
	out := make([]bool, n+1)
	out[0], out[n] = true, true
	pos, state := 0, -1
	for len(s) > 0 {
		var c string
		c, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		pos += utf8.RuneCountInString(c)
		out[pos] = true
	}
	return out
}

// longestCluster returns the length in runes of the longest grapheme
// cluster of s.
func longestCluster(s string) int {
	longest, state := 0, -1
	for len(s) > 0 {
		var c string
		c, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		longest = max(longest, utf8.RuneCountInString(c))
	}
	return longest
}

// checkChunks verifies every promise Chunk makes about its result.
func checkChunks(t *testing.T, c chunk.Chunker, file hs.FileID, text hs.Text, chunks []hs.Chunk) {
	t.Helper()
	body := []rune(text.Body)
	size := c.Size
	if size <= 0 {
		size = chunk.DefaultSize
	}
	gb := graphemeStarts(text.Body)
	// Page boundaries inside a grapheme cluster move to its start.
	pages := make([]hs.Page, len(text.Pages))
	for i, pg := range text.Pages {
		for pg.Start > 0 && pg.Start < len(body) && !gb[pg.Start] {
			pg.Start--
		}
		for pg.End > 0 && pg.End < len(body) && !gb[pg.End] {
			pg.End--
		}
		pages[i] = pg
	}
	covered := make([]bool, len(body))
	prevStart, prevEnd := 0, 0
	for i, ch := range chunks {
		if ch.No != i || ch.FileID != file {
			t.Fatalf("chunk %d: No = %d, FileID = %d, want %d and %d", i, ch.No, ch.FileID, i, file)
		}
		if ch.Start < 0 || ch.End > len(body) || ch.Start >= ch.End {
			t.Fatalf("chunk %d: bad span [%d,%d) of %d runes", i, ch.Start, ch.End, len(body))
		}
		if got := string(body[ch.Start:ch.End]); got != ch.Text {
			t.Fatalf("chunk %d: body[%d:%d] = %q, Text = %q", i, ch.Start, ch.End, got, ch.Text)
		}
		if !utf8.ValidString(ch.Text) && utf8.ValidString(text.Body) {
			t.Fatalf("chunk %d: invalid UTF-8 %q", i, ch.Text)
		}
		if !gb[ch.Start] || !gb[ch.End] {
			t.Fatalf("chunk %d: span [%d,%d) cuts a grapheme cluster", i, ch.Start, ch.End)
		}
		r := []rune(ch.Text)
		if unicode.IsSpace(r[0]) && gb[ch.Start+1] || unicode.IsSpace(r[len(r)-1]) && gb[ch.End-1] {
			t.Fatalf("chunk %d: %q starts or ends with whitespace", i, ch.Text)
		}
		if n := ch.End - ch.Start; n > size && longestCluster(ch.Text) <= size/2 {
			t.Fatalf("chunk %d: %d runes, more than Size %d", i, n, size)
		}
		sum := sha256.Sum256([]byte(ch.Text))
		if ch.Hash != hex.EncodeToString(sum[:]) {
			t.Fatalf("chunk %d: Hash is not the SHA-256 of Text", i)
		}
		if ch.Headings == nil {
			t.Fatalf("chunk %d: Headings is nil, want a non-nil slice", i)
		}
		if ch.Start < prevStart || ch.End <= prevEnd && i > 0 {
			t.Fatalf("chunk %d: [%d,%d) out of order after [%d,%d)", i, ch.Start, ch.End, prevStart, prevEnd)
		}
		prevStart, prevEnd = ch.Start, ch.End
		if want := pageOf(pages, ch.Start); ch.Page != want {
			t.Fatalf("chunk %d: Page = %d, want %d", i, ch.Page, want)
		}
		if pageOf(pages, ch.End-1) != ch.Page {
			t.Fatalf("chunk %d: [%d,%d) crosses a page boundary", i, ch.Start, ch.End)
		}
		for p := ch.Start; p < ch.End; p++ {
			covered[p] = true
		}
	}
	for p, r := range body {
		if !covered[p] && !unicode.IsSpace(r) {
			t.Fatalf("rune %d (%q) of the body is in no chunk", p, r)
		}
	}
}

func pageOf(pages []hs.Page, p int) int {
	for _, pg := range pages {
		if pg.Start <= p && p < pg.End {
			return pg.Number
		}
	}
	return 0
}
