package local

import (
	"slices"

	"github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// pointRec is a stored point. Its file metadata lives in its fileRec.
type pointRec struct {
	id      string
	chunk   hybridsearch.Chunk
	slot    int32
	dense   bool
	bm25    hybridsearch.SparseVector
	trigram hybridsearch.SparseVector
}

// fileRec is a stored file: its metadata and its points in chunk order.
type fileRec struct {
	meta   hybridsearch.FileMeta
	points []*pointRec
	slots  []int32 // the points' slots, sorted
}

// index is the in-memory state of a Store. Points live in slots:
// slot s owns slab[s*dim:(s+1)*dim], its normalised dense vector, and its
// int8 copy q8[s*dim:(s+1)*dim] described by qrow[s] (see dot8.go; the copy
// is derived, never stored on disk). Freed slots are reused once their
// postings are purged. Only apply mutates an index.
type index struct {
	dim    int
	slab   []float32
	q8     []int8
	qrow   []quantRow
	slots  []*pointRec // nil when free
	file   []*fileRec  // file of each slot
	dense  []bool      // whether a slot has a dense vector
	free   []int32     // slots ready for reuse
	dead   []int32     // freed slots whose postings are not purged yet
	files  map[hybridsearch.FileID]*fileRec
	users  map[hybridsearch.UserID][]int32 // sorted slots each reader may see
	hashes map[string][]int32              // chunk hash -> slots with a dense vector, unordered
	sparse [2]invIndex                     // store.VectorBM25, store.VectorTrigram
	points int
}

func newIndex(dim int) *index {
	x := &index{
		dim:    dim,
		files:  make(map[hybridsearch.FileID]*fileRec),
		users:  make(map[hybridsearch.UserID][]int32),
		hashes: make(map[string][]int32),
	}
	for i := range x.sparse {
		x.sparse[i].postings = make(map[uint32]*postingList)
	}
	return x
}

// sparseIndex returns the inverted index of a checked sparse vector name.
func (x *index) sparseIndex(name string) *invIndex {
	if name == store.VectorTrigram {
		return &x.sparse[1]
	}
	return &x.sparse[0]
}

// check returns the error the op would meet against the current state,
// and whether it changes nothing (so it need not be logged).
func (x *index) check(o *op) (noop bool, err error) {
	f := x.files[o.meta.ID]
	switch o.kind {
	case opWrite, opUpsert:
		if f == nil && len(o.points) == 0 || o.kind == opUpsert && len(o.points) == 0 {
			return true, nil
		}
		for _, p := range o.points {
			if p.dense != nil && x.dim != 0 && len(p.dense) != x.dim {
				return false, hybridsearch.Errorf(hybridsearch.EINVALID, "store: dense vector of file %d has dimension %d, the store has %d", o.meta.ID, len(p.dense), x.dim)
			}
		}
	case opMeta:
		if f == nil {
			return false, hybridsearch.Errorf(hybridsearch.ENOTFOUND, "store: file %d has no points", o.meta.ID)
		}
	case opDelete:
		return f == nil, nil
	case opTrim:
		return f == nil || len(f.points) == 0 || f.points[len(f.points)-1].chunk.No < o.keep, nil
	}
	return false, nil
}

// apply performs a checked op. On replay an op may meet a state it was not
// checked against (an update of a file deleted since); it then does what
// leaves the state consistent, or reports a mismatched dimension.
func (x *index) apply(o *op) error {
	switch o.kind {
	case opWrite, opUpsert:
		for _, p := range o.points {
			if p.dense != nil && x.dim != 0 && len(p.dense) != x.dim {
				return hybridsearch.Errorf(hybridsearch.EINVALID, "store: dense vector of file %d has dimension %d, the store has %d", o.meta.ID, len(p.dense), x.dim)
			}
		}
		if o.kind == opUpsert {
			x.upsertPoints(o.meta, o.points)
		} else {
			x.replaceFile(o.meta, o.points)
		}
	case opMeta:
		x.updateMeta(o.meta)
	case opDelete:
		x.replaceFile(o.meta, nil)
	case opTrim:
		x.trimFile(o.meta.ID, o.keep)
	}
	return nil
}

// replaceFile makes the file's points exactly points (none deletes it).
func (x *index) replaceFile(meta hybridsearch.FileMeta, points []pointIn) {
	if old := x.files[meta.ID]; old != nil {
		x.unlink(old)
	}
	if len(points) > 0 {
		x.link(meta, points)
	}
	x.purgeDead()
}

// link stores a file that has no points now.
func (x *index) link(meta hybridsearch.FileMeta, points []pointIn) {
	f := &fileRec{meta: meta, points: make([]*pointRec, len(points)), slots: make([]int32, len(points))}
	for i, p := range points {
		r := x.linkPoint(f, p)
		f.points[i], f.slots[i] = r, r.slot
	}
	slices.Sort(f.slots)
	x.files[meta.ID] = f
	x.points += len(points)
	for _, u := range meta.Readers {
		x.users[u] = addSlots(x.users[u], f.slots)
	}
}

// linkPoint stores one point of f in a new slot; the caller adds the slot
// to f and to the readers' lists.
func (x *index) linkPoint(f *fileRec, p pointIn) *pointRec {
	if p.dense != nil && x.dim == 0 {
		x.setDim(len(p.dense))
	}
	s := x.alloc()
	r := &pointRec{id: p.id, chunk: p.chunk, slot: s, dense: p.dense != nil, bm25: p.bm25, trigram: p.trigram}
	x.slots[s], x.file[s], x.dense[s] = r, f, r.dense
	if r.dense {
		copy(x.slab[int(s)*x.dim:], p.dense)
		x.qrow[s] = quantize(x.vector(s), x.q8[int(s)*x.dim:])
		if h := r.chunk.Hash; h != "" {
			x.hashes[h] = append(x.hashes[h], s)
		}
	}
	x.sparse[0].add(s, r.bm25)
	x.sparse[1].add(s, r.trigram)
	return r
}

// unlink removes a file's points; their slots are dead until purged.
func (x *index) unlink(f *fileRec) {
	for _, u := range f.meta.Readers {
		x.setUser(u, removeSlots(x.users[u], f.slots))
	}
	for _, r := range f.points {
		x.unlinkPoint(r)
	}
	delete(x.files, f.meta.ID)
	x.points -= len(f.points)
}

// unlinkPoint frees one point's slot (dead until purged); the caller
// removes the slot from its file and the readers' lists.
func (x *index) unlinkPoint(r *pointRec) {
	s := r.slot
	if r.dense {
		h := r.chunk.Hash
		if rest := slices.DeleteFunc(x.hashes[h], func(v int32) bool { return v == s }); len(rest) > 0 {
			x.hashes[h] = rest
		} else {
			delete(x.hashes, h)
		}
	}
	x.sparse[0].remove(r.bm25)
	x.sparse[1].remove(r.trigram)
	x.slots[s], x.file[s], x.dense[s] = nil, nil, false
	x.dead = append(x.dead, s)
}

// upsertPoints sets the file's metadata to meta and stores points in it,
// each replacing the file's point of the same chunk number; the file's
// other points stay. An absent file is created. Its cost is that of the
// points written (and of the readers' slot lists), not of the whole file,
// so a large file is written in batches in linear time.
func (x *index) upsertPoints(meta hybridsearch.FileMeta, points []pointIn) {
	f := x.files[meta.ID]
	if f == nil {
		x.link(meta, points)
		x.purgeDead()
		return
	}
	x.updateMeta(meta)
	replace := make(map[int]bool, len(points))
	for _, p := range points {
		replace[p.chunk.No] = true
	}
	var gone []int32
	kept := f.points[:0]
	for _, r := range f.points {
		if replace[r.chunk.No] {
			x.unlinkPoint(r)
			gone = append(gone, r.slot)
			continue
		}
		kept = append(kept, r)
	}
	clear(f.points[len(kept):])
	f.points = kept
	added := make([]int32, 0, len(points))
	for _, p := range points {
		r := x.linkPoint(f, p)
		f.points = append(f.points, r)
		added = append(added, r.slot)
	}
	slices.SortFunc(f.points, func(a, b *pointRec) int { return a.chunk.No - b.chunk.No })
	x.moveSlots(f, gone, added)
	x.points += len(points) - len(gone)
	x.purgeDead()
}

// trimFile removes the file's points numbered keep and up; a file left
// without points is removed.
func (x *index) trimFile(id hybridsearch.FileID, keep int) {
	f := x.files[id]
	if f == nil {
		return
	}
	i, _ := slices.BinarySearchFunc(f.points, keep, func(r *pointRec, no int) int { return r.chunk.No - no })
	if i == 0 {
		x.replaceFile(f.meta, nil)
		return
	}
	var gone []int32
	for _, r := range f.points[i:] {
		x.unlinkPoint(r)
		gone = append(gone, r.slot)
	}
	clear(f.points[i:])
	f.points = f.points[:i]
	x.moveSlots(f, gone, nil)
	x.points -= len(gone)
	x.purgeDead()
}

// moveSlots takes the slots gone out of f and its readers' lists and puts
// the slots added in.
func (x *index) moveSlots(f *fileRec, gone, added []int32) {
	slices.Sort(gone)
	slices.Sort(added)
	f.slots = addSlots(removeSlots(f.slots, gone), added)
	for _, u := range f.meta.Readers {
		x.setUser(u, addSlots(removeSlots(x.users[u], gone), added))
	}
}

// updateMeta replaces a file's metadata and moves its slots between the
// readers' lists. An absent file is left absent.
func (x *index) updateMeta(meta hybridsearch.FileMeta) {
	f := x.files[meta.ID]
	if f == nil {
		return
	}
	for _, u := range f.meta.Readers {
		if _, ok := slices.BinarySearch(meta.Readers, u); !ok {
			x.setUser(u, removeSlots(x.users[u], f.slots))
		}
	}
	for _, u := range meta.Readers {
		if _, ok := slices.BinarySearch(f.meta.Readers, u); !ok {
			x.users[u] = addSlots(x.users[u], f.slots)
		}
	}
	f.meta = meta
}

func (x *index) setUser(u hybridsearch.UserID, slots []int32) {
	if len(slots) == 0 {
		delete(x.users, u)
		return
	}
	x.users[u] = slots
}

// alloc returns a free slot, growing the slot arrays when none is free.
func (x *index) alloc() int32 {
	if n := len(x.free); n > 0 {
		s := x.free[n-1]
		x.free = x.free[:n-1]
		return s
	}
	s := int32(len(x.slots))
	x.slots = append(x.slots, nil)
	x.file = append(x.file, nil)
	x.dense = append(x.dense, false)
	if x.dim > 0 {
		x.slab = slices.Grow(x.slab, x.dim)[:len(x.slab)+x.dim]
		clear(x.slab[len(x.slab)-x.dim:])
		x.q8 = slices.Grow(x.q8, x.dim)[:len(x.q8)+x.dim]
		clear(x.q8[len(x.q8)-x.dim:])
		x.qrow = append(x.qrow, quantRow{})
	}
	return s
}

// setDim fixes the dense dimension and sizes the slabs for existing slots.
func (x *index) setDim(dim int) {
	x.dim = dim
	x.reserve(len(x.slots), max(len(x.slots), 64))
}

// reserve sizes the slabs for n slots with room for capacity slots.
func (x *index) reserve(n, capacity int) {
	x.slab = make([]float32, n*x.dim, capacity*x.dim)
	x.q8 = make([]int8, n*x.dim, capacity*x.dim)
	x.qrow = make([]quantRow, n, capacity)
}

// vector returns slot s's dense vector, aliased into the slab.
func (x *index) vector(s int32) []float32 {
	return x.slab[int(s)*x.dim : (int(s)+1)*x.dim : (int(s)+1)*x.dim]
}

// addSlots merges the sorted slots add into the sorted list, in place.
func addSlots(list, add []int32) []int32 {
	n, m := len(list), len(add)
	list = slices.Grow(list, m)[:n+m]
	i, j := n-1, m-1
	for k := n + m - 1; j >= 0; k-- {
		if i >= 0 && list[i] > add[j] {
			list[k] = list[i]
			i--
		} else {
			list[k] = add[j]
			j--
		}
	}
	return list
}

// removeSlots removes the sorted slots rm from the sorted list, in place.
func removeSlots(list, rm []int32) []int32 {
	out := list[:0]
	j := 0
	for _, s := range list {
		for j < len(rm) && rm[j] < s {
			j++
		}
		if j < len(rm) && rm[j] == s {
			continue
		}
		out = append(out, s)
	}
	return out
}
