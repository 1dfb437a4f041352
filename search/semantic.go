package search

import (
	"context"
	"slices"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// DenseSampler returns an even sample of the user's points with their
// vectors (local.Store and store.Qdrant: their first n points by id, which
// are hashes). When the DenseRetriever also implements it, the semantic
// leg measures each query against the user's own chunks (see
// semanticBaseline).
type DenseSampler interface {
	SamplePoints(ctx context.Context, user hs.UserID, n int, f hs.Filter) ([]hs.Point, error)
}

// Semantic leg calibration. Cosine similarities mean different things per
// model and per query: every text is somewhat similar to every other, and
// how much depends on the model (nomic-embed-text puts unrelated texts
// near 0.4) and on the query (a long question shares more with any chunk
// than two rare words). So the semantic leg measures a chunk by its gap
// over the query's baseline, the median cosine between the query and the
// user's chunks (estimated on a sample of them):
//
//	gap = cos − baseline
//
// A candidate with gap < semanticMinGap is chance, not a match, and is
// dropped: random letters embed near nothing in particular, so their best
// neighbour stands out by 0.10–0.12 over the baseline with the test
// embedder, while the best hit of every CISI query stands out by more
// than 0.18 (0.23 median). The chunk's match (relevance) is gap / (1 −
// baseline), 0 at the baseline and 1 for the query's own text.
const (
	semanticMinGap = 0.15
	// semanticFullGap is the best candidate's gap at which the semantic
	// leg counts with its full weight; below it the leg's weight shrinks
	// linearly to 0 at semanticMinGap (confidence). 1 is the gap of the
	// query's own text over a baseline of 0; on CISI, where the test
	// embedder's best hits stand 0.18–0.29 above the baseline, 0.6 still
	// left hybrid rrf 0.005 nDCG@10 below keyword alone, 1.0 puts it
	// 0.010 above.
	semanticFullGap = 1.0
	// baselineSample is how many of the user's chunks the baseline is
	// estimated on, and baselineMin the fewest it needs: with fewer
	// chunks there is no baseline, the semantic leg keeps every candidate
	// at full weight and its match is the cosine.
	baselineSample = 128
	baselineMin    = 8
	// baselineTTL is how long a user's sample is reused.
	baselineTTL = time.Minute
	// baselineUsers bounds the users whose samples are kept.
	baselineUsers = 256
)

// semanticBaseline holds the baseline of one query: the median cosine
// between it and the user's sampled chunks.
type semanticBaseline struct {
	ok     bool
	median float64
}

// gap returns how far a cosine stands above the baseline (the cosine
// itself without one).
func (b semanticBaseline) gap(cos float64) float64 {
	if !b.ok {
		return cos
	}
	return cos - b.median
}

// match returns a semantic candidate's match in [0, 1].
func (b semanticBaseline) match(cos float64) float64 {
	if !b.ok {
		return min(max(cos, 0), 1)
	}
	return min(max((cos-b.median)/(1-b.median), 0), 1)
}

// keep reports whether a candidate counts as a semantic match.
func (b semanticBaseline) keep(cos float64) bool {
	return !b.ok || b.gap(cos) >= semanticMinGap
}

// semanticConfidence is the share of its weight the semantic leg keeps in
// fusion: 1 when its best candidate stands out from the baseline by
// semanticFullGap or more, shrinking to 0 at semanticMinGap. A leg whose
// best is barely above chance for this query (a flat cosine distribution)
// then barely moves the ranking, whatever the fusion method. Without a
// baseline it is 1.
func (b semanticBaseline) confidence(best float64) float64 {
	if !b.ok {
		return 1
	}
	return min(max((b.gap(best)-semanticMinGap)/(semanticFullGap-semanticMinGap), 0), 1)
}

// baseline estimates the query's baseline on a sample of the user's
// chunks; none when the store cannot sample or holds too few chunks.
func (s *Service) baseline(ctx context.Context, user hs.UserID, vec []float32) (semanticBaseline, error) {
	sampler, ok := s.dense.(DenseSampler)
	if !ok {
		return semanticBaseline{}, nil
	}
	sample, err := s.samples.get(ctx, user, sampler)
	if err != nil || len(sample) < baselineMin {
		return semanticBaseline{}, err
	}
	q := slices.Clone(vec)
	analysis.Normalize(q)
	cos := make([]float64, len(sample))
	for i, v := range sample {
		if len(v) != len(q) {
			return semanticBaseline{}, nil // another model's vectors
		}
		var dot float64
		for j, x := range v {
			dot += float64(x) * float64(q[j])
		}
		cos[i] = dot
	}
	slices.Sort(cos)
	n := len(cos)
	return semanticBaseline{ok: true, median: (cos[(n-1)/2] + cos[n/2]) / 2}, nil
}

// sampleCache keeps each user's sampled unit vectors for baselineTTL.
type sampleCache struct {
	mu    sync.Mutex
	users map[hs.UserID]userSample
	now   func() time.Time
}

type userSample struct {
	at   time.Time
	vecs [][]float32
}

// get returns the user's sampled dense vectors (unit length), sampling
// anew when the cached ones are older than baselineTTL.
func (c *sampleCache) get(ctx context.Context, user hs.UserID, sampler DenseSampler) ([][]float32, error) {
	now := c.now()
	c.mu.Lock()
	u, ok := c.users[user]
	c.mu.Unlock()
	if ok && now.Sub(u.at) < baselineTTL {
		return u.vecs, nil
	}
	pts, err := sampler.SamplePoints(ctx, user, baselineSample, hs.Filter{})
	if err != nil {
		return nil, err
	}
	vecs := make([][]float32, 0, len(pts))
	for _, p := range pts {
		if len(p.Dense) == 0 {
			continue
		}
		v := slices.Clone(p.Dense)
		analysis.Normalize(v)
		vecs = append(vecs, v)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users == nil || len(c.users) >= baselineUsers {
		c.users = make(map[hs.UserID]userSample)
	}
	c.users[user] = userSample{at: now, vecs: vecs}
	return vecs, nil
}
