package qdranttest

import (
	"cmp"
	"context"
	"slices"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/protobuf/proto"

	"github.com/hybrid-search/hybridsearch/analysis"

	"github.com/hybrid-search/hybridsearch/store"
)

// Query answers a nearest-neighbour query on one named vector by brute
// force: dense vectors by cosine similarity (Cosine) or dot product (Dot),
// sparse vectors by dot product, weighted by store.IDF when the vector has
// the IDF modifier. Points without the vector, and for sparse vectors
// points sharing no index with the query, are not scored. Results are
// ordered by score, then id, after filter, score_threshold, offset and
// limit (default 10). Prefetch, fusion and every other query kind are
// unimplemented.
func (ps pointsService) Query(_ context.Context, req *qdrant.QueryPoints) (*qdrant.QueryResponse, error) {
	s := ps.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if len(req.GetPrefetch()) > 0 || req.LookupFrom != nil || req.ShardKeySelector != nil {
		return nil, unimplemented("query with prefetch, lookup_from or shard keys")
	}
	nearest, ok := req.GetQuery().GetVariant().(*qdrant.Query_Nearest)
	if !ok {
		return nil, unimplemented("query variant %T", req.GetQuery().GetVariant())
	}
	pts, err := c.matching(req.GetFilter())
	if err != nil {
		return nil, err
	}
	using := req.GetUsing()
	var scored []scoredPoint
	switch in := nearest.Nearest.GetVariant().(type) {
	case *qdrant.VectorInput_Dense:
		scored, err = c.scoreDense(using, in.Dense.GetData(), pts)
	case *qdrant.VectorInput_Sparse:
		scored, err = c.scoreSparse(using, in.Sparse, pts)
	default:
		return nil, unimplemented("nearest query input %T", in)
	}
	if err != nil {
		return nil, err
	}
	if req.ScoreThreshold != nil {
		scored = slices.DeleteFunc(scored, func(sp scoredPoint) bool { return sp.score < req.GetScoreThreshold() })
	}
	slices.SortFunc(scored, func(a, b scoredPoint) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.p.key, b.p.key))
	})
	off := min(int(req.GetOffset()), len(scored))
	scored = scored[off:min(len(scored), off+int(cmp.Or(req.GetLimit(), 10)))]
	resp := &qdrant.QueryResponse{}
	for _, sp := range scored {
		resp.Result = append(resp.Result, &qdrant.ScoredPoint{
			Id:      sp.p.id,
			Payload: sp.p.selectPayload(req.GetWithPayload(), false),
			Score:   sp.score,
			Vectors: sp.p.selectVectors(req.GetWithVectors()),
		})
	}
	return resp, nil
}

// QueryBatch answers several queries in one call, each as Query does, in
// order. The batch's collection applies to every query, as in Qdrant; one
// failing query fails the batch.
func (ps pointsService) QueryBatch(ctx context.Context, req *qdrant.QueryBatchPoints) (*qdrant.QueryBatchResponse, error) {
	resp := &qdrant.QueryBatchResponse{}
	for _, q := range req.GetQueryPoints() {
		q = proto.Clone(q).(*qdrant.QueryPoints)
		q.CollectionName = req.GetCollectionName()
		r, err := ps.Query(ctx, q)
		if err != nil {
			return nil, err
		}
		resp.Result = append(resp.Result, &qdrant.BatchResult{Result: r.GetResult()})
	}
	return resp, nil
}

// scoredPoint is a candidate of a query.
type scoredPoint struct {
	p     *point
	score float32
}

// scoreDense scores the points that have the dense vector using.
func (c *collection) scoreDense(using string, q []float32, pts []*point) ([]scoredPoint, error) {
	params := c.dense[using]
	if params == nil {
		return nil, invalid("Not existing vector name error: %s", using)
	}
	if uint64(len(q)) != params.GetSize() {
		return nil, invalid("Vector dimension error: expected dim: %d, got %d", params.GetSize(), len(q))
	}
	q = slices.Clone(q)
	switch params.GetDistance() {
	case qdrant.Distance_Cosine:
		analysis.Normalize(q)
	case qdrant.Distance_Dot:
	default:
		return nil, unimplemented("distance %s", params.GetDistance())
	}
	var out []scoredPoint
	for _, p := range pts {
		v, ok := p.dense[using]
		if !ok {
			continue
		}
		var dot float64
		for i := range v {
			dot += float64(q[i]) * float64(v[i])
		}
		out = append(out, scoredPoint{p, float32(dot)})
	}
	return out, nil
}

// scoreSparse scores the points whose sparse vector using shares an index
// with q. With the IDF modifier the statistics cover the whole collection,
// not only the filtered points, as in Qdrant.
func (c *collection) scoreSparse(using string, in *qdrant.SparseVector, pts []*point) ([]scoredPoint, error) {
	params := c.sparse[using]
	if params == nil {
		return nil, invalid("Not existing vector name error: %s", using)
	}
	q, err := checkSparse(in.GetIndices(), in.GetValues())
	if err != nil {
		return nil, err
	}
	weights := slices.Clone(q.values)
	if params.GetModifier() == qdrant.Modifier_Idf {
		total, df := 0, make([]int, len(q.indices))
		for _, p := range c.points {
			v := p.sparse[using]
			if len(v.indices) == 0 {
				continue
			}
			total++
			for i, ix := range q.indices {
				if _, ok := slices.BinarySearch(v.indices, ix); ok {
					df[i]++
				}
			}
		}
		for i := range weights {
			weights[i] *= float32(store.IDF(df[i], total))
		}
	}
	var out []scoredPoint
	for _, p := range pts {
		v, ok := p.sparse[using]
		if !ok {
			continue
		}
		var score float64
		shared := false
		for i, ix := range q.indices {
			if j, ok := slices.BinarySearch(v.indices, ix); ok {
				score += float64(weights[i]) * float64(v.values[j])
				shared = true
			}
		}
		if shared {
			out = append(out, scoredPoint{p, float32(score)})
		}
	}
	return out, nil
}
