package indexing

import (
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestHalve(t *testing.T) {
	tests := []struct {
		in     string
		a, b   string
		wantOK bool
	}{
		{in: "one two three four", a: "one two", b: "three four", wantOK: true},
		{in: "abcdef", a: "abc", b: "def", wantOK: true},
		{in: "日本語の文章", a: "日本語", b: "の文章", wantOK: true},
		{in: "  ab  ", a: "a", b: "b", wantOK: true},
		{in: "a"},
		{in: " "},
	}
	for _, tt := range tests {
		a, b, ok := halve(tt.in)
		if ok != tt.wantOK || a != tt.a || b != tt.b {
			t.Errorf("halve(%q) = %q, %q, %v; want %q, %q, %v", tt.in, a, b, ok, tt.a, tt.b, tt.wantOK)
		}
	}
}

func TestEmbedInputAndKey(t *testing.T) {
	in := newEmbedInput("Budget", chunkWith("Spending rose.", "Budget", "2026", "Travel"))
	if got, want := in.String(), "Budget > 2026 > Travel\n\nSpending rose."; got != want {
		t.Errorf("input = %q, want %q", got, want)
	}
	if VectorKey("a") == VectorKey("b") || len(VectorKey("a")) != 64 {
		t.Errorf("VectorKey is not a hex SHA-256")
	}
}

func chunkWith(text string, headings ...string) hs.Chunk {
	return hs.Chunk{Text: text, Headings: headings}
}
