package local

import (
	"context"
	"math"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// A sparse vector's postings are in two places. The tail, in memory,
// holds the points written since it was last written out: each keeps its
// sparse vectors (a tailDoc), and a search scores the tail's points of its
// user's groups one by one against the query. When the tail holds
// tailFlush points, or at a checkpoint, it is written out as a segment
// (segment.go): a file mapped into memory whose postings are grouped by
// group and index, where a search reads its user's groups' lists only. A
// point's postings are current where its owner (index.owner) says: a
// segment's id, or tailOwner of its place in the tail; the postings of
// removed points stay where they are, skipped, until their segment is
// merged into another (merge.go).

// tailFlush is how many points the tail holds before it is written out:
// scoring them one by one stays well under a millisecond. Tests lower it.
var tailFlush = 4096

// tailDoc is a point in the tail: its slot and sparse vectors (bm25,
// trigram).
type tailDoc struct {
	slot int32
	vecs [2]hs.SparseVector
}

// tailOwner is the owner of the postings of the tail point at pos.
func tailOwner(pos int) int32 { return -int32(pos) - 1 }

// one is the bits of float32(1).
var one = math.Float32bits(1)

// maxWeights is the most distinct weights a segment's table holds; later
// ones are stored raw.
const maxWeights = 1 << 16

// docFreq counts, for one named sparse vector, the live points holding
// each index (IDF's n) and those with a non-empty vector (IDF's N), over
// all users.
type docFreq struct {
	n    map[uint32]int32
	docs int
}

func newDocFreq() docFreq { return docFreq{n: make(map[uint32]int32)} }

// add counts a new point's vector.
func (d *docFreq) add(v hs.SparseVector) {
	if len(v.Indices) == 0 {
		return
	}
	d.docs++
	for _, i := range v.Indices {
		d.n[i]++
	}
}

// remove takes removed points off the counts: dec holds how many of them
// hold each index, docs how many have a non-empty vector.
func (d *docFreq) remove(dec map[uint32]int32, docs int) {
	d.docs -= docs
	for i, n := range dec {
		if d.n[i] -= n; d.n[i] <= 0 {
			delete(d.n, i)
		}
	}
}

// SparseDocFreq returns, for each index of the named sparse vector
// (store.VectorBM25 or store.VectorTrigram), the number of points whose
// vector holds it, and the number of points with a non-empty vector of
// that name: the n_i and N of IDF, counted over all users, as SearchSparse
// uses them. It returns an EINVALID error for an unknown vector name.
func (l *Store) SparseDocFreq(ctx context.Context, vector string, indices []uint32) ([]int, int, error) {
	x, err := l.rlock(ctx)
	if err != nil {
		return nil, 0, wrap(err, "store: sparse document frequencies")
	}
	defer l.mu.RUnlock()
	if err := store.CheckSparseName(vector); err != nil {
		return nil, 0, err
	}
	d := &x.df[vectorNo(vector)]
	df := make([]int, len(indices))
	for i, id := range indices {
		df[i] = int(d.n[id])
	}
	return df, d.docs, nil
}
