package chunk_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenChunker is small, so that the short test documents exercise
// splitting, overlap and packing.
var goldenChunker = chunk.Chunker{Size: 200, Overlap: 40}

// loadText reads a test document. A form feed ends a page, as in
// pdftotext output: a document with form feeds gets Pages, one per part,
// the form feeds themselves on no page.
func loadText(t *testing.T, path string) hs.Text {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := hs.Text{Body: string(data), Extractor: "markdown"}
	if !strings.Contains(text.Body, "\f") {
		return text
	}
	start := 0
	for i, part := range strings.Split(text.Body, "\f") {
		n := len([]rune(part))
		text.Pages = append(text.Pages, hs.Page{Number: i + 1, Start: start, End: start + n})
		start += n + 1
	}
	return text
}

func TestChunkGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".md")
		t.Run(name, func(t *testing.T) {
			text := loadText(t, file)
			chunks := goldenChunker.Chunk(7, text)
			checkChunks(t, goldenChunker, 7, text, chunks)
			got, err := json.MarshalIndent(chunks, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(file, ".md") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestChunkGolden -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Chunk(%s) differs from %s (run with -update to accept):\n%s", file, golden, got)
			}
		})
	}
}
