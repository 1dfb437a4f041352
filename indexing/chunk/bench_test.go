package chunk_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
)

// BenchmarkChunk chunks about 1 MB of generated Markdown and reports
// chunks per second.
func BenchmarkChunk(b *testing.B) {
	body := genDoc(rand.New(rand.NewPCG(1, 1)), 1<<20).body()
	b.SetBytes(int64(len(body)))
	var c chunk.Chunker
	n := 0
	for b.Loop() {
		n += len(c.Chunk(1, hs.Text{Body: body}))
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkChunkJapanese chunks about 300 KB of Japanese text without spaces.
func BenchmarkChunkJapanese(b *testing.B) {
	para := strings.Repeat("検索の結果は文書ごとにまとめられ、最も関連の高い部分が抜粋として表示されます。", 12)
	body := strings.Repeat("## 見出し\n\n"+para+"\n\n", 100)
	b.SetBytes(int64(len(body)))
	var c chunk.Chunker
	n := 0
	for b.Loop() {
		n += len(c.Chunk(1, hs.Text{Body: body}))
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
}
