package local

import (
	"fmt"
	"slices"
	"sync"

	hs "github.com/hybrid-search/hybridsearch"
)

// plan is what an op will do to the index, worked out by prepare before the
// op is logged: everything that reads or writes files (the records of the
// points it removes or moves, the dense rows of those it adds or moves),
// so that apply only changes memory and cannot fail once the op is in the
// log.
type plan struct {
	dim      int                 // the dimension the op fixes, 0 if none
	gone     []int32             // slots of the points it removes or moves away, sorted
	dec      [2]map[uint32]int32 // the removed points' terms per sparse vector
	docs     [2]int              // how many removed points have a non-empty vector, by vector
	unhash   []hashSlot          // entries of index.hashes of the gone slots
	moveFrom []int32             // slots of points that move to new slots (another group), chunk order
	moved    []movedPoint        // what moving them carries over, by moveFrom
	slots    []int32             // new slots: the moved points', then o.points', in order
	reuse    int                 // how many of slots come off the end of index.free
	ids      []pointID           // o.points' ids
	qrows    []quantRow          // o.points' int8 row descriptions
	buf      []byte              // scratch for records
	q8       []int8              // scratch for an int8 row
}

// movedPoint is a point moving to a new slot with its file's new readers:
// its record stays where it is, its rows are copied, its postings and
// hash entry are made anew.
type movedPoint struct {
	id            pointID
	no            int32
	loc           recLoc
	qrow          quantRow
	dense         bool
	hash          uint64 // hash key, 0 for none
	bm25, trigram hs.SparseVector
}

// hashSlot is an entry of index.hashes.
type hashSlot struct {
	key  uint64
	slot int32
}

// prepare works out the plan of o against the current state: it reads the
// records of the points o removes or moves and writes the dense rows of
// those it adds or moves into slots no search reads. It takes lk
// (Store.mu, nil while loading) only to grow the row files. An error
// leaves the index as it was.
func (x *index) prepare(o *op, lk sync.Locker) (*plan, error) {
	p := &plan{}
	f := x.files[o.meta.ID]
	if o.kind == opMeta {
		if f != nil && groupKey(o.meta.Readers) != f.group.key {
			p.gone = slices.Clone(f.slots)
			if err := x.planMove(f, f.points, p); err != nil {
				return nil, err
			}
			return p, x.allocate(o, p, lk)
		}
		return p, nil
	}
	if o.kind == opWrite || o.kind == opUpsert {
		if err := x.checkDim(o); err != nil {
			return nil, err
		}
	}
	if f != nil {
		removed := x.removed(f, o)
		if err := x.readRemoved(removed, p); err != nil {
			return nil, err
		}
		p.gone = removed
		if o.kind == opUpsert && len(o.points) > 0 && groupKey(o.meta.Readers) != f.group.key {
			// The file's other points move with it to its new readers.
			var stay []int32
			for _, s := range f.points {
				if _, ok := slices.BinarySearch(removed, s); !ok {
					stay = append(stay, s)
				}
			}
			if err := x.planMove(f, stay, p); err != nil {
				return nil, err
			}
			p.gone = addSlots(slices.Clone(removed), slices.Sorted(slices.Values(stay)))
		}
	}
	if o.kind != opWrite && o.kind != opUpsert || len(o.points) == 0 && len(p.moveFrom) == 0 {
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

// readRemoved reads the records of the removed slots for what removing
// them takes off the document frequencies and the hash chains.
func (x *index) readRemoved(removed []int32, p *plan) error {
	if len(removed) == 0 {
		return nil
	}
	for i := range p.dec {
		p.dec[i] = make(map[uint32]int32)
	}
	for _, s := range removed {
		rec, err := x.recs.read(x.locs[s], true, p.buf)
		if err != nil {
			return err
		}
		p.buf = rec
		var nonEmpty [2]bool
		d := decoder{b: rec, compact: x.recs.compact(x.locs[s])}
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

// planMove reads what moving the slots from (chunk order) of f to new
// slots carries over: their sparse vectors and hashes from their records,
// the rest from the index.
func (x *index) planMove(f *fileRec, from []int32, p *plan) error {
	p.moveFrom = slices.Clone(from)
	p.moved = make([]movedPoint, len(from))
	for i, s := range from {
		rec, err := x.recs.read(x.locs[s], true, p.buf)
		if err != nil {
			return err
		}
		p.buf = rec
		in, err := decodeRecord(rec, f.meta.ID, x.recs.compact(x.locs[s]))
		if err != nil {
			return fmt.Errorf("store: record of file %d chunk %d: %w", f.meta.ID, x.nos[s], err)
		}
		mv := movedPoint{id: x.ids[s], no: x.nos[s], loc: x.locs[s], qrow: x.qrow[s], dense: x.dense[s], bm25: in.bm25, trigram: in.trigram}
		if mv.dense && in.chunk.Hash != "" {
			mv.hash = x.hashKey(in.chunk.Hash)
			p.unhash = append(p.unhash, hashSlot{mv.hash, s})
		}
		p.moved[i] = mv
	}
	return nil
}

// allocate chooses the slots of the moved points and o's points (free
// ones first, from the end of the free list, as take takes them), grows
// the row files for them and writes their dense rows.
func (x *index) allocate(o *op, p *plan, lk sync.Locker) error {
	var pts []pointIn
	if o.kind != opMeta {
		pts = o.points
	}
	n := len(p.moveFrom) + len(pts)
	p.reuse = min(n, len(x.free))
	p.slots = make([]int32, n)
	p.ids = make([]pointID, len(pts))
	p.qrows = make([]quantRow, len(pts))
	for i := range p.reuse {
		p.slots[i] = x.free[len(x.free)-1-i]
	}
	for i := p.reuse; i < n; i++ {
		p.slots[i] = int32(len(x.file) + i - p.reuse)
	}
	dim := x.dim
	for i, pt := range pts {
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
	for i, from := range p.moveFrom {
		if !x.dense[from] {
			continue
		}
		s := int(p.slots[i])
		if err := x.vec.write(s, float32Bytes(x.vector(from))); err != nil {
			return err
		}
		if err := x.vec8.write(s, int8Bytes(x.row8(from))); err != nil {
			return err
		}
	}
	p.q8 = slices.Grow(p.q8[:0], dim)[:dim]
	for i, pt := range pts {
		if pt.dense == nil {
			continue
		}
		s := int(p.slots[len(p.moveFrom)+i])
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
