package search

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// DenseSampler returns an even sample of the user's points with their
// vectors (local.Store and qdrant.Store: their first n points by id, which
// are hashes). When the DenseRetriever also implements it, the semantic
// leg measures each query against the user's own chunks (see
// semanticBaseline).
type DenseSampler interface {
	SamplePoints(ctx context.Context, user hs.UserID, n int, f hs.Filter) ([]hs.Point, error)
}

// Semantic leg calibration. Cosine similarities mean different things per
// model and per query: every text is somewhat similar to every other, and
// how much depends on the model (nomic-embed-text puts unrelated texts
// near 0.4, e5 models near 0.8, with everything between 0.7 and 1) and on
// the query (a long question shares more with any chunk than two rare
// words). So the semantic leg measures a chunk against the query's
// baseline, the median cosine between the query and the user's chunks
// (estimated on a sample of them), by its gap as a share of the way from
// the baseline to 1:
//
//	gap = (cos − baseline) / (1 − baseline)
//
// A model that crowds its cosines towards 1 (cos' = a + (1−a)·cos) leaves
// this share unchanged, so one threshold serves every model. A candidate
// with gap < SearchRules.SemanticMinGap is chance, not a match, and is
// dropped: on the CISI collection with the test embedder, the best chunk
// of random letters stands 0.07–0.13 above the baseline by this measure
// and the best chunk of every real query 0.24–0.54, the same with the
// embedder's cosines squeezed into 0.67–1 (TestSemanticGapIsModelFree).
// The gap is also the chunk's match (relevance): 0 at the baseline, 1 for
// the query's own text.
//
// A user with few chunks gives no baseline of their own: the query is
// then also compared with the app's reference texts (referenceTexts,
// embedded once per service), texts about everything and nothing in
// particular, which is what chance looks like for any model. Without
// them (an embedder that embeds queries only) the leg is uncalibrated: it
// keeps its candidates for the ranking, but they add no relevance, and a
// document only it found is a weak match (hs.WeakUncalibrated).
const (
	// semanticFullGap is where the semantic leg's weight in fusion would
	// reach its full value; from the minimum gap it grows linearly with
	// the best candidate's gap (confidence), to 0.35 of it for the
	// query's own text (gap 1). On CISI with the test embedder (hybrid
	// rrf nDCG@10; keyword alone 0.399), 1.0 gave 0.370, 1.6 0.396 and
	// 2.5 0.401: a leg whose best is a fair match cannot outvote exact
	// words.
	semanticFullGap = 2.5
	// baselineSample is how many of the user's chunks the baseline is
	// estimated on; with fewer than baselineOwn of their own the
	// reference texts are added, and fewer than baselineMin in all give
	// no baseline.
	baselineSample = 128
	baselineOwn    = 32
	baselineMin    = 8
	// baselineTTL is how long a user's sample is reused.
	baselineTTL = time.Minute
	// baselineUsers bounds the users whose samples are kept.
	baselineUsers = 256
)

// DocumentEmbedder embeds texts as documents (with the model's document
// prefix), as *embedding.Ollama does. When the QueryEmbedder also
// implements it, the semantic leg of a user with few chunks compares the
// query with the reference texts too.
type DocumentEmbedder interface {
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
}

// semanticBaseline holds the calibration of one query against the
// user's sampled chunks.
type semanticBaseline struct {
	ok        bool
	median    float64
	minGap    float64
	sampled   int // cosines the baseline is made of
	reference int // of them, reference texts
}

// gap returns how far cos stands above the baseline, as a share of the
// way to 1, in [0, 1]; 0 without a baseline, which cannot tell a match
// from chance. It is a semantic candidate's match.
func (b semanticBaseline) gap(cos float64) float64 {
	if !b.ok {
		return 0
	}
	return min(max((cos-b.median)/(1-b.median), 0), 1)
}

// match returns a semantic candidate's match in [0, 1].
func (b semanticBaseline) match(cos float64) float64 {
	return b.gap(cos)
}

// keep reports whether a candidate counts as a semantic match (every one
// does without a baseline).
func (b semanticBaseline) keep(cos float64) bool {
	return !b.ok || b.gap(cos) >= b.minGap
}

// confidence is the share of its weight the semantic leg keeps in fusion:
// 1 when its best candidate's gap is semanticFullGap, shrinking to 0 at
// the minimum gap. A leg whose best is barely above chance for this query
// (a flat cosine distribution) then barely moves the ranking, whatever
// the fusion method. Without a baseline it is 1.
func (b semanticBaseline) confidence(best float64) float64 {
	if !b.ok {
		return 1
	}
	return min(max((b.gap(best)-b.minGap)/(semanticFullGap-b.minGap), 0), 1)
}

// calibration describes how a candidate with this cosine compares with
// the baseline, for an explanation.
func (b semanticBaseline) calibration(cos float64) *hs.SemanticCalibration {
	c := &hs.SemanticCalibration{Cosine: cos, MinGap: b.minGap}
	if b.ok {
		c.Baseline, c.Gap, c.Sampled, c.Reference = b.median, b.gap(cos), b.sampled, b.reference
	}
	return c
}

// baseline calibrates the query vector vec on a sample of the user's
// chunks, with the reference texts when they are few; none when the store
// cannot sample, or with too few chunks to compare with.
func (s *Service) baseline(ctx context.Context, user hs.UserID, vec []float32) (semanticBaseline, error) {
	b := semanticBaseline{minGap: s.Rules().SemanticMinGap}
	var sample [][]float32
	if sampler, ok := s.dense.(DenseSampler); ok {
		var err error
		if sample, err = s.samples.get(ctx, user, sampler); err != nil {
			return b, err
		}
	}
	if len(sample) < baselineOwn {
		refs, err := s.refs.get(ctx, s.embed)
		if err != nil {
			s.log.Warn("Could not embed the reference texts; the semantic leg of users with few chunks is uncalibrated.", slog.Any("error", err))
		}
		b.reference = len(refs)
		sample = append(slices.Clip(sample), refs...)
	}
	if len(sample) < baselineMin {
		return b, nil
	}
	q := slices.Clone(vec)
	analysis.Normalize(q)
	cos := make([]float64, len(sample))
	for i, v := range sample {
		if len(v) != len(q) {
			return semanticBaseline{minGap: b.minGap}, nil // another model's vectors
		}
		var dot float64
		for j, x := range v {
			dot += float64(x) * float64(q[j])
		}
		cos[i] = dot
	}
	slices.Sort(cos)
	n := len(cos)
	b.ok, b.sampled, b.median = true, n, (cos[(n-1)/2]+cos[n/2])/2
	if b.median >= 1 {
		b.ok = false // every chunk is the query: nothing to measure by
	}
	return b, nil
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
