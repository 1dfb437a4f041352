package indexing

import (
	"context"
	"errors"
	"fmt"
	"path"

	hs "github.com/hybrid-search/hybridsearch"
)

// extract downloads the file as user and extracts its text.
func (p *Pipeline) extract(ctx context.Context, user hs.UserID, info hs.FileInfo, ocr bool) (hs.Text, error) {
	max := p.rules().MaxSize
	if max <= 0 {
		max = 1 << 40
	}
	body, _, err := p.Files.Download(ctx, user, info.Path, max)
	if err != nil {
		return hs.Text{}, fmt.Errorf("download %s: %w", info.Path, err)
	}
	defer body.Close()
	extract := p.Extract.Extract
	if x, ok := p.Extract.(OCRExtractor); ok && ocr {
		extract = x.ExtractOCR
	}
	text, err := extract(ctx, path.Base(info.Path), info.MIME, body)
	if err != nil {
		return hs.Text{}, fmt.Errorf("extract %s: %w", info.Path, err)
	}
	return text, nil
}

// writeBatch is how many chunks are turned into points and written at a
// time: what a file's indexing holds in memory, whatever its size. It
// bounds memory, not requests: the chunks of a write batch that need
// vectors go to the embedder in one call, which batches its requests.
const writeBatch = 256

// written is what write reports about a file.
type written struct {
	chunks int        // chunks stored
	miss   unembedded // chunks stored without a dense vector
}

// chunkSource hands a file's chunks to fn in batches of at most
// writeBatch, numbered from 0 in order, stopping at fn's first error.
type chunkSource func(fn func([]hs.Chunk) error) error

// chunksOf is the chunk source of a file's extracted text: its chunks, the
// pages recognised by OCR marked.
func (p *Pipeline) chunksOf(id hs.FileID, text hs.Text) chunkSource {
	recognised := map[int]bool{}
	for _, pg := range text.Pages {
		if pg.OCR {
			recognised[pg.Number] = true
		}
	}
	return func(fn func([]hs.Chunk) error) error {
		return p.Chunk.ChunkEach(id, text, writeBatch, func(chunks []hs.Chunk) error {
			for i := range chunks {
				chunks[i].OCR = recognised[chunks[i].Page]
			}
			return fn(chunks)
		})
	}
}

