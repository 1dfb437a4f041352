package chunk_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
)

// texts returns the texts of chunks.
func texts(chunks []hs.Chunk) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = c.Text
	}
	return out
}

func TestChunkEmpty(t *testing.T) {
	for _, body := range []string{"", " ", "\n\n\t \n", "\f\u00a0\u3000"} {
		if got := (chunk.Chunker{}).Chunk(1, hs.Text{Body: body}); len(got) != 0 {
			t.Errorf("Chunk(%q) = %q, want no chunks", body, texts(got))
		}
	}
}

func TestChunkSmallDocument(t *testing.T) {
	text := hs.Text{Body: "\n\n  Hello, world.  \n\nSecond paragraph.\n"}
	got := (chunk.Chunker{}).Chunk(42, text)
	checkChunks(t, chunk.Chunker{}, 42, text, got)
	want := []string{"Hello, world.  \n\nSecond paragraph."}
	if !slices.Equal(texts(got), want) {
		t.Errorf("Chunk = %q, want %q", texts(got), want)
	}
	if got[0].Start != 4 || got[0].Page != 0 || len(got[0].Headings) != 0 {
		t.Errorf("chunk = %+v, want Start 4, Page 0, no headings", got[0])
	}
}

func TestChunkHeadings(t *testing.T) {
	body := "Preamble text.\n\n" +
		"# A\n\n## B\n\nText under B.\n\n" +
		"### C ###\n\nText under C.\n\n" +
		"## D\n\nText under D.\n\n" +
		"E\n===\n\nText under E.\n\n" +
		"F\n---\n\nText under F.\n\n" +
		"    # indented code, not a heading\n\n" +
		"#hashtag, not a heading\n"
	c := chunk.Chunker{Size: 40, Overlap: -1}
	got := c.Chunk(1, hs.Text{Body: body})
	checkChunks(t, c, 1, hs.Text{Body: body}, got)
	type hc struct {
		headings []string
		text     string
	}
	want := []hc{
		{nil, "Preamble text."},
		{[]string{"A", "B"}, "# A\n\n## B\n\nText under B."},
		{[]string{"A", "B", "C"}, "### C ###\n\nText under C."},
		{[]string{"A", "D"}, "## D\n\nText under D."},
		{[]string{"E"}, "E\n===\n\nText under E."},
		{[]string{"E", "F"}, "F\n---\n\nText under F."},
		{[]string{"E", "F"}, "# indented code, not a heading"},
		{[]string{"E", "F"}, "#hashtag, not a heading"},
	}
	if len(got) != len(want) {
		t.Fatalf("Chunk = %q, want %d chunks", texts(got), len(want))
	}
	for i, w := range want {
		if got[i].Text != w.text || !slices.Equal(got[i].Headings, w.headings) && len(w.headings)+len(got[i].Headings) > 0 {
			t.Errorf("chunk %d = %q %q, want %q %q", i, got[i].Headings, got[i].Text, w.headings, w.text)
		}
	}
}

func TestChunkCodeBlocks(t *testing.T) {
	body := "# Title\n\n```\n# not a heading\n\nstill code\n```\n\nafter\n\n~~~~\nunclosed\n\n# still code\n"
	c := chunk.Chunker{Size: 50, Overlap: -1}
	got := c.Chunk(1, hs.Text{Body: body})
	checkChunks(t, c, 1, hs.Text{Body: body}, got)
	for _, ch := range got {
		if !slices.Equal(ch.Headings, []string{"Title"}) {
			t.Errorf("chunk %q has headings %q, want [Title]: # inside code is not a heading", ch.Text, ch.Headings)
		}
	}
	if !slices.Contains(texts(got), "# Title\n\n```\n# not a heading\n\nstill code\n```") {
		t.Errorf("Chunk = %q, want the first code block whole", texts(got))
	}
}

func TestChunkPagesAreHardBoundaries(t *testing.T) {
	page1 := "First page text that continues"
	page2 := " on the second page. More text."
	body := page1 + page2
	n1 := utf8.RuneCountInString(page1)
	text := hs.Text{Body: body, Pages: []hs.Page{
		{Number: 1, Start: 0, End: n1},
		{Number: 2, Start: n1, End: utf8.RuneCountInString(body)},
	}}
	c := chunk.Chunker{}
	got := c.Chunk(1, text)
	checkChunks(t, c, 1, text, got)
	want := []string{page1, strings.TrimSpace(page2)}
	if !slices.Equal(texts(got), want) {
		t.Errorf("Chunk = %q, want %q", texts(got), want)
	}
	if got[0].Page != 1 || got[1].Page != 2 {
		t.Errorf("pages = %d, %d, want 1, 2", got[0].Page, got[1].Page)
	}
}

