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

// points builds the file's points: sparse vectors for every chunk, and
// dense vectors reused from the store by chunk hash where the text is
// unchanged, embedded only for new text.
func (p *Pipeline) points(ctx context.Context, st *hs.FileState, meta hs.FileMeta, chunks []hs.Chunk) ([]hs.Point, error) {
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
	vecs, err := p.reusable(ctx, st, chunks)
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
			vecs[chunks[i].Hash] = out[j] // a repeated chunk in one file is embedded once
		}
		p.embedded.Add(int64(len(texts)))
	}
	return points, nil
}

// reusable returns the dense vectors already stored for chunk hashes: the
// file's own previous chunks first, then any file with the same text.
func (p *Pipeline) reusable(ctx context.Context, st *hs.FileState, chunks []hs.Chunk) (map[string][]float32, error) {
	vecs := map[string][]float32{}
	if len(st.ChunkHashes) > 0 {
		old, err := p.Store.FilePoints(ctx, st.ID, true)
		if err != nil {
			return nil, fmt.Errorf("read chunks of %d: %w", st.ID, err)
		}
		for _, pt := range old {
			if len(pt.Dense) > 0 {
				vecs[pt.Chunk.Hash] = pt.Dense
			}
		}
	}
	var missing []string
	seen := map[string]bool{}
	for _, c := range chunks {
		if _, ok := vecs[c.Hash]; !ok && !seen[c.Hash] {
			missing = append(missing, c.Hash)
			seen[c.Hash] = true
		}
	}
	if len(missing) == 0 {
		return vecs, nil
	}
	more, err := p.Store.VectorsByHash(ctx, missing)
	if err != nil {
		return nil, fmt.Errorf("look up vectors by hash: %w", err)
	}
	for h, v := range more {
		vecs[h] = v
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
