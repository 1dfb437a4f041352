package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestOriginOf(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"https://cloud.example.com", "https://cloud.example.com", true},
		{"https://Cloud.Example.com:443/index.php/apps", "https://cloud.example.com", true},
		{"http://localhost:80", "http://localhost", true},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"http://[::1]:8080", "http://[::1]:8080", true},
		{"null", "", false},
		{"file:///etc", "", false},
		{"cloud.example.com", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := originOf(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("originOf(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("alpha beta gamma ", 60) + "TARGET word here " + strings.Repeat("delta epsilon ", 60)
	at := len([]rune(strings.Repeat("alpha beta gamma ", 60)))
	tests := []struct {
		name                 string
		e                    hs.Excerpt
		prefix, suffix, must string
	}{
		{"short text is whole", hs.Excerpt{Text: "Short\n\ntext."}, "Short", "text.", "Short text."},
		{"long text without highlights starts at the start", hs.Excerpt{Text: long}, "alpha", "…", "alpha beta"},
		{"long text around the first highlight", hs.Excerpt{Text: long, Highlights: [][2]int{{at, at + 6}}}, "…", "…", "TARGET"},
		{"highlight at the very end", hs.Excerpt{Text: "x " + strings.Repeat("y ", 400) + "END", Highlights: [][2]int{{802, 805}}}, "…", "END", "END"},
	}
	for _, tt := range tests {
		got := excerpt(tt.e)
		if !strings.HasPrefix(got, tt.prefix) || !strings.HasSuffix(got, tt.suffix) || !strings.Contains(got, tt.must) || len([]rune(got)) > excerptRunes+2 {
			t.Errorf("%s: excerpt = %q", tt.name, got)
		}
	}
}

func TestPageEnd(t *testing.T) {
	text := []rune("one two three\n\nfour five six seven eight nine ten")
	tests := []struct {
		start, n, want int
	}{
		{0, 100, len(text)},        // fits
		{0, 17, 15},                // back to the paragraph break
		{15, 16, 29},               // back to a space
		{15, 12, 27},               // no space in the last fifth: hard cut
		{0, 3, 3},                  // no break in the last fifth: hard cut
		{20, len(text), len(text)}, // the rest
		{len(text), 10, len(text)}, // at the end
		{0, len(text) - 1, 46},     // a space near the end
	}
	for _, tt := range tests {
		if got := pageEnd(text, tt.start, tt.n); got != tt.want {
			t.Errorf("pageEnd(%d, %d) = %d (%q), want %d", tt.start, tt.n, got, string(text[tt.start:got]), tt.want)
		}
	}
}

// TestRenderSearchMarksOCR: a passage recognised from a scan says so in
// the text content, beside its page; the structured content has "ocr".
func TestRenderSearchMarksOCR(t *testing.T) {
	out := searchOutput{Results: []searchResult{{
		FileID: 7, Title: "scan", Path: "/Scans/scan.pdf", DocType: "file",
		Chunks: []chunk{{ChunkNo: 0, Text: "invoice bicycle", Page: 2, OCR: true}, {ChunkNo: 1, Text: "typed text", Page: 3}},
	}}}
	text := renderSearch(out)
	if !strings.Contains(text, "[chunk 0, page 2, text recognised by OCR]") || strings.Contains(text, "[chunk 1, page 3, text recognised") {
		t.Errorf("text content:\n%s", text)
	}
	b, _ := json.Marshal(out.Results[0].Chunks)
	if !strings.Contains(string(b), `"page":2,"ocr":true`) || strings.Count(string(b), `"ocr"`) != 1 {
		t.Errorf("structured chunks %s", b)
	}
}
