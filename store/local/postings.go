package local

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"slices"

	"github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// A sparse vector's postings are in two places: the tail, in memory, holds
// the postings of the points written since the last checkpoint; segments
// (segment.go), files mapped into memory, hold the others. Both keep each
// group's postings apart, so a search reads the postings of its user's
// groups only. A posting is current when its slot's owner (index.owner)
// is the tail or segment holding it; the postings of removed points stay
// where they are, skipped, until the tail is written to a segment or the
// segment is merged into another (compaction).
//
// A tail posting list is a byte string, one posting after the other in the
// order they were added, each
//
//	uvarint(delta<<2 | kind) [value]
//
// where delta is the slot minus the previous posting's slot (the first
// counts from 0) and kind says what the weight is: kindOne, 1, with no
// value (every trigram weight); kindTable, a uvarint index into the tail's
// table of weights (BM25 weights take a few thousand distinct values);
// kindRaw, 4 bytes of float32 once the table is full. A slot below the
// previous one (a reused slot) is preceded by kindRebase, which restarts
// the deltas from 0.
const (
	kindOne    = 0
	kindTable  = 1
	kindRaw    = 2
	kindRebase = 3
)

// maxWeights is the most distinct weights a table holds; later ones are
// stored raw.
const maxWeights = 1 << 16

// one is the bits of float32(1).
var one = math.Float32bits(1)

// postingList is one tail posting list.
type postingList struct {
	buf  []byte
	last int32 // slot of the last posting in buf, the next delta's base
}

// tailPost is the tail of one named sparse vector: posting lists by group
// and index.
type tailPost struct {
	lists    map[uint64]*postingList // tailKey(group, index)
	weights  []float32               // the table kindTable indexes
	weightID map[uint32]uint32
}

func newTailPost() tailPost {
	return tailPost{lists: make(map[uint64]*postingList), weightID: make(map[uint32]uint32)}
}

// tailKey is the key of group g's list of sparse index i.
func tailKey(g uint32, i uint32) uint64 { return uint64(g)<<32 | uint64(i) }

// add appends slot s's postings of v to group g's lists.
func (t *tailPost) add(g uint32, s int32, v hybridsearch.SparseVector) {
	for j, i := range v.Indices {
		k := tailKey(g, i)
		pl := t.lists[k]
		if pl == nil {
			pl = &postingList{}
			t.lists[k] = pl
		}
		pl.buf = t.appendPosting(pl.buf, &pl.last, s, v.Values[j])
	}
}

// appendPosting appends the posting (s, w) to buf, whose last slot is
// *last.
func (t *tailPost) appendPosting(buf []byte, last *int32, s int32, w float32) []byte {
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
	id, ok := t.weightID[bits]
	if !ok && len(t.weights) < maxWeights {
		id, ok = uint32(len(t.weights)), true
		t.weights = append(t.weights, w)
		t.weightID[bits] = id
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
func (t *tailPost) each(buf []byte, f func(s int32, w float32)) {
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
			if n <= 0 || id >= uint64(len(t.weights)) {
				return
			}
			i += n
			w = t.weights[id]
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

// purge drops the postings of the slots in dead (a bitset), rewriting
// each list that has any in slot order.
func (t *tailPost) purge(dead []uint64) {
	isDead := func(s int32) bool { w := int(s >> 6); return w < len(dead) && dead[w]&(1<<(s&63)) != 0 }
	type posting struct {
		s int32
		w float32
	}
	var keep []posting
	for key, pl := range t.lists {
		n := 0
		t.each(pl.buf, func(s int32, _ float32) {
			if isDead(s) {
				n++
			}
		})
		if n == 0 {
			continue
		}
		keep = keep[:0]
		t.each(pl.buf, func(s int32, w float32) {
			if !isDead(s) {
				keep = append(keep, posting{s, w})
			}
		})
		if len(keep) == 0 {
			delete(t.lists, key)
			continue
		}
		slices.SortFunc(keep, func(a, b posting) int { return cmp.Compare(a.s, b.s) })
		var buf []byte
		var last int32
		for _, p := range keep {
			buf = t.appendPosting(buf, &last, p.s, p.w)
		}
		pl.buf, pl.last = buf, last
	}
}

// docFreq counts, for one named sparse vector, the live points holding
// each index (IDF's n) and those with a non-empty vector (IDF's N), over
// all users.
type docFreq struct {
	n    map[uint32]int32
	docs int
}

func newDocFreq() docFreq { return docFreq{n: make(map[uint32]int32)} }

// add counts a new point's vector.
func (d *docFreq) add(v hybridsearch.SparseVector) {
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