// write turns the chunks of source into points batch by batch and writes
// them, and reports how many chunks the file has and how many of them
// could not be embedded. A file of one batch is written whole
// (atomically, in the local store); a larger one batch by batch, then cut
// to its new length, so a long file never has all its points in memory
// at once. No chunks write nothing.
func (p *Pipeline) write(ctx context.Context, meta hs.FileMeta, source chunkSource) (written, error) {
	var w written
	var first []hs.Point // held until a second batch shows the file is large
	batches := 0
	err := source(func(chunks []hs.Chunk) error {
		points, err := p.points(ctx, meta, chunks, &w.miss)
		if err != nil {
			return err
		}
		w.chunks += len(chunks)
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
		return written{}, err
	case batches == 0:
		return written{}, nil
	case batches == 1:
		if err := p.Store.WriteFile(ctx, meta, first); err != nil {
			return written{}, fmt.Errorf("write file %d: %w", meta.ID, err)
		}
	default:
		if err := p.Store.TrimFile(ctx, meta.ID, w.chunks); err != nil {
			return written{}, fmt.Errorf("write file %d: %w", meta.ID, err)
		}
	}
	return w, nil
}

// points builds the points of a batch of chunks: sparse vectors for every
// chunk, and dense vectors reused from the store by VectorKey where the
// same text (title and headings included) is already embedded, in this
// file before or in any other, else embedded. A chunk the embedder cannot
// take gets no dense vector and is counted in miss.
func (p *Pipeline) points(ctx context.Context, meta hs.FileMeta, chunks []hs.Chunk, miss *unembedded) ([]hs.Point, error) {
	points := make([]hs.Point, len(chunks))
	inputs := make([]embedInput, len(chunks))
	for i, c := range chunks {
		inputs[i] = newEmbedInput(meta.Title, c)
		c.Hash = VectorKey(inputs[i].String())
		bm25, tri := p.Sparse(meta, c)
		points[i] = hs.Point{ID: hs.PointID(meta.ID, c.No), Chunk: c, File: meta, BM25: bm25, Trigram: tri}
	}
	if p.Embed == nil || len(chunks) == 0 {
		return points, nil
	}
	vecs, err := p.reusable(ctx, points)
	if err != nil {
		return nil, err
	}
	var todo []int
	var todoInputs []embedInput
	queued := map[string]bool{} // a repeated chunk in one batch is embedded once
	for i, pt := range points {
		key := pt.Chunk.Hash
		if v, ok := vecs[key]; ok {
			points[i].Dense = v
			p.reused.Add(1)
			continue
		}
		todo = append(todo, i)
		if !queued[key] {
			queued[key] = true
			todoInputs = append(todoInputs, inputs[i])
		}
	}
	if len(todo) == 0 {
		return points, nil
	}
	out, err := p.embed(ctx, todoInputs, miss)
	if err != nil {
		return nil, fmt.Errorf("embed %d chunks of %s: %w", len(todoInputs), meta.Path, err)
	}
	for j, in := range todoInputs {
		if out[j] != nil {
			vecs[VectorKey(in.String())] = out[j]
		}
	}
	for _, i := range todo {
		points[i].Dense = vecs[points[i].Chunk.Hash] // nil when it could not be embedded
	}
	return points, nil
}

// reusable returns the dense vectors the store already has for the
// points' vector keys (this file's previous version or any other file
// with the same embedded text), one lookup per batch.
func (p *Pipeline) reusable(ctx context.Context, points []hs.Point) (map[string][]float32, error) {
	keys := make([]string, 0, len(points))
	seen := make(map[string]bool, len(points))
	for _, pt := range points {
		if !seen[pt.Chunk.Hash] {
			seen[pt.Chunk.Hash] = true
			keys = append(keys, pt.Chunk.Hash)
		}
	}
	vecs, err := p.Store.VectorsByHash(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("look up vectors by hash: %w", err)
	}
	if vecs == nil {
		vecs = map[string][]float32{}
	}
	return vecs, nil
}

// errNoChunks says the store does not hold the chunks a file's state
// counts, so its points cannot be rewritten without its content.
var errNoChunks = errors.New("the store lacks the file's chunks")

// rename rewrites the points of an indexed file whose path changed (a
// rename or move): the title and path words it indexes, and the title in
// each chunk's embedded text, come from the name. The chunks are read
// from the store (nothing is downloaded); their sparse vectors are
// computed again, and their dense vectors are reused by VectorKey where
// the embedded text did not change (a document's own title, a move that
// keeps the name) and embedded again where it did. It returns errNoChunks
// when the store does not hold the chunks the state counts.
func (p *Pipeline) rename(ctx context.Context, st *hs.FileState, info hs.FileInfo) (hs.FileMeta, written, error) {
	stored, err := p.Store.FilePoints(ctx, info.ID, false)
	if err != nil {
		return hs.FileMeta{}, written{}, fmt.Errorf("read chunks of %d: %w", info.ID, err)
	}
	if len(stored) == 0 || len(stored) != st.Chunks {
		return hs.FileMeta{}, written{}, errNoChunks
	}
	chunks := make([]hs.Chunk, len(stored))
	for i, pt := range stored {
		chunks[i] = pt.Chunk
		chunks[i].FileID = info.ID
	}
	meta := p.meta(st, info, "")
	w, err := p.write(ctx, meta, func(fn func([]hs.Chunk) error) error {
		for start := 0; start < len(chunks); start += writeBatch {
			if err := fn(chunks[start:min(start+writeBatch, len(chunks))]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return hs.FileMeta{}, written{}, err
	}
	p.logger().Info("file renamed: its name's words re-indexed", "file_id", info.ID, "path", meta.Path, "chunk_count", w.chunks)
	return meta, w, nil
}
