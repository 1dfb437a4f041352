package local

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// purgeMin is the least number of dead slots worth a purge.
const purgeMin = 1024

// A posting list is a byte string, one posting after the other in the
// order they were added, each
//
//	uvarint(delta<<2 | kind) [value]
//
// where delta is the slot minus the previous posting's slot (the first
// counts from 0) and kind says what the weight is: kindOne, 1, with no
// value (every trigram weight); kindTable, a uvarint index into the
// inverted index's table of weights (BM25 weights take a few thousand
// distinct values); kindRaw, 4 bytes of float32 once the table is full. A
// slot below the previous one (a reused slot) is preceded by kindRebase,
// which restarts the deltas from 0. A trigram posting takes a byte or two
// and a BM25 posting three or four, against 8 bytes for a slot and a
// float32.
const (
	kindOne    = 0
	kindTable  = 1
	kindRaw    = 2
	kindRebase = 3
)

// maxWeights is the most distinct weights an inverted index tables; later
// ones are stored raw.
const maxWeights = 1 << 16

// one is the bits of float32(1).
var one = math.Float32bits(1)

// postingList is the postings of one sparse index.
type postingList struct {
	buf  []byte // postings, dead slots' included until a purge
	last int32  // slot of the last posting in buf, the next delta's base
	live int32  // postings of live points: IDF's n
}

// invIndex is the inverted index of one named sparse vector.
type invIndex struct {
	postings map[uint32]*postingList
	docs     int       // points with a non-empty vector: IDF's N
	weights  []float32 // the table kindTable indexes
	weightID map[uint32]uint32
}

func newInvIndex() invIndex {
	return invIndex{postings: make(map[uint32]*postingList), weightID: make(map[uint32]uint32)}
}

// add indexes slot s's sparse vector.
func (ix *invIndex) add(s int32, v hs.SparseVector) {
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
		pl.buf = ix.appendPosting(pl.buf, &pl.last, s, v.Values[j])
		pl.live++
	}
}

// appendPosting appends the posting (s, w) to buf, whose last slot is
// *last.
func (ix *invIndex) appendPosting(buf []byte, last *int32, s int32, w float32) []byte {
	if s < *last {
		buf = append(buf, kindRebase)
		*last = 0
	}
	delta := uint64(s-*last) << 2
	*last = s
	bits := math.Float32bits(w)
	if bits == one {
		return binary.AppendUvarint(buf, delta|kindOne)
	}
	id, ok := ix.weightID[bits]
	if !ok && len(ix.weights) < maxWeights {
		id, ok = uint32(len(ix.weights)), true
		ix.weights = append(ix.weights, w)
		ix.weightID[bits] = id
	}
	if ok {
		buf = binary.AppendUvarint(buf, delta|kindTable)
		return binary.AppendUvarint(buf, uint64(id))
	}
	buf = binary.AppendUvarint(buf, delta|kindRaw)
	return binary.LittleEndian.AppendUint32(buf, bits)
}

// each calls f with every posting of buf in order. It stops at the first
// malformed posting, which only a bug could write.
func (ix *invIndex) each(buf []byte, f func(s int32, w float32)) {
	var s int32
	for i := 0; i < len(buf); {
		h, n := binary.Uvarint(buf[i:])
		if n <= 0 {
			return
		}
		i += n
		w := float32(1)
		switch h & 3 {
		case kindRebase:
			s = 0
			continue
		case kindTable:
			id, n := binary.Uvarint(buf[i:])
			if n <= 0 || id >= uint64(len(ix.weights)) {
				return
			}
			i += n
			w = ix.weights[id]
		case kindRaw:
			if i+4 > len(buf) {
				return
			}
			w = math.Float32frombits(binary.LittleEndian.Uint32(buf[i:]))
			i += 4
		}
		s += int32(h >> 2)
		f(s, w)
	}
}

// remove takes the terms of points being removed off the live counts:
// dec holds how many of them each index has, docs how many have a
// non-empty vector. Their postings stay until purge, uncounted in IDF and
// unreachable by searches (a dead slot is in no user's list), and the
// slots are not reused before then. A list with no live posting left is
// dropped at once.
func (ix *invIndex) remove(dec map[uint32]int32, docs int) {
	ix.docs -= docs
	for i, n := range dec {
		if pl := ix.postings[i]; pl != nil {
			if pl.live -= n; pl.live <= 0 {
				delete(ix.postings, i)
			}
		}
	}
}

// purge drops the postings of the dead slots (a bitmap), rewriting each
// list that has any in slot order and to its exact size.
func (ix *invIndex) purge(dead []uint64) {
	isDead := func(s int32) bool { return dead[s>>6]&(1<<(s&63)) != 0 }
	type posting struct {
		s int32
		w float32
	}
	var keep []posting
	for _, pl := range ix.postings {
		n := 0
		ix.each(pl.buf, func(s int32, _ float32) {
			if isDead(s) {
				n++
			}
		})
		if n == 0 {
			continue
		}
		keep = keep[:0]
		ix.each(pl.buf, func(s int32, w float32) {
			if !isDead(s) {
				keep = append(keep, posting{s, w})
			}
		})
		slices.SortFunc(keep, func(a, b posting) int { return cmp.Compare(a.s, b.s) })
		var buf []byte
		var last int32
		for _, p := range keep {
			buf = ix.appendPosting(buf, &last, p.s, p.w)
		}
		pl.buf, pl.last = buf, last
	}
}

// purgeDead purges the postings of dead slots once there are enough of
// them to pay for a pass over every posting list, and frees the slots.
func (x *index) purgeDead() {
	if len(x.dead) < max(purgeMin, len(x.file)/8) {
		return
	}
	bits := make([]uint64, (len(x.file)+63)/64)
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
	ix := x.sparseIndex(vector)
	df := make([]int, len(indices))
	for i, id := range indices {
		if pl := ix.postings[id]; pl != nil {
			df[i] = int(pl.live)
		}
	}
	return df, ix.docs, nil
}
