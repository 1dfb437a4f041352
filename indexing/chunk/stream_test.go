package chunk_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
)

// collect runs ChunkEach and returns every chunk, checking batch sizes.
func collect(t *testing.T, c chunk.Chunker, text hs.Text, batch int) []hs.Chunk {
	t.Helper()
	var all []hs.Chunk
	err := c.ChunkEach(7, text, batch, func(cs []hs.Chunk) error {
		if len(cs) == 0 || len(cs) > batch {
			t.Fatalf("batch of %d chunks, want 1 to %d", len(cs), batch)
		}
		all = append(all, cs...)
		return nil
	})
	if err != nil {
		t.Fatalf("ChunkEach = %v", err)
	}
	return all
}

// longBody is n bytes of paragraphs, with a heading now and then and a
// few non-ASCII words.
func longBody(n int) string {
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"pump", "valve", "größe", "maintenance", "日本語", "log", "bearing", "seal", "over", "the"}
	var b strings.Builder
	for p := 0; b.Len() < n; p++ {
		if p%25 == 0 {
			fmt.Fprintf(&b, "## Part %d\n\n", p/25)
		}
		for s := range 2 + r.IntN(5) {
			if s > 0 {
				b.WriteByte(' ')
			}
			for w := range 5 + r.IntN(12) {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteByte('.')
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

func TestChunkEachSmallIsChunk(t *testing.T) {
	text := hs.Text{Body: longBody(200 << 10), Title: "Pumps"}
	c := chunk.Chunker{}
	want := c.Chunk(7, text)
	got := collect(t, c, text, 10)
	if len(got) != len(want) {
		t.Fatalf("ChunkEach gave %d chunks, Chunk %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Hash != want[i].Hash || got[i].Start != want[i].Start || !slices.Equal(got[i].Headings, want[i].Headings) {
			t.Fatalf("chunk %d differs from Chunk's", i)
		}
	}
}

// TestChunkEachLongBody: a body over WindowBytes is chunked in windows;
// the chunks still keep every promise Chunk makes, over the whole body.
func TestChunkEachLongBody(t *testing.T) {
	body := longBody(2*chunk.WindowBytes + 12345)
	n := utf8.RuneCountInString(body)
	text := hs.Text{Body: body, Pages: []hs.Page{{Number: 1, Start: 0, End: n / 3}, {Number: 2, Start: n / 3, End: n}}}
	c := chunk.Chunker{}
	all := collect(t, c, text, chunk.DefaultBatch)
	checkChunks(t, c, 7, text, all)
	if len(all) < 2*chunk.WindowBytes/1000 {
		t.Errorf("%d chunks for %d bytes", len(all), len(body))
	}
	// A window starts at a section: its chunks carry that heading.
	withHeading := 0
	for _, ch := range all {
		if len(ch.Headings) > 0 {
			withHeading++
		}
	}
	if withHeading != len(all) {
		t.Errorf("%d of %d chunks have a heading path; every one should", withHeading, len(all))
	}
}

func TestChunkEachStopsAtError(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := chunk.Chunker{}.ChunkEach(1, hs.Text{Body: longBody(chunk.WindowBytes + 1)}, 5, func([]hs.Chunk) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("ChunkEach = %v after %d calls, want stop after 1", err, calls)
	}
}
