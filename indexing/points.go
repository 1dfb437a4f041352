package indexing

import (
	"context"
	"fmt"
	"path"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// extract downloads the file as user and extracts its text.
func (p *Pipeline) extract(ctx context.Context, user hs.UserID, info hs.FileInfo) (hs.Text, error) {
	max := p.rules().MaxSize
	if max <= 0 {
		max = 1 << 40
	}
	body, _, err := p.Files.Download(ctx, user, info.Path, max)
	if err != nil {
		return hs.Text{}, fmt.Errorf("download %s: %w", info.Path, err)
	}
	defer body.Close()
	text, err := p.Extract.Extract(ctx, path.Base(info.Path), info.MIME, body)
	if err != nil {
		return hs.Text{}, fmt.Errorf("extract %s: %w", info.Path, err)
	}
	return text, nil
}

// writeBatch is how many chunks are turned into points and written at a
// time: what a file's indexing holds in memory, whatever its size.
const writeBatch = 256

// write chunks text, turns the chunks into points batch by batch and
// writes them, and returns how many chunks the file has. A file of one
// batch is written whole (atomically, in the local store); a larger one
// batch by batch, then cut to its new length, so a long file never has
// all its points in memory at once. No chunks write nothing.
func (p *Pipeline) write(ctx context.Context, meta hs.FileMeta, text hs.Text) (int, error) {
	var first []hs.Point // held until a second batch shows the file is large
	n, batches := 0, 0
	err := p.Chunk.ChunkEach(meta.ID, text, writeBatch, func(chunks []hs.Chunk) error {
		points, err := p.points(ctx, meta, chunks)
		if err != nil {
			return err
		}
		n += len(chunks)
		batches++
		if batches == 1 {
			first = points
			return nil
		}
		if first != nil {
			if err := p.Store.UpsertPoints(ctx, meta, first); err != nil {
				return fmt.Errorf("write file %d: %w", meta.ID, err)
			}
			first = nil
		}
		if err := p.Store.UpsertPoints(ctx, meta, points); err != nil {
			return fmt.Errorf("write file %d: %w", meta.ID, err)
		}
		return nil
	})
	switch {
	case err != nil:
		return 0, err
	case batches == 0:
		return 0, nil
	case batches == 1:
		if err := p.Store.WriteFile(ctx, meta, first); err != nil {
			return 0, fmt.Errorf("write file %d: %w", meta.ID, err)
		}
	default:
		if err := p.Store.TrimFile(ctx, meta.ID, n); err != nil {
			return 0, fmt.Errorf("write file %d: %w", meta.ID, err)
		}
	}
	return n, nil
}

// points builds the points of a batch of chunks: sparse vectors for every
// chunk, and dense vectors reused from the store by chunk hash where the
// text is already embedded (in this file before, or in any other), else
// embedded.
func (p *Pipeline) points(ctx context.Context, meta hs.FileMeta, chunks []hs.Chunk) ([]hs.Point, error) {
	points := make([]hs.Point, len(chunks))
	inputs := make([]string, len(chunks))
	for i, c := range chunks {
		inputs[i] = EmbedInput(meta.Title, c)
		bm25, tri := p.Sparse(meta, c)
		points[i] = hs.Point{ID: hs.PointID(meta.ID, c.No), Chunk: c, File: meta, BM25: bm25, Trigram: tri}
	}
	if p.Embed == nil || len(chunks) == 0 {
		return points, nil
	}
	vecs, err := p.reusable(ctx, chunks)
	if err != nil {
		return nil, err
	}
	var todo []int
	for i, c := range chunks {
		if v, ok := vecs[c.Hash]; ok {
			points[i].Dense = v
			p.reused.Add(1)
		} else {
			todo = append(todo, i)
		}
	}
	batch := p.EmbedBatch
	if batch <= 0 {
		batch = 64
	}
	for start := 0; start < len(todo); start += batch {
		end := min(start+batch, len(todo))
		texts := make([]string, 0, end-start)
		for _, i := range todo[start:end] {
			texts = append(texts, inputs[i])
		}
		out, err := p.Embed.EmbedDocuments(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed %d chunks of %s: %w", len(texts), meta.Path, err)
		}
		if len(out) != len(texts) {
			return nil, hs.Errorf(hs.EINTERNAL, "embedder returned %d vectors for %d texts", len(out), len(texts))
		}
		for j, i := range todo[start:end] {
			points[i].Dense = out[j]
			vecs[chunks[i].Hash] = out[j] // a repeated chunk in one batch is embedded once
		}
		p.embedded.Add(int64(len(texts)))
	}
	return points, nil
}

// reusable returns the dense vectors the store already has for the
// chunks' hashes (this file's previous version or any other file with the
// same text), one lookup per batch.
func (p *Pipeline) reusable(ctx context.Context, chunks []hs.Chunk) (map[string][]float32, error) {
	hashes := make([]string, 0, len(chunks))
	seen := make(map[string]bool, len(chunks))
	for _, c := range chunks {
		if !seen[c.Hash] {
			seen[c.Hash] = true
			hashes = append(hashes, c.Hash)
		}
	}
	vecs, err := p.Store.VectorsByHash(ctx, hashes)
	if err != nil {
		return nil, fmt.Errorf("look up vectors by hash: %w", err)
	}
	if vecs == nil {
		vecs = map[string][]float32{}
	}
	return vecs, nil
}

// EmbedInput is what is embedded and analysed for a chunk: the document
// title and heading path before the chunk text, so a chunk deep in a
// document still carries what it is about.
func EmbedInput(title string, c hs.Chunk) string {
	var b strings.Builder
	b.WriteString(title)
	for _, h := range c.Headings {
		if h != title {
			b.WriteString(" > ")
			b.WriteString(h)
		}
	}
	b.WriteString("\n\n")
	b.WriteString(c.Text)
	return b.String()
}
