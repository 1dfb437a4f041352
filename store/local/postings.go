package local

import (
	"context"

	"github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// purgeMin is the least number of dead slots worth a purge.
const purgeMin = 1024

// posting is one point's weight for one sparse index.
type posting struct {
	slot int32
	w    float32
}

// postingList is the postings of one sparse index.
type postingList struct {
	ps   []posting // unordered; includes dead slots' postings until a purge
	live int       // postings of live points: IDF's n
}

// invIndex is the inverted index of one named sparse vector.
type invIndex struct {
	postings map[uint32]*postingList
	docs     int // points with a non-empty vector: IDF's N
}

// add indexes slot s's sparse vector: postings are appended, so lists are
// in no particular order.
func (ix *invIndex) add(s int32, v hybridsearch.SparseVector) {
	if len(v.Indices) == 0 {
		return
	}
	ix.docs++
	for j, i := range v.Indices {
		pl := ix.postings[i]
		if pl == nil {
			pl = &postingList{}
			ix.postings[i] = pl
		}
		pl.ps = append(pl.ps, posting{slot: s, w: v.Values[j]})
		pl.live++
	}
}

// remove unindexes slot s's sparse vector lazily: its postings stay until
// purge, uncounted in IDF and unreachable by searches (a dead slot is in no
// user's list), and the slot is not reused before then. A list with no live
// posting left is dropped at once.
func (ix *invIndex) remove(v hybridsearch.SparseVector) {
	if len(v.Indices) == 0 {
		return
	}
	ix.docs--
	for _, i := range v.Indices {
		if pl := ix.postings[i]; pl != nil {
			if pl.live--; pl.live == 0 {
				delete(ix.postings, i)
			}
		}
	}
}

// purge drops the postings of the dead slots (a bitmap).
func (ix *invIndex) purge(dead []uint64) {
	for _, pl := range ix.postings {
		out := pl.ps[:0]
		for _, p := range pl.ps {
			if dead[p.slot>>6]&(1<<(p.slot&63)) == 0 {
				out = append(out, p)
			}
		}
		clear(pl.ps[len(out):])
		pl.ps = out
	}
}

// purgeDead purges the postings of dead slots once there are enough of
// them to pay for a pass over every posting list, and frees the slots.
func (x *index) purgeDead() {
	if len(x.dead) < max(purgeMin, len(x.slots)/8) {
		return
	}
	bits := make([]uint64, (len(x.slots)+63)/64)
	for _, s := range x.dead {
		bits[s>>6] |= 1 << (s & 63)
	}
	for i := range x.sparse {
		x.sparse[i].purge(bits)
	}
	x.free = append(x.free, x.dead...)
	x.dead = x.dead[:0]
}

// SparseDocFreq returns, for each index of the named sparse vector
// (VectorBM25 or VectorTrigram), the number of points whose vector holds
// it, and the number of points with a non-empty vector of that name: the
// n_i and N of IDF, counted over all users, as SearchSparse uses them. It
// returns an EINVALID error for an unknown vector name.
func (l *Store) SparseDocFreq(ctx context.Context, vector string, indices []uint32) ([]int, int, error) {
	if err := l.readable(ctx); err != nil {
		return nil, 0, wrap(err, "store: sparse document frequencies")
	}
	if err := store.CheckSparseName(vector); err != nil {
		return nil, 0, err
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	ix := l.idx.sparseIndex(vector)
	df := make([]int, len(indices))
	for i, id := range indices {
		if pl := ix.postings[id]; pl != nil {
			df[i] = pl.live
		}
	}
	return df, ix.docs, nil
}
