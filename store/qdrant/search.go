package qdrant

import (
	"cmp"
	"context"
	"math"
	"slices"

	qc "github.com/qdrant/go-client/qdrant"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// SearchDense returns the user's k points most similar to vec by cosine
// similarity, best first, ties broken by point id. Points without a dense
// vector are skipped. It returns an EINVALID error for an empty user, k ≤ 0
// (k above MaxK is capped) or a vector whose dimension is not the
// collection's, before sending anything.
func (q *Store) SearchDense(ctx context.Context, user hs.UserID, vec []float32, k int, f hs.Filter) ([]hs.Hit, error) {
	k, err := checkSearch(user, k)
	if err != nil {
		return nil, err
	}
	if len(vec) != q.dim {
		return nil, hs.Errorf(hs.EINVALID, "store: search dense: query has dimension %d, the collection has %d", len(vec), q.dim)
	}
	for _, x := range vec {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, hs.Errorf(hs.EINVALID, "store: search dense: non-finite query value")
		}
	}
	return q.query(ctx, "search dense", &qc.QueryPoints{
		Query:  qc.NewQueryDense(vec),
		Using:  qc.PtrOf(store.VectorDense),
		Filter: searchFilter(user, f),
		Limit:  qc.PtrOf(uint64(k)),
	}, f.OmitText)
}

// SearchSparse returns the user's k points with the highest score on the
// sparse vector named vector ("bm25" or "trigram"): Σ q_i · d_i · IDF(n_i,
// N) over the indices the query and the point share (see IDF), best first,
// ties broken by point id. Only points sharing an index with q are found;
// an empty q finds nothing. It returns an EINVALID error for an empty user,
// k ≤ 0, another vector name or a malformed q, before sending anything.
func (q *Store) SearchSparse(ctx context.Context, user hs.UserID, vector string, sq hs.SparseVector, k int, f hs.Filter) ([]hs.Hit, error) {
	k, err := checkSearch(user, k)
	if err != nil {
		return nil, err
	}
	if err := store.CheckSparseName(vector); err != nil {
		return nil, err
	}
	if err := store.CheckSparse(vector, sq); err != nil {
		return nil, err
	}
	if len(sq.Indices) == 0 {
		return nil, nil
	}
	sq = store.SortedSparse(sq)
	return q.query(ctx, "search "+vector, &qc.QueryPoints{
		Query:  qc.NewQuerySparse(sq.Indices, sq.Values),
		Using:  qc.PtrOf(vector),
		Filter: searchFilter(user, f),
		Limit:  qc.PtrOf(uint64(k)),
	}, f.OmitText)
}

// query runs a search and turns its points into hits ordered by score,
// then point id; with omitText their chunks hold FileID and No alone (the
// payload asked for is the chunk number and the file's metadata).
func (q *Store) query(ctx context.Context, op string, req *qc.QueryPoints, omitText bool) ([]hs.Hit, error) {
	req.CollectionName = q.collection
	req.WithPayload = qc.NewWithPayloadInclude(pointFields...)
	if omitText {
		req.WithPayload = qc.NewWithPayloadInclude(leanFields...)
	}
	req.WithVectors = qc.NewWithVectors(false)
	var res []*qc.ScoredPoint
	err := q.call(ctx, op, func(ctx context.Context, c *qc.Client) (err error) {
		res, err = c.Query(ctx, req)
		return err
	})
	if err != nil || len(res) == 0 {
		return nil, err
	}
	hits := make([]hs.Hit, len(res))
	for i, p := range res {
		hits[i] = hs.Hit{Point: pointOf(p.GetId(), p.GetPayload(), nil), Score: p.GetScore()}
	}
	slices.SortStableFunc(hits, func(a, b hs.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Point.ID, b.Point.ID)
	})
	return hits, nil
}

// leanFields are the payload fields of a hit without its text
// (Filter.OmitText).
var leanFields = append([]string{"chunk_no"}, metaFields...)

// ReadChunks returns hits with their chunks read in full (as SearchDense
// and SearchSparse return them without Filter.OmitText), in their order,
// leaving out hits whose point is gone or that user may not read. A hit
// names its point by Point.File.ID and Point.Chunk.No; the rest of it is
// kept as given. It returns an EINVALID error for the empty user.
func (q *Store) ReadChunks(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error) {
	return q.readHits(ctx, "read chunks", user, hits, nil)
}

