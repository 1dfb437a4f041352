package search

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/nextcloud/link"
)

// Limits of a similar search.
const (
	// MaxSimilarSources is how many files one similar search may start from.
	MaxSimilarSources = 10
	// similarChunks is how many chunks of each source file stand for it
	// (its first ones); a longer file is represented by its beginning.
	similarChunks = 64
	// similarTerms is how many terms the keyword query keeps, the heaviest.
	similarTerms = 200
	// similarText is how much of the sources' text (runes) the keyword
	// query is made of.
	similarText = 8000
)

// Similar finds the documents most like given files (the Files app's
// "Find similar"). It is safe for concurrent use.
type Similar struct {
	s       *Service
	vectors VectorReader
}

// NewSimilar returns a Similar that searches with s and reads the source
// files' vectors from v.
func NewSimilar(s *Service, v VectorReader) (*Similar, error) {
	if s == nil || v == nil {
		return nil, hs.Errorf(hs.EINVALID, "search: similar needs a search service and a vector reader")
	}
	return &Similar{s: s, vectors: v}, nil
}

// Similar returns, for user, the topK documents (0 means DefaultTopK)
// nearest to the files ids, best first, leaving the files themselves out.
//
// With an embedding model it compares embeddings: the query is the
// normalised mean of the sources' unit chunk vectors, and a result's
// relevance is its best chunk's cosine similarity to it. Without a model,
// or when the sources have no embeddings, it runs the keyword leg with the
// sources' text as the query (their titles and first chunks, analysed and
// weighted as a search query is, cut to the heaviest terms), and relevance
// is relative to the best result. Only chunks whose
// readers include user are read or returned, and the sources and every
// result page are re-checked against Nextcloud like search results.
//
// Errors: EINVALID for no ids, too many, or a topK outside 1 to the rules' MaxTopK;
// ENOTFOUND when none of the files is in the index for user (not indexed
// yet, not indexable, or not readable); EUNAVAILABLE when the store fails.
func (m *Similar) Similar(ctx context.Context, user hs.UserID, ids []hs.FileID, topK int) (hs.SimilarResult, error) {
	start := time.Now()
	switch {
	case user == "":
		return hs.SimilarResult{}, hs.Errorf(hs.EINVALID, "search: no acting user")
	case len(ids) == 0:
		return hs.SimilarResult{}, hs.Errorf(hs.EINVALID, "search: similar needs at least one file id")
	case len(ids) > MaxSimilarSources:
		return hs.SimilarResult{}, hs.Errorf(hs.EINVALID, "search: similar takes at most %d files, got %d", MaxSimilarSources, len(ids))
	}
	rules := m.s.Rules()
	switch {
	case topK == 0:
		topK = rules.Defaults.TopK
	case topK < 0 || topK > rules.MaxTopK:
		return hs.SimilarResult{}, hs.Errorf(hs.EINVALID, "search: top_k must be between 1 and %d, got %d", rules.MaxTopK, topK)
	}
	sources, chunks, ver, err := m.sources(ctx, user, ids)
	if err != nil {
		return hs.SimilarResult{}, err
	}
	p := &plan{topK: topK, candidates: candidatesPerPage * rules.MaxTopK, match: newMatcher(analysis.Query{}), explain: true} // highlights nothing
	res := hs.SimilarResult{Verification: ver}
	for _, d := range sources {
		res.Sources = append(res.Sources, hs.SimilarSource{FileID: d.meta.ID, Title: d.meta.Title, Path: cmp.Or(d.path, d.meta.Path),
			MIME: d.meta.MIME, Type: d.meta.Type, Link: link.Document(m.s.baseURL, d.meta)})
	}
	exclude := map[hs.FileID]bool{}
	for _, d := range sources {
		exclude[d.meta.ID] = true
	}
	// The sources' own chunks are nearest to their mean: ask for enough
	// candidates that the others still fill a page.
	k := min(p.legK()+len(chunks), 500)
	var hits []hs.Hit
	var legs [3]legResult
	leg := 0 // its index in legOrder
	if vecs := sourceVectors(sources, chunks); len(vecs) > 0 && m.s.embed != nil {
		p.algorithm, p.weights, res.Space = hs.AlgorithmSemantic, hs.Weights{Semantic: 1}, hs.SpaceSemantic
		var base semanticBaseline
		hits, base, err = m.nearest(ctx, user, vecs, k)
		legs[0].base, p.semantic = base, base
		p.noCalibration = len(vecs) > 1
	} else {
		res.NoteCode, res.Note = hs.SimilarNoteSemanticOff, "No embedding model is configured, so the files' words were compared (keyword search)."
		if m.s.embed != nil {
			res.NoteCode, res.Note = hs.SimilarNoteNoEmbeddings, "These files have no embeddings yet, so their words were compared (keyword search)."
		}
		p.algorithm, p.weights, res.Space, leg = hs.AlgorithmKeyword, hs.Weights{Keyword: 1}, hs.SpaceKeyword, 1
		var q *sparseQuery
		if q, err = m.s.keywordQuery(ctx, analysis.QueryWords(sourceText(sources, chunks))); err == nil && len(q.vec.Indices) > 0 {
			hits, err = m.s.sparse.SearchSparse(ctx, user, vectorBM25, heaviest(q.vec, similarTerms), k, hs.Filter{})
		}
		// A document matches as far as its words score against the
		// sources' as the sources' own words do: the best score of a
		// source chunk is a full match.
		if q != nil {
			legs[1].sparse = &sparseQuery{vec: q.vec, full: selfScore(hits, exclude)}
		}
	}
	if err != nil {
		return hs.SimilarResult{}, fmt.Errorf("similar to %v: %w", ids, err)
	}
	hits = slices.DeleteFunc(hits, func(h hs.Hit) bool { return exclude[h.Point.File.ID] })
	res.Results = []hs.DocumentResult{}
	if len(hits) > 0 {
		legs[leg].leg, legs[leg].wanted, legs[leg].hits = p.algorithm, true, hits
		lists, _, err := p.lists(legs)
		if err != nil {
			return hs.SimilarResult{}, err
		}
		strong, weak := p.split(p.rank(lists, legs), legs, rules.WeakRelevance)
		res.WeakCount = len(weak)
		for _, part := range []struct {
			docs []*docGroup
			dst  *[]hs.DocumentResult
		}{{strong, &res.Results}, {weak, &res.Weaker}} {
			if len(part.docs) == 0 {
				continue
			}
			page, pv, err := m.s.page(ctx, user, part.docs, topK, "")
			if err != nil {
				return hs.SimilarResult{}, err
			}
			*part.dst = append(*part.dst, m.s.render(p, page)...)
			res.Verification.Checked += pv.Checked
			res.Verification.Dropped += pv.Dropped
			res.Verification.Unverified = append(res.Verification.Unverified, pv.Unverified...)
		}
	}
	res.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

// sources reads the first chunks of each file that user can read, with
// their vectors, and keeps the files Nextcloud confirms user can reach.
func (m *Similar) sources(ctx context.Context, user hs.UserID, ids []hs.FileID) ([]*docGroup, []hs.Point, hs.Verification, error) {
	var pids []string
	seen := map[hs.FileID]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		for no := range similarChunks {
			pids = append(pids, hs.PointID(id, no))
		}
	}
	points, err := m.vectors.PointsByID(ctx, user, pids)
	if err != nil {
		return nil, nil, hs.Verification{}, fmt.Errorf("similar: read the files' chunks: %w", err)
	}
	var docs []*docGroup
	at := map[hs.FileID]int{}
	for _, pt := range points {
		if _, ok := at[pt.File.ID]; !ok {
			at[pt.File.ID] = len(docs)
			docs = append(docs, &docGroup{meta: pt.File})
		}
	}
	if len(docs) > 0 {
		docs, ver, err := m.s.verify(ctx, user, docs, len(docs), "")
		if err != nil {
			return nil, nil, hs.Verification{}, err
		}
		kept := map[hs.FileID]bool{}
		for _, d := range docs {
			kept[d.meta.ID] = true
		}
		points = slices.DeleteFunc(points, func(pt hs.Point) bool { return !kept[pt.File.ID] })
		if len(docs) > 0 {
			return docs, points, ver, nil
		}
	}
	return nil, nil, hs.Verification{}, hs.Errorf(hs.ENOTFOUND, "search: %s not in the index for you: not indexed yet, not a type that is indexed, or not readable",
		plural(len(seen), "this file is", "these files are"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// meanDense is the normalised mean of the points' unit dense vectors, or
// nil when none has one (or their sizes differ).
func meanDense(points []hs.Point) []float32 {
	var sum []float64
	for _, pt := range points {
		if len(pt.Dense) == 0 {
			continue
		}
		if sum == nil {
			sum = make([]float64, len(pt.Dense))
		}
		if len(pt.Dense) != len(sum) {
			return nil
		}
		var norm float64
		for _, x := range pt.Dense {
			norm += float64(x) * float64(x)
		}
		if norm == 0 {
			continue
		}
		norm = math.Sqrt(norm)
		for i, x := range pt.Dense {
			sum[i] += float64(x) / norm
		}
	}
	if sum == nil {
		return nil
	}
	normalize(sum)
	out := make([]float32, len(sum))
	for i, x := range sum {
		out[i] = float32(x)
	}
	return out
}

// sourceText is what the keyword query of a similar search is made of:
// the sources' titles and their chunks' text, at most similarText runes.
func sourceText(sources []*docGroup, chunks []hs.Point) string {
	var b strings.Builder
	for _, d := range sources {
		b.WriteString(d.meta.Title)
		b.WriteString("\n")
	}
	for _, c := range chunks {
		b.WriteString(c.Chunk.Text)
		b.WriteString("\n")
	}
	runes := []rune(b.String())
	return string(runes[:min(len(runes), similarText)])
}

// nearest returns the chunks nearest to the sources' vectors (one per
// source file, the mean of its chunks), each judged against its own
// baseline over the user's chunks: chunks no nearer to any source than
// chance are no neighbours. With one source the hits keep their cosines
// and the baseline is that source's. With several, a chunk is as similar
// as it is to the source it is nearest to: its score is its best gap
// (semanticBaseline.gap), which the returned baseline (0) leaves as it
// is, so that a file like one of two unrelated sources is not diluted by
// the other.
func (m *Similar) nearest(ctx context.Context, user hs.UserID, vecs [][]float32, k int) ([]hs.Hit, semanticBaseline, error) {
	type answer struct {
		hits []hs.Hit
		base semanticBaseline
		err  error
	}
	answers := make([]answer, len(vecs))
	var wg sync.WaitGroup
	for i, vec := range vecs {
		wg.Go(func() {
			a := &answers[i]
			var baseErr error
			var bw sync.WaitGroup
			bw.Go(func() { a.base, baseErr = m.s.baseline(ctx, user, vec) })
			a.hits, a.err = m.s.dense.SearchDense(ctx, user, vec, k, hs.Filter{})
			bw.Wait()
			if baseErr != nil && ctx.Err() == nil {
				m.s.log.Warn("No semantic baseline for a similar search; its candidates are uncalibrated.", "user_id", user, slog.Any("error", baseErr))
			}
			a.hits = slices.DeleteFunc(a.hits, func(h hs.Hit) bool { return !a.base.keep(float64(h.Score)) })
		})
	}
	wg.Wait()
	for _, a := range answers {
		if a.err != nil {
			return nil, semanticBaseline{}, a.err
		}
	}
	if len(answers) == 1 {
		return answers[0].hits, answers[0].base, nil
	}
	best := map[ChunkKey]hs.Hit{}
	for _, a := range answers {
		for _, h := range a.hits {
			h.Score = float32(a.base.gap(float64(h.Score)))
			if old, ok := best[keyOf(h.Point)]; !ok || h.Score > old.Score {
				best[keyOf(h.Point)] = h
			}
		}
	}
	hits := slices.Collect(maps.Values(best))
	slices.SortFunc(hits, func(a, b hs.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), keyOf(a.Point).Compare(keyOf(b.Point)))
	})
	return hits, semanticBaseline{ok: true, minGap: answers[0].base.minGap}, nil
}

// sourceVectors returns each source's vector, the mean of its chunks'
// (meanDense); sources without embeddings have none.
func sourceVectors(sources []*docGroup, chunks []hs.Point) [][]float32 {
	var out [][]float32
	for _, d := range sources {
		var own []hs.Point
		for _, c := range chunks {
			if c.File.ID == d.meta.ID {
				own = append(own, c)
			}
		}
		if v := meanDense(own); v != nil {
			out = append(out, v)
		}
	}
	return out
}

// selfScore is the best score of a chunk of one of the sources: what a
// document as like the sources as they are themselves scores; 0 when no
// source chunk was among the hits.
func selfScore(hits []hs.Hit, sources map[hs.FileID]bool) float64 {
	var best float64
	for _, h := range hits {
		if sources[h.Point.File.ID] {
			best = max(best, float64(h.Score))
		}
	}
	return best
}

// heaviest keeps the n terms of v with the largest weights, in index order.
func heaviest(v hs.SparseVector, n int) hs.SparseVector {
	if len(v.Indices) <= n {
		return v
	}
	order := make([]int, len(v.Indices))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(v.Values[b], v.Values[a]), cmp.Compare(v.Indices[a], v.Indices[b]))
	})
	order = order[:n]
	slices.Sort(order)
	out := hs.SparseVector{Indices: make([]uint32, n), Values: make([]float32, n)}
	for j, i := range order {
		out.Indices[j], out.Values[j] = v.Indices[i], v.Values[i]
	}
	return out
}