func TestChunkHeadingContinuesOnNextPage(t *testing.T) {
	body := "# Report\n\nOn page one.\fOn page two."
	text := hs.Text{Body: body, Pages: []hs.Page{{Number: 1, Start: 0, End: 22}, {Number: 2, Start: 23, End: 35}}}
	got := (chunk.Chunker{}).Chunk(1, text)
	checkChunks(t, chunk.Chunker{}, 1, text, got)
	if len(got) != 2 || !slices.Equal(got[1].Headings, []string{"Report"}) || got[1].Page != 2 {
		t.Errorf("Chunk = %+v, want two chunks, the second on page 2 under Report", got)
	}
}

func TestChunkBadPagesAreIgnored(t *testing.T) {
	text := hs.Text{Body: "Some text here.", Pages: []hs.Page{{Number: 1, Start: -5, End: 1000}, {Number: 2, Start: 9, End: 3}}}
	got := (chunk.Chunker{}).Chunk(1, text)
	if len(got) != 1 || got[0].Text != "Some text here." {
		t.Errorf("Chunk = %q, want the whole text", texts(got))
	}
}

func TestChunkLongParagraphSplitsAtSentences(t *testing.T) {
	sentences := []string{
		"The first sentence is here.", "Is this the second one?", "Yes!",
		"The fourth sentence ends the paragraph.",
	}
	body := strings.Join(sentences, " ")
	c := chunk.Chunker{Size: 60, Overlap: -1}
	got := c.Chunk(1, hs.Text{Body: body})
	checkChunks(t, c, 1, hs.Text{Body: body}, got)
	for _, ch := range got {
		if !strings.ContainsAny(ch.Text[len(ch.Text)-1:], ".?!") {
			t.Errorf("chunk %q does not end at a sentence end", ch.Text)
		}
	}
}

func TestChunkJapaneseSplitsAtFullStops(t *testing.T) {
	body := strings.Repeat("東京都の天気は晴れです。", 10)
	c := chunk.Chunker{Size: 50, Overlap: 10}
	got := c.Chunk(1, hs.Text{Body: body})
	checkChunks(t, c, 1, hs.Text{Body: body}, got)
	if len(got) < 3 {
		t.Fatalf("Chunk = %q, want at least 3 chunks", texts(got))
	}
	for _, ch := range got {
		if !strings.HasSuffix(ch.Text, "。") {
			t.Errorf("chunk %q does not end at 。", ch.Text)
		}
	}
}

func TestChunkLongSentenceSplitsAtWords(t *testing.T) {
	body := strings.TrimSpace(strings.Repeat("word ", 50))
	c := chunk.Chunker{Size: 32, Overlap: -1}
	got := c.Chunk(1, hs.Text{Body: body})
	checkChunks(t, c, 1, hs.Text{Body: body}, got)
	for _, ch := range got {
		for _, w := range strings.Fields(ch.Text) {
			if w != "word" {
				t.Errorf("chunk %q cuts a word", ch.Text)
			}
		}
	}
}

func TestChunkLongWordSplitsAtGraphemes(t *testing.T) {
	flags := strings.Repeat("🇩🇪🇯🇵", 20)             // regional indicator pairs: two runes per cluster
	accents := strings.Repeat("e\u0301\u0302", 30)  // three runes per cluster
	family := strings.Repeat("👨\u200d👩\u200d👧", 10) // five runes per cluster
	for name, body := range map[string]string{"flags": flags, "accents": accents, "zwj": family} {
		t.Run(name, func(t *testing.T) {
			c := chunk.Chunker{Size: 11, Overlap: -1}
			got := c.Chunk(1, hs.Text{Body: body})
			checkChunks(t, c, 1, hs.Text{Body: body}, got)
			if len(got) < 2 {
				t.Errorf("Chunk = %q, want the word split", texts(got))
			}
		})
	}
}

