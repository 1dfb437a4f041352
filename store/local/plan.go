package local

import (
	"fmt"
	"slices"
	"sync"

	hs "github.com/hybrid-search/hybridsearch"
)

// plan is what an op will do to the index, worked out by prepare before the
// op is logged: everything that reads or writes files (the records of the
// points it removes, the dense rows of those it adds), so that apply only
// changes memory and cannot fail once the op is in the log.
type plan struct {
	dim    int                 // the dimension the op fixes, 0 if none
	gone   []int32             // slots of the points it removes, sorted
	dec    [2]map[uint32]int32 // their postings per sparse index, by vector
	docs   [2]int              // how many of them have a non-empty vector, by vector
	unhash []hashSlot          // their entries in index.hashes
	slots  []int32             // the slots of o.points, in order
	reuse  int                 // how many of slots come off the end of index.free
	ids    []pointID           // o.points' ids
	qrows  []quantRow          // o.points' int8 row descriptions
	buf    []byte              // scratch for records
	q8     []int8              // scratch for an int8 row
}

// hashSlot is an entry of index.hashes.
type hashSlot struct {
	key  uint64
	slot int32
}

// prepare works out the plan of o against the current state: it reads the
// records of the points o removes and writes the dense rows of those it
// adds into slots no search reads yet. It takes lk (Store.mu, nil while
// loading) only to grow the row files. An error leaves the index as it
// was.
func (x *index) prepare(o *op, lk sync.Locker) (*plan, error) {
	p := &plan{}
	if o.kind == opMeta {
		return p, nil
	}
	if o.kind == opWrite || o.kind == opUpsert {
		if err := x.checkDim(o); err != nil {
			return nil, err
		}
	}
	if f := x.files[o.meta.ID]; f != nil {
		p.gone = x.removed(f, o)
		if err := x.readRemoved(p); err != nil {
			return nil, err
		}
	}
	if o.kind != opWrite && o.kind != opUpsert || len(o.points) == 0 {
		return p, nil
	}
	if err := x.allocate(o, p, lk); err != nil {
		return nil, err
	}
	return p, nil
}

// removed returns the slots of f's points that o removes, sorted.
func (x *index) removed(f *fileRec, o *op) []int32 {
	var gone []int32
	switch o.kind {
	case opWrite, opDelete:
		gone = slices.Clone(f.slots)
	case opTrim:
		for _, s := range f.points {
			if int(x.nos[s]) >= o.keep {
				gone = append(gone, s)
			}
		}
	case opUpsert:
		i := 0 // f.points and o.points are both in chunk order
		for _, s := range f.points {
			no := int(x.nos[s])
			for i < len(o.points) && o.points[i].chunk.No < no {
				i++
			}
			if i < len(o.points) && o.points[i].chunk.No == no {
				gone = append(gone, s)
			}
		}
	}
	slices.Sort(gone)
	return gone
}

// readRemoved reads the records of p.gone for what removing them takes
// off the posting lists and the hash lists.
func (x *index) readRemoved(p *plan) error {
	if len(p.gone) == 0 {
		return nil
	}
	for i := range p.dec {
		p.dec[i] = make(map[uint32]int32)
	}
	for _, s := range p.gone {
		rec, err := x.recs.read(x.locs[s], true, p.buf)
		if err != nil {
			return err
		}
		p.buf = rec
		var nonEmpty [2]bool
		d := decoder{b: rec}
		h := d.pointTerms(func(v int, i uint32) {
			p.dec[v][i]++
			nonEmpty[v] = true
		})
		if d.err != nil {
			return fmt.Errorf("store: record of file %d chunk %d: %w", x.file[s].meta.ID, x.nos[s], d.err)
		}
		for v, ok := range nonEmpty {
			if ok {
				p.docs[v]++
			}
		}
		if x.dense[s] && h != "" {
			p.unhash = append(p.unhash, hashSlot{x.hashKey(h), s})
		}
	}
	if cap(p.buf) > 1<<20 {
		p.buf = nil
	}
	return nil
}

// allocate chooses the slots of o's points (free ones first, from the
// end of the free list, as link takes them), grows the row files for them
// and writes their dense rows.
func (x *index) allocate(o *op, p *plan, lk sync.Locker) error {
	n := len(o.points)
	p.reuse = min(n, len(x.free))
	p.slots = make([]int32, n)
	p.ids = make([]pointID, n)
	p.qrows = make([]quantRow, n)
	for i := range p.reuse {
		p.slots[i] = x.free[len(x.free)-1-i]
	}
	for i := p.reuse; i < n; i++ {
		p.slots[i] = int32(len(x.file) + i - p.reuse)
	}
	dim := x.dim
	for i, pt := range o.points {
		id, ok := parsePointID(pt.id)
		if !ok {
			return hs.Errorf(hs.EINVALID, "store: point id %q of file %d is not a point id", pt.id, o.meta.ID)
		}
		p.ids[i] = id
		if pt.dense != nil && dim == 0 {
			dim, p.dim = len(pt.dense), len(pt.dense)
		}
	}
	if dim == 0 {
		return nil
	}
	if err := x.openRows(dim); err != nil {
		return err
	}
	if need := len(x.file) + n - p.reuse; need > x.vec.rows() {
		if lk != nil {
			lk.Lock()
		}
		err := x.reserveRows(need)
		if lk != nil {
			lk.Unlock()
		}
		if err != nil {
			return err
		}
	}
	p.q8 = slices.Grow(p.q8[:0], dim)[:dim]
	for i, pt := range o.points {
		if pt.dense == nil {
			continue
		}
		s := int(p.slots[i])
		if err := x.vec.write(s, float32Bytes(pt.dense)); err != nil {
			return err
		}
		p.qrows[i] = quantize(pt.dense, p.q8)
		if err := x.vec8.write(s, int8Bytes(p.q8)); err != nil {
			return err
		}
	}
	return nil
}
