package qdrant

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// DefaultDocFreqTTL is how long Qdrant.SparseDocFreq reuses the statistics
// it read when Options.DocFreqTTL is zero: a few seconds, so a burst
// of searches costs one round trip while every process sharing the
// collection sees new documents soon.
const DefaultDocFreqTTL = 5 * time.Second

// docFreqBatch is the most indices read in one QueryBatch call.
const docFreqBatch = 256

// docFreqMaxCached bounds the indices cached per vector; past it the cache
// starts afresh.
const docFreqMaxCached = 1 << 16

// SparseDocFreq returns, for each index of the named sparse vector
// (VectorBM25 or VectorTrigram), the number of points whose vector holds
// it (n), and the number of points with that vector (N): the statistics of
// the IDF Qdrant applies in SearchSparse, over the whole collection (all
// users), as Local.SparseDocFreq does. It returns an EINVALID error for an
// unknown vector name and an EUNAVAILABLE error when Qdrant does not
// answer.
//
// Qdrant 1.17 has no call that returns document frequencies, so they are
// read back from its own scoring, which every process sharing the
// collection sees alike. With the IDF modifier a query {i: 1} scores a
// point p holding index i as idf(n_i, N) · v_i(p), where v_i(p) is p's
// stored value, idf(n, N) = ln(1 + (N − n + 0.5)/(n + 0.5)) and n_i is the
// length of i's posting lists summed over the segments (qdrant/qdrant
// v1.17: lib/segment/src/data_types/query_context.rs, remap_idf_weights
// and fancy_idf; the sparse index's fill_idf_statistics). One QueryBatch
// asks, for every index, for the best point without filter, limit 1, with
// its vector and no payload; idf_i = score / v_i(p), and n_i = (N + 1) ·
// e^(−idf_i) − 0.5, rounded; an index no point holds returns nothing, n =
// 0. N is counted exactly (Count with has_vector). The figures are exactly
// the IDF Qdrant weighs the next search with, including points deleted but
// not yet purged from an optimized segment, which an exact payload count
// would miss; nothing is stored for them. Answers are reused for
// Options.DocFreqTTL.
func (q *Store) SparseDocFreq(ctx context.Context, vector string, indices []uint32) ([]int, int, error) {
	if err := store.CheckSparseName(vector); err != nil {
		return nil, 0, err
	}
	c := q.docFreqCache(vector)
	df := make([]int, len(indices))
	missing, total, fresh := c.lookup(indices, df, time.Now(), q.dfTTL)
	if len(missing) == 0 && fresh {
		return df, total, nil
	}
	if !fresh {
		n, err := q.countVectors(ctx, vector)
		if err != nil {
			return nil, 0, err
		}
		total = n
	}
	got := make(map[uint32]int, len(missing))
	for start := 0; start < len(missing); start += docFreqBatch {
		part := missing[start:min(len(missing), start+docFreqBatch)]
		if err := q.readDocFreq(ctx, vector, part, total, got); err != nil {
			return nil, 0, err
		}
	}
	c.store(got, total, !fresh, time.Now())
	for i, ix := range indices {
		if n, ok := got[ix]; ok {
			df[i] = n
		}
	}
	return df, total, nil
}

// countVectors counts the points that have the named vector.
func (q *Store) countVectors(ctx context.Context, vector string) (int, error) {
	var n uint64
	err := q.call(ctx, "count "+vector+" vectors", func(ctx context.Context, c *qc.Client) (err error) {
		n, err = c.Count(ctx, &qc.CountPoints{
			CollectionName: q.collection,
			Filter:         &qc.Filter{Must: []*qc.Condition{qc.NewHasVector(vector)}},
			Exact:          qc.PtrOf(true),
		})
		return err
	})
	return int(n), err
}