func TestChunkGiantClusterIsKeptWhole(t *testing.T) {
	body := "a" + strings.Repeat("\u0301", 50) + " b"
	c := chunk.Chunker{Size: 10, Overlap: -1}
	got := c.Chunk(1, hs.Text{Body: body})
	checkChunks(t, c, 1, hs.Text{Body: body}, got)
	if len(got) != 2 || utf8.RuneCountInString(got[0].Text) != 51 {
		t.Errorf("Chunk = %q, want the 51-rune cluster whole, then b", texts(got))
	}
}

func TestChunkOverlap(t *testing.T) {
	var paras []string
	for i := range 30 {
		paras = append(paras, "Sentence one of paragraph "+strings.Repeat("x", i%7)+". Sentence two is a bit longer than one. Three.")
	}
	body := strings.Join(paras, "\n\n")
	c := chunk.Chunker{Size: 300, Overlap: 80}
	got := c.Chunk(1, hs.Text{Body: body})
	checkChunks(t, c, 1, hs.Text{Body: body}, got)
	if len(got) < 5 {
		t.Fatalf("got %d chunks, want at least 5", len(got))
	}
	for i := 1; i < len(got); i++ {
		prev, cur := got[i-1], got[i]
		ov := prev.End - cur.Start
		if ov <= 0 || ov > 80 {
			t.Errorf("chunk %d overlaps the one before by %d runes, want 1..80", i, ov)
		}
		if cur.Start <= prev.Start {
			t.Errorf("chunk %d repeats all of the chunk before", i)
		}
		first := []rune(cur.Text)[0]
		before := []rune(body)[cur.Start-1]
		if !(before == ' ' || before == '\n') || first == ' ' {
			t.Errorf("chunk %d overlap starts mid-word: %q", i, cur.Text[:20])
		}
	}
	// No overlap when turned off.
	c.Overlap = -1
	for i, ch := range c.Chunk(1, hs.Text{Body: body})[1:] {
		if prev := c.Chunk(1, hs.Text{Body: body})[i]; prev.End > ch.Start {
			t.Fatalf("with Overlap -1, chunk %d overlaps the one before", i+1)
		}
	}
}

func TestChunkDefaults(t *testing.T) {
	body := strings.Repeat("All work and no play makes a dull chunk. ", 200)
	got := (chunk.Chunker{}).Chunk(1, hs.Text{Body: body})
	checkChunks(t, chunk.Chunker{}, 1, hs.Text{Body: body}, got)
	longest := 0
	for _, ch := range got {
		longest = max(longest, utf8.RuneCountInString(ch.Text))
	}
	if longest > chunk.DefaultSize || longest < chunk.DefaultSize/2 {
		t.Errorf("longest chunk has %d runes, want at most %d and more than half of it", longest, chunk.DefaultSize)
	}
}

func TestChunkOddSizes(t *testing.T) {
	body := "Short text. " + strings.Repeat("Another sentence here. ", 20)
	for _, c := range []chunk.Chunker{{Size: 1}, {Size: 2, Overlap: 5}, {Size: 10, Overlap: 100}, {Size: -3, Overlap: -3}} {
		got := c.Chunk(1, hs.Text{Body: body})
		checkChunks(t, c, 1, hs.Text{Body: body}, got)
	}
}

func TestChunkCRLF(t *testing.T) {
	body := "# Title\r\n\r\nFirst line\r\nsecond line\r\n\r\nNext paragraph.\r\n"
	c := chunk.Chunker{Size: 30, Overlap: -1}
	got := c.Chunk(1, hs.Text{Body: body})
	checkChunks(t, c, 1, hs.Text{Body: body}, got)
	for _, ch := range got {
		if !slices.Equal(ch.Headings, []string{"Title"}) {
			t.Errorf("chunk %q has headings %q, want [Title]", ch.Text, ch.Headings)
		}
	}
}

func TestChunkDeterministic(t *testing.T) {
	body := strings.Repeat("Ein Absatz über die Straße. Noch ein Satz!\n\n", 40)
	a := (chunk.Chunker{}).Chunk(1, hs.Text{Body: body})
	b := (chunk.Chunker{}).Chunk(1, hs.Text{Body: body})
	if !slices.EqualFunc(a, b, func(x, y hs.Chunk) bool { return x.Hash == y.Hash && x.Start == y.Start }) {
		t.Error("two runs over the same text differ")
	}
}
