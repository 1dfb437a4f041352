package mcp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/mcp"
)

// chunksOf cuts body into chunks of size runes that overlap by overlap
// runes, the way the chunker's offsets describe them.
func chunksOf(body string, size, overlap int) []hs.Point {
	r := []rune(body)
	var out []hs.Point
	for start, no := 0, 0; start < len(r); no++ {
		end := min(start+size, len(r))
		out = append(out, hs.Point{Chunk: hs.Chunk{No: no, Text: string(r[start:end]), Start: start, End: end}})
		if end == len(r) {
			break
		}
		start = end - overlap
	}
	return out
}

func TestAssemble(t *testing.T) {
	pt := func(no, start, end int, text string) hs.Point {
		return hs.Point{Chunk: hs.Chunk{No: no, Start: start, End: end, Text: text}}
	}
	long := strings.Repeat("Grüße aus Köln, 東京 und Zürich. ", 200)
	tests := []struct {
		name   string
		points []hs.Point
		want   string
	}{
		{"none", nil, ""},
		{"one", []hs.Point{pt(0, 0, 5, "hello")}, "hello"},
		{"overlapping chunks", chunksOf(long, 300, 60), long},
		{"no overlap, touching", chunksOf(long, 250, 0), long},
		{"paragraph gap", []hs.Point{pt(0, 0, 5, "hello"), pt(1, 7, 12, "world")}, "hello\n\nworld"},
		{"line gap", []hs.Point{pt(0, 0, 5, "title"), pt(1, 6, 10, "body")}, "title\nbody"},
		{"chunk inside the previous one", []hs.Point{pt(0, 0, 11, "hello world"), pt(1, 6, 11, "world"), pt(2, 13, 16, "end")}, "hello world\n\nend"},
		{"window in the middle", chunksOf("aaaa bbbb cccc dddd", 9, 4)[1:3], "bbbb cccc dddd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mcp.Assemble(tt.points); got != tt.want {
				t.Errorf("Assemble = %q, want %q", short(got), short(tt.want))
			}
		})
	}
}

func short(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:40]) + "…" + string(r[len(r)-40:])
	}
	return s
}

