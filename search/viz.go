package search

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/nextcloud/link"
)

// VectorReader reads stored points with their vectors (local.Store and
// qdrant.Store). Both methods must return only points whose readers
// include user.
type VectorReader interface {
	PointsByID(ctx context.Context, user hs.UserID, ids []string) ([]hs.Point, error)
	SamplePoints(ctx context.Context, user hs.UserID, n int, f hs.Filter) ([]hs.Point, error)
}

// vizTextRunes is how much of a chunk's text a plotted point carries.
const vizTextRunes = 240

// Viz draws 2-D maps of the vector space around searches (GET /api/viz).
// It is safe for concurrent use.
type Viz struct {
	s       *Service
	vectors VectorReader
}

// NewViz returns a Viz that searches with s and reads vectors from v.
func NewViz(s *Service, v VectorReader) (*Viz, error) {
	if s == nil || v == nil {
		return nil, hs.Errorf(hs.EINVALID, "search: the viz needs a search service and a vector reader")
	}
	return &Viz{s: s, vectors: v}, nil
}

// Viz runs req for user as Service.Search does and returns the 2-D PCA
// map of the query, the result chunks (each document's best chunk and its
// further matches, with the legs that retrieved them) and up to sample of
// the user's other chunks that pass the request's filter (0 means the
// rules' DefaultVizSample). The axes are fitted to the plotted chunks; the query
// is projected onto them.
//
// The map shows the embeddings when the semantic leg can run and the
// chunks have them; otherwise the keyword leg's BM25 vectors (weighted by
// IDF over the plotted chunks and normalised) and a Note saying why.
// Sampled chunks are re-checked against Nextcloud like result pages: a
// file the user lost is left out. Errors are Search's, plus EINVALID for a
// sample outside [0, the rules' MaxVizSample].
func (v *Viz) Viz(ctx context.Context, user hs.UserID, req hs.SearchRequest, sample int) (hs.VizResult, error) {
	start := time.Now()
	if user == "" {
		return hs.VizResult{}, hs.Errorf(hs.EINVALID, "search: no acting user")
	}
	s := v.s
	rules := s.Rules()
	sample, err := rules.CheckVizSample(sample)
	if err != nil {
		return hs.VizResult{}, err
	}
	p, err := s.plan(req)
	if err != nil {
		return hs.VizResult{}, err
	}
	legs := s.retrieve(ctx, user, p)
	if err := ctx.Err(); err != nil {
		return hs.VizResult{}, fmt.Errorf("search: %w", err)
	}
	res, err := s.finish(ctx, user, p, legs)
	if err != nil {
		return hs.VizResult{}, err
	}

	// Which legs retrieved each chunk, and the result chunks to plot.
	found := map[ChunkKey][]string{}
	for _, r := range legs {
		for _, h := range r.hits {
			k := keyOf(h.Point)
			if !slices.Contains(found[k], r.leg) {
				found[k] = append(found[k], r.leg)
			}
		}
	}
	type resultChunk struct {
		rank int
		best bool
	}
	inResults := map[string]resultChunk{}
	var ids []string
	for i, d := range res.Results {
		for j, no := range append([]int{d.Excerpt.ChunkNo}, chunkNos(d.More)...) {
			id := hs.PointID(d.FileID, no)
			if _, dup := inResults[id]; !dup {
				inResults[id] = resultChunk{rank: i + 1, best: j == 0}
				ids = append(ids, id)
			}
		}
	}

	var results, sampled []hs.Point
	var qvec []float32
	var resErr, sampleErr, embedErr error
	var wg sync.WaitGroup
	wg.Go(func() { results, resErr = v.vectors.PointsByID(ctx, user, ids) })
	wg.Go(func() { sampled, sampleErr = v.vectors.SamplePoints(ctx, user, sample, p.filter) })
	if s.embed != nil {
		// Cached by the embedder: the semantic leg just embedded the same text.
		wg.Go(func() { qvec, embedErr = s.embed.EmbedQuery(ctx, p.text) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return hs.VizResult{}, fmt.Errorf("search: viz: %w", err)
	}
	if resErr != nil {
		return hs.VizResult{}, fmt.Errorf("search: viz: read result vectors: %w", resErr)
	}
	if sampleErr != nil {
		return hs.VizResult{}, fmt.Errorf("search: viz: sample vectors: %w", sampleErr)
	}
	sampled = slices.DeleteFunc(sampled, func(pt hs.Point) bool { _, dup := inResults[pt.ID]; return dup })
	sampled, paths, err := v.reachable(ctx, user, sampled)
	if err != nil {
		return hs.VizResult{}, err
	}
	for _, d := range res.Results { // result pages were checked by the search
		paths[d.FileID] = d.Path
	}
	points := append(results, sampled...)

	out := hs.VizResult{
		Query:     p.text,
		Algorithm: p.algorithm,
		Skipped:   res.Skipped,
		Points:    []hs.VizPoint{},
	}
	space := hs.SpaceSemantic
	withDense := 0
	for _, pt := range points {
		if len(pt.Dense) > 0 {
			withDense++
		}
	}
	switch {
	case s.embed == nil:
		space, out.NoteCode, out.Note = hs.SpaceKeyword, hs.VizNoteSemanticOff, "No embedding model is configured, so the map shows the keyword (BM25) vectors instead of embeddings."
	case embedErr != nil:
		space, out.NoteCode, out.Note = hs.SpaceKeyword, hs.VizNoteEmbedderFailed, "The embedding model did not answer ("+skipReason(embedErr)+"), so the map shows the keyword (BM25) vectors instead of embeddings."
		out.NoteReasonCode = skipCode(embedError{embedErr}) // as the semantic leg says it
	case withDense == 0 && len(points) > 0:
		space, out.NoteCode, out.Note = hs.SpaceKeyword, hs.VizNoteNoEmbeddings, "No chunk has an embedding yet, so the map shows the keyword (BM25) vectors instead of embeddings."
	case withDense < len(points):
		out.NoteCode, out.NoteCount = hs.VizNoteChunksWithoutEmbedding, len(points)-withDense
		out.Note = fmt.Sprintf("%d chunks have no embedding yet and are not shown.", out.NoteCount)
		if out.NoteCount == 1 {
			out.Note = "1 chunk has no embedding yet and is not shown."
		}
		points = slices.DeleteFunc(points, func(pt hs.Point) bool { return len(pt.Dense) == 0 })
	}
	out.Space = space

	var x matrix
	var query func(pr *projection) (hs.VizXY, bool)
	if space == hs.SpaceSemantic {
		x, query = denseSpace(points, qvec)
	} else {
		x, query = keywordSpace(points, analysis.BM25Query(indexTerms(p.query.Words)))
	}
	pr := fitPCA(x)
	out.ExplainedVariance = pr.explained
	if q, ok := query(&pr); ok {
		out.QueryPoint = &q
	}
	for i, xy := range pr.project(x) {
		pt := points[i]
		own := &docGroup{meta: pt.File, path: paths[pt.File.ID]} // the user's own path and title
		vp := hs.VizPoint{
			FileID: pt.File.ID, ChunkNo: pt.Chunk.No, Title: titleFor(own), Path: own.path,
			Type: pt.File.Type, MIME: pt.File.MIME, Link: link.Document(s.baseURL, pt.File), Text: clipRunes(pt.Chunk.Text, vizTextRunes),
			X: round6(xy[0]), Y: round6(xy[1]),
		}
		if rc, ok := inResults[pt.ID]; ok {
			vp.Rank, vp.Best = rc.rank, rc.best
			vp.Legs = found[keyOf(pt)]
			slices.SortFunc(vp.Legs, func(a, b string) int { return slices.Index(legOrder[:], a) - slices.Index(legOrder[:], b) })
		} else {
			out.Sampled++
		}
		out.Points = append(out.Points, vp)
	}
	out.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return out, nil
}

// reachable drops sampled chunks of files the user can no longer reach,
// with the same one-request access check as result pages, and returns the
// path each remaining file has for the user. When Nextcloud does not
// answer, a file stays only if the index lists the user as a reader with a
// path of theirs: nothing the user could not see before.
func (v *Viz) reachable(ctx context.Context, user hs.UserID, points []hs.Point) ([]hs.Point, map[hs.FileID]string, error) {
	paths := map[hs.FileID]string{}
	if len(points) == 0 {
		return points, paths, nil
	}
	var docs []*docGroup
	for _, pt := range points {
		if _, ok := paths[pt.File.ID]; !ok {
			paths[pt.File.ID] = ""
			docs = append(docs, &docGroup{meta: pt.File})
		}
	}
	outcome := accessUnknown
	var found map[hs.FileID]hs.FileInfo
	if v.s.access != nil {
		var err error
		if found, outcome, err = v.s.check(ctx, user, docs); err != nil {
			return nil, nil, err
		}
	}
	for _, d := range docs {
		switch {
		case outcome == accessOK && found[d.meta.ID].ID != 0:
			paths[d.meta.ID] = found[d.meta.ID].Path
		case outcome == accessUnknown && slices.Contains(d.meta.Readers, user):
			paths[d.meta.ID] = d.meta.PathOf(user)
		}
	}
	return slices.DeleteFunc(points, func(pt hs.Point) bool { return paths[pt.File.ID] == "" }), paths, nil
}

// denseSpace returns the points' embeddings as a matrix and the query's
// projection.
func denseSpace(points []hs.Point, qvec []float32) (matrix, func(*projection) (hs.VizXY, bool)) {
	d := 0
	if len(points) > 0 {
		d = len(points[0].Dense)
	}
	m := &denseMatrix{n: len(points), d: d, data: make([]float32, 0, len(points)*d)}
	for _, pt := range points {
		m.data = append(m.data, unit32(pt.Dense)...)
	}
	return m, func(pr *projection) (hs.VizXY, bool) {
		if len(qvec) != d || d == 0 {
			return hs.VizXY{}, false
		}
		q := make([]float64, d)
		for j, x := range unit32(qvec) {
			q[j] = float64(x)
		}
		return projectOne(pr, q), true
	}
}

// keywordSpace returns the points' BM25 vectors as a matrix over the terms
// they use, each weighted by its IDF among the points and normalised, and
// the query's projection (its BM25 query vector, weighted the same way).
func keywordSpace(points []hs.Point, qv hs.SparseVector) (matrix, func(*projection) (hs.VizXY, bool)) {
	col := map[uint32]int32{}
	var df []int
	for _, pt := range points {
		for _, t := range pt.BM25.Indices {
			c, ok := col[t]
			if !ok {
				c = int32(len(df))
				col[t] = c
				df = append(df, 0)
			}
			df[c]++
		}
	}
	idf := make([]float64, len(df))
	n := float64(len(points))
	for c, k := range df {
		idf[c] = math.Log(1 + (n-float64(k)+0.5)/(float64(k)+0.5))
	}
	m := &sparseMatrix{d: len(df), idx: make([][]int32, len(points)), val: make([][]float64, len(points))}
	for i, pt := range points {
		ix := make([]int32, len(pt.BM25.Indices))
		vals := make([]float64, len(ix))
		for k, t := range pt.BM25.Indices {
			ix[k] = col[t]
			vals[k] = float64(pt.BM25.Values[k]) * idf[ix[k]]
		}
		normalize(vals)
		m.idx[i], m.val[i] = ix, vals
	}
	return m, func(pr *projection) (hs.VizXY, bool) {
		q := make([]float64, len(df))
		any := false
		for k, t := range qv.Indices {
			if c, ok := col[t]; ok {
				q[c] = float64(qv.Values[k]) * idf[c]
				any = true
			}
		}
		if !any {
			return hs.VizXY{}, false
		}
		normalize(q)
		return projectOne(pr, q), true
	}
}

// projectOne projects one vector in column space.
func projectOne(pr *projection, q []float64) hs.VizXY {
	return hs.VizXY{
		X: round6(dot(q, pr.axes[0]) - dot(pr.mean, pr.axes[0])),
		Y: round6(dot(q, pr.axes[1]) - dot(pr.mean, pr.axes[1])),
	}
}

func unit32(v []float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return v
	}
	out := make([]float32, len(v))
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

func normalize(v []float64) {
	n := math.Sqrt(dot(v, v))
	if n == 0 {
		return
	}
	for i := range v {
		v[i] /= n
	}
}

// round6 keeps six decimals: the JSON stays small and the map the same.
func round6(x float64) float64 {
	return math.Round(x*1e6) / 1e6
}

// clipRunes returns the first n runes of s, with "…" when cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "…"
		}
		i++
	}
	return s
}

func chunkNos(more []hs.Excerpt) []int {
	out := make([]int, len(more))
	for i, e := range more {
		out[i] = e.ChunkNo
	}
	return out
}

// indexTerms lists the index terms the query's words match in a chunk
// (their stems in every language and the plain word), without repeats, so
// the query lands in the same term space as the chunks' BM25 vectors.
func indexTerms(words []analysis.Word) []string {
	var terms []string
	for _, w := range words {
		for _, t := range w.Terms {
			if !slices.Contains(terms, t) {
				terms = append(terms, t)
			}
		}
	}
	return terms
}