// ReadTerms returns hits as ReadChunks does, each with its bm25 vector
// (Point.BM25) read too: pseudo-relevance feedback reads the terms of its
// chunks with it instead of analysing their text again.
func (q *Store) ReadTerms(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error) {
	return q.readHits(ctx, "read terms", user, hits, []string{store.VectorBM25})
}

// readHits reads the points of hits that user may read, with the named
// vectors, and returns the hits with their chunks and those vectors set.
func (q *Store) readHits(ctx context.Context, op string, user hs.UserID, hits []hs.Hit, vectors []string) ([]hs.Hit, error) {
	if err := store.CheckUser(user); err != nil {
		return nil, err
	}
	ids := make([]*qc.PointId, 0, len(hits))
	for _, h := range hits {
		ids = append(ids, qc.NewID(hs.PointID(h.Point.File.ID, h.Point.Chunk.No)))
	}
	sel := qc.NewWithVectors(false)
	if len(vectors) > 0 {
		sel = qc.NewWithVectorsInclude(vectors...)
	}
	points := make(map[string]hs.Point, len(hits))
	for start := 0; start < len(ids); start += samplePage {
		batch := ids[start:min(start+samplePage, len(ids))]
		f := &qc.Filter{Must: []*qc.Condition{readersCondition(user), qc.NewHasID(batch...)}}
		err := q.scrollN(ctx, op, f, len(batch), sel, func(p hs.Point) { points[p.ID] = p })
		if err != nil {
			return nil, err
		}
	}
	out := make([]hs.Hit, 0, len(hits))
	for _, h := range hits {
		id := hs.PointID(h.Point.File.ID, h.Point.Chunk.No)
		if p, ok := points[id]; ok {
			h.Point.ID, h.Point.Chunk, h.Point.BM25 = id, p.Chunk, p.BM25
			out = append(out, h)
		}
	}
	return out, nil
}

// checkSearch checks the arguments every search shares and returns k
// capped at MaxK.
func checkSearch(user hs.UserID, k int) (int, error) {
	if err := store.CheckUser(user); err != nil {
		return 0, err
	}
	return store.CheckK(k)
}

// searchFilter returns the Qdrant filter of a search by user: readers
// contains user, and every set field of f (type in Types, MIME in MIMEs,
// PathPrefix among user's prefixes in reader_prefixes, mtime strictly
// between ModifiedAfter and ModifiedBefore).
func searchFilter(user hs.UserID, f hs.Filter) *qc.Filter {
	must := []*qc.Condition{readersCondition(user)}
	if len(f.Types) > 0 {
		types := make([]string, len(f.Types))
		for i, t := range f.Types {
			types[i] = string(t)
		}
		must = append(must, qc.NewMatchKeywords("type", types...))
	}
	if len(f.MIMEs) > 0 {
		must = append(must, qc.NewMatchKeywords("mime", f.MIMEs...))
	}
	if f.PathPrefix != "" {
		// The folder as user sees it: a file shared with user matches
		// under user's own path, never under the owner's folders.
		must = append(must, qc.NewMatchKeyword("reader_prefixes", readerKey(user, store.CleanPath(f.PathPrefix))))
	}
	if !f.ModifiedAfter.IsZero() || !f.ModifiedBefore.IsZero() {
		// mtime holds whole seconds, so whole-second bounds are exact:
		// s > t ⟺ s > ⌊t⌋ and s < t ⟺ s < ⌈t⌉ for an integer s.
		r := &qc.Range{}
		if t := f.ModifiedAfter; !t.IsZero() {
			r.Gt = qc.PtrOf(float64(t.Unix()))
		}
		if t := f.ModifiedBefore; !t.IsZero() {
			ceil := t.Unix()
			if t.Nanosecond() > 0 {
				ceil++
			}
			r.Lt = qc.PtrOf(float64(ceil))
		}
		must = append(must, qc.NewRange("mtime", r))
	}
	return &qc.Filter{Must: must}
}