// TestDocumentPaging reads a long document page by page through
// next_offset and checks the pages add up to the text exactly once.
func TestDocumentPaging(t *testing.T) {
	idx := newFakeIndex()
	var paras []string
	for i := range 60 {
		paras = append(paras, fmt.Sprintf("Paragraph %d of the handbook: %s", i, strings.Repeat("lorem ipsum dolor sit amet ", 40)))
	}
	idx.add(30, "alice", "/Handbook.md", "Handbook", hs.DocFile, paras...)
	whole := strings.Join(paras, "\n\n")
	url, _ := serve(t, idx, mcp.Options{})
	cs := connect(t, url, "alice", "2025-11-25")

	var got strings.Builder
	offset, pages := 0, 0
	for {
		res := call(t, cs, mcp.ToolDocument, map[string]any{"file_id": 30, "offset": offset, "max_chars": 5000})
		var d docOut
		structured(t, res, &d)
		if res.IsError || d.Offset != offset || d.TotalChars != len([]rune(whole)) || len([]rune(d.Text)) > 5000 {
			t.Fatalf("page at %d: %+v / %s", offset, d, short(text(res)))
		}
		got.WriteString(d.Text)
		pages++
		if !d.Truncated {
			break
		}
		if d.NextOffset <= offset || !strings.Contains(text(res), fmt.Sprintf("offset %d", d.NextOffset)) {
			t.Fatalf("next_offset %d after %d; text %s", d.NextOffset, offset, short(text(res)))
		}
		if r := []rune(d.Text); r[len(r)-1] != ' ' && r[len(r)-1] != '\n' {
			t.Errorf("page at %d cuts a word: …%q", offset, string(r[len(r)-10:]))
		}
		offset = d.NextOffset
	}
	if got.String() != whole || pages < 10 {
		t.Errorf("%d pages joined differ from the document (%d vs %d runes)", pages, len([]rune(got.String())), len([]rune(whole)))
	}

	// A window of chunks around chunk 30.
	res := call(t, cs, mcp.ToolDocument, map[string]any{"file_id": 30, "chunk": 30, "window": 1})
	var d docOut
	structured(t, res, &d)
	// The window starts with chunk 29's whole text, its overlap included.
	want := strings.Join(paras[29:32], "\n\n")
	if res.IsError || d.FirstChunk != 29 || d.LastChunk != 31 || d.TotalChunks != 60 || !strings.HasSuffix(d.Text, want) ||
		!strings.HasPrefix(d.Text, "met \n\nParagraph 29") || d.Truncated {
		t.Errorf("window = %+v", d)
	}
	// At the edges the window is cut; window 0 is the chunk alone.
	structured(t, call(t, cs, mcp.ToolDocument, map[string]any{"file_id": 30, "chunk": 0}), &d)
	if d.FirstChunk != 0 || d.LastChunk != 2 {
		t.Errorf("default window at chunk 0 = %d..%d, want 0..2", d.FirstChunk, d.LastChunk)
	}
	structured(t, call(t, cs, mcp.ToolDocument, map[string]any{"file_id": 30, "chunk": 59, "window": 0}), &d)
	if d.FirstChunk != 59 || d.LastChunk != 59 || !strings.HasSuffix(d.Text, "\n\n"+paras[59]) || strings.Contains(d.Text, "Paragraph 58") {
		t.Errorf("window 0 at the last chunk = %+v", d)
	}
	// Notes link to the Notes app.
	structured(t, call(t, cs, mcp.ToolDocument, map[string]any{"file_id": 12}), &d)
	if d.Link != "http://nc.test/index.php/apps/notes/note/12" {
		t.Errorf("note link = %q", d.Link)
	}
}

// TestDocumentShowsTheReadersPath: a shared document read by its
// recipient shows the recipient's path and name for it, never the owner's
// folders, also when Nextcloud's answer carries no path; when no path of
// the recipient's is known the call fails instead.
func TestDocumentShowsTheReadersPath(t *testing.T) {
	idx := newFakeIndex()
	share := func(id hs.FileID, paths map[hs.UserID]string) {
		idx.add(id, "alice", "/Secret/HR-X/review-X.md", "review-X", hs.DocFile, "The xylophone review.")
		d := idx.docs[id]
		d.meta.Readers, d.meta.Paths = []hs.UserID{"alice", "bob"}, paths
		idx.docs[id] = d
		idx.pathless[id] = true
	}
	share(40, map[hs.UserID]string{"alice": "/Secret/HR-X/review-X.md", "bob": "/From alice/review (2).md"})
	share(41, map[hs.UserID]string{"alice": "/Secret/HR-X/review-X.md"})
	url, _ := serve(t, idx, mcp.Options{})
	bob := connect(t, url, "bob", "2025-11-25")

	res := call(t, bob, mcp.ToolDocument, map[string]any{"file_id": 40})
	var d docOut
	structured(t, res, &d)
	if res.IsError || d.Path != "/From alice/review (2).md" || d.Title != "review (2)" {
		t.Errorf("bob reads his shared document as path %q, title %q (%s); want his own path and name", d.Path, d.Title, short(text(res)))
	}
	res = call(t, bob, mcp.ToolDocument, map[string]any{"file_id": 41})
	if !res.IsError || !strings.Contains(text(res), "did not say where you see") {
		t.Errorf("no path of bob's known: isError %v, %q; want a clear error", res.IsError, short(text(res)))
	}
	for _, r := range []*sdk.CallToolResult{call(t, bob, mcp.ToolDocument, map[string]any{"file_id": 40}), res} {
		if b, _ := json.Marshal(r); strings.Contains(string(b), "Secret") || strings.Contains(string(b), "HR-X") {
			t.Errorf("bob's answer names alice's folders: %s", b)
		}
	}
}