// readDocFreq reads the document frequencies of indices (see
// SparseDocFreq) into got.
func (q *Store) readDocFreq(ctx context.Context, vector string, indices []uint32, total int, got map[uint32]int) error {
	reqs := make([]*qc.QueryPoints, len(indices))
	for i, ix := range indices {
		reqs[i] = &qc.QueryPoints{
			CollectionName: q.collection,
			Query:          qc.NewQuerySparse([]uint32{ix}, []float32{1}),
			Using:          qc.PtrOf(vector),
			Limit:          qc.PtrOf(uint64(1)),
			WithPayload:    qc.NewWithPayload(false),
			WithVectors:    qc.NewWithVectorsInclude(vector),
		}
	}
	var res []*qc.BatchResult
	err := q.call(ctx, "document frequencies of "+vector, func(ctx context.Context, c *qc.Client) (err error) {
		res, err = c.QueryBatch(ctx, &qc.QueryBatchPoints{CollectionName: q.collection, QueryPoints: reqs})
		return err
	})
	if err != nil {
		return err
	}
	if len(res) != len(indices) {
		return hs.Errorf(hs.EUNAVAILABLE, "store: qdrant document frequencies of %s: %d answers to %d queries", vector, len(res), len(indices))
	}
	for i, ix := range indices {
		got[ix] = 0
		pts := res[i].GetResult()
		if len(pts) == 0 {
			continue
		}
		got[ix] = docFreqOf(pts[0].GetScore(), sparseOf(pts[0].GetVectors().GetVectors().GetVectors()[vector]), ix, total)
	}
	return nil
}

// docFreqOf inverts Qdrant's IDF: the number of points holding index ix,
// given the score of the query {ix: 1} on a point whose vector is v, among
// total points. It is at least 1 (a point holds ix) and at most total.
func docFreqOf(score float32, v hs.SparseVector, ix uint32, total int) int {
	j, ok := slices.BinarySearch(v.Indices, ix)
	if !ok || v.Values[j] <= 0 || score <= 0 {
		return 1
	}
	idf := float64(score) / float64(v.Values[j])
	n := math.Round(float64(total+1)*math.Exp(-idf) - 0.5)
	return int(min(max(n, 1), float64(max(total, 1))))
}

// docFreqCache holds the document frequencies of one sparse vector read
// within the TTL, and the vector count they were read with.
type docFreqCache struct {
	mu    sync.Mutex
	at    time.Time
	total int
	df    map[uint32]int
}

// docFreqCache returns the cache of a vector, creating it.
func (q *Store) docFreqCache(vector string) *docFreqCache {
	q.dfMu.Lock()
	defer q.dfMu.Unlock()
	if q.dfCache == nil {
		q.dfCache = make(map[string]*docFreqCache)
	}
	c := q.dfCache[vector]
	if c == nil {
		c = &docFreqCache{}
		q.dfCache[vector] = c
	}
	return c
}

// lookup fills df with the cached counts of indices and returns the
// indices not cached (each once), the cached vector count, and whether the
// cache is still fresh (when it is not, every index is missing).
func (c *docFreqCache) lookup(indices []uint32, df []int, now time.Time, ttl time.Duration) (missing []uint32, total int, fresh bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fresh = c.df != nil && now.Sub(c.at) < ttl
	seen := make(map[uint32]bool, len(indices))
	for i, ix := range indices {
		if n, ok := c.df[ix]; ok && fresh {
			df[i] = n
			continue
		}
		if !seen[ix] {
			seen[ix] = true
			missing = append(missing, ix)
		}
	}
	return missing, c.total, fresh
}

// store adds counts read with the vector count total; renew starts a new
// period of freshness with them. Counts read in a period that has since
// been renewed are dropped.
func (c *docFreqCache) store(got map[uint32]int, total int, renew bool, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case renew:
		c.df, c.at, c.total = make(map[uint32]int, len(got)), now, total
	case c.df == nil || total != c.total:
		return
	case len(c.df)+len(got) > docFreqMaxCached:
		clear(c.df)
	}
	for ix, n := range got {
		c.df[ix] = n
	}
}
