package local_test

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// BenchmarkMemoryPerChunk writes memChunks chunks of one file the way the
// indexing pipeline writes a large file (UpsertPoints, 256 at a time):
// prose-like text of random words in chunks of about 700 bytes (the
// chunker's default size), their BM25F and trigram vectors and
// 768-dimensional dense vectors. It reports the Go heap the store holds
// per chunk once they are written (heap-B/chunk) and after a reopen
// (reopen-heap-B/chunk), whatever the page cache holds of its files.
//
//	go test -run '^$' -bench MemoryPerChunk -benchtime 1x ./store/local/
func BenchmarkMemoryPerChunk(b *testing.B) {
	memChunks := benchsmoke.Size(10_000, 1_000) // the test command's smoke: fewer
	dir := b.TempDir()
	for b.Loop() {
		b.StopTimer()
		points := memPoints(memChunks)
		b.StartTimer()
		before := heapInUse()
		s, err := local.Open(dir, local.Options{})
		if err != nil {
			b.Fatal(err)
		}
		meta := points[0].File
		for start := 0; start < len(points); start += 256 {
			if err := s.UpsertPoints(b.Context(), meta, points[start:min(start+256, len(points))]); err != nil {
				b.Fatal(err)
			}
			for i := start; i < min(start+256, len(points)); i++ {
				points[i] = hs.Point{} // the caller lets go of what it wrote
			}
		}
		written := heapInUse()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		points = nil
		before = min(before, heapInUse())
		if s, err = local.Open(dir, local.Options{}); err != nil {
			b.Fatal(err)
		}
		reopened := heapInUse()
		b.ReportMetric(float64(written-before)/float64(memChunks), "heap-B/chunk")
		b.ReportMetric(float64(reopened-before)/float64(memChunks), "reopen-heap-B/chunk")
		if err := s.DeleteFile(b.Context(), meta.ID); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// heapInUse returns the bytes of live heap objects after a full collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// memPoints returns n points of file 1 with prose-like text, as
// TestBigTextFileMemory's file has: words of 3 to 10 random letters from a
// vocabulary of 5,000, about 700 bytes a chunk.
func memPoints(n int) []hs.Point {
	rng := rand.New(rand.NewPCG(7, 9))
	vocab := make([]string, 5000)
	for i := range vocab {
		w := make([]byte, 3+rng.IntN(8))
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		vocab[i] = string(w)
	}
	meta := hs.FileMeta{ID: 1, Path: "/logs/big.txt", Title: "big", Type: hs.DocFile, Readers: []hs.UserID{"alice"}}
	points := make([]hs.Point, n)
	var sb strings.Builder
	for no := range points {
		sb.Reset()
		for sb.Len() < 700 {
			if sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(vocab[rng.IntN(len(vocab))])
		}
		sum := sha256.Sum256([]byte(sb.String()))
		c := hs.Chunk{FileID: meta.ID, No: no, Text: sb.String(), Start: no * 700, End: no*700 + sb.Len(), Headings: []string{"Section"}, Hash: hex.EncodeToString(sum[:])}
		bm25, trigram := analysis.PointVectors(meta, c)
		points[no] = hs.Point{ID: hs.PointID(meta.ID, no), Chunk: c, File: meta, Dense: randDense(rng, 768), BM25: bm25, Trigram: trigram}
	}
	return points
}
