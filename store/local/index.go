package local

import (
	"hash/maphash"
	"path/filepath"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// Files of the dense rows under a Store's directory: derived data, rebuilt
// by every Open and removed by Close.
const (
	denseName  = "dense.f32" // normalised float32 rows
	dense8Name = "dense.i8"  // their int8 copies
)

// fileRec is a stored file: its metadata and its points' slots.
type fileRec struct {
	meta   hs.FileMeta
	points []int32 // slots in chunk order
	slots  []int32 // the same slots, sorted
}

// index is the in-memory state of a Store: what ranking and filtering need,
// about 2 KB per point of 700-byte prose chunks (BenchmarkMemoryPerChunk),
// while the points' records (text, vectors) stay on disk (records.go).
//
// Points live in slots. Slot s has its point id, chunk number, record
// location, file, whether it has a dense vector, and the description of
// its int8 row. Its dense vector is slab[s*dim:(s+1)*dim] and its int8
// copy q8[s*dim:(s+1)*dim] (see dot8.go), rows of files mapped into memory
// (rows.go). Sparse vectors live only as compact posting lists
// (postings.go). Freed slots are reused once their postings are purged.
//
// Writers hold Store.wmu; prepare reads and writes files, apply changes
// the index under Store.mu's write lock and cannot fail.
type index struct {
	dir   string // holds the row files
	dim   int
	vec   *rowFile // float32 rows; nil until a dimension is set
	vec8  *rowFile // int8 rows
	slab  []float32
	q8    []int8
	qrow  []quantRow
	ids   []pointID
	nos   []int32 // chunk numbers
	locs  []recLoc
	file  []*fileRec // nil when free or dead
	dense []bool     // whether a slot has a dense vector
	free  []int32    // slots ready for reuse
	dead  []int32    // freed slots whose postings are not purged yet

	files  map[hs.FileID]*fileRec
	users  map[hs.UserID][]int32 // sorted slots each reader may see
	hashes map[uint64][]int32    // hashKey of a chunk hash -> slots with a dense vector, unordered; keys may collide
	seed   maphash.Seed
	sparse [2]invIndex // store.VectorBM25, store.VectorTrigram
	points int
	recs   records
}

func newIndex(dir string) *index {
	return &index{
		dir:    dir,
		files:  make(map[hs.FileID]*fileRec),
		users:  make(map[hs.UserID][]int32),
		hashes: make(map[uint64][]int32),
		seed:   maphash.MakeSeed(),
		sparse: [2]invIndex{newInvIndex(), newInvIndex()},
	}
}

// reserve sizes the slot arrays for n slots.
func (x *index) reserve(n int) {
	x.ids = make([]pointID, 0, n)
	x.nos = make([]int32, 0, n)
	x.locs = make([]recLoc, 0, n)
	x.file = make([]*fileRec, 0, n)
	x.dense = make([]bool, 0, n)
	x.qrow = make([]quantRow, 0, n)
}

// hashKey returns the key of a chunk hash in x.hashes.
func (x *index) hashKey(h string) uint64 { return maphash.String(x.seed, h) }

// sparseIndex returns the inverted index of a checked sparse vector name.
func (x *index) sparseIndex(name string) *invIndex {
	if name == store.VectorTrigram {
		return &x.sparse[1]
	}
	return &x.sparse[0]
}

// live reports whether slot s holds a point.
func (x *index) live(s int32) bool { return x.file[s] != nil }

// check returns the error the op would meet against the current state,
// and whether it changes nothing (so it need not be logged).
func (x *index) check(o *op) (noop bool, err error) {
	f := x.files[o.meta.ID]
	switch o.kind {
	case opWrite, opUpsert:
		if f == nil && len(o.points) == 0 || o.kind == opUpsert && len(o.points) == 0 {
			return true, nil
		}
		if err := x.checkDim(o); err != nil {
			return false, err
		}
	case opMeta:
		if f == nil {
			return false, hs.Errorf(hs.ENOTFOUND, "store: file %d has no points", o.meta.ID)
		}
	case opDelete:
		return f == nil, nil
	case opTrim:
		return f == nil || len(f.points) == 0 || int(x.nos[f.points[len(f.points)-1]]) < o.keep, nil
	}
	return false, nil
}

// checkDim returns an EINVALID error when a dense vector of the op does not
// have the store's dimension.
func (x *index) checkDim(o *op) error {
	for _, p := range o.points {
		if p.dense != nil && x.dim != 0 && len(p.dense) != x.dim {
			return hs.Errorf(hs.EINVALID, "store: dense vector of file %d has dimension %d, the store has %d", o.meta.ID, len(p.dense), x.dim)
		}
	}
	return nil
}

// apply performs a prepared op whose points' records lie in a frame at
// off, in the WAL or the snapshot. On replay an op may meet a state it was
// not checked against (an update of a file deleted since); prepare and
// apply then do what leaves the state consistent.
func (x *index) apply(o *op, p *plan, off int64, inWAL bool) {
	f := x.files[o.meta.ID]
	if o.kind == opMeta {
		x.updateMeta(f, o.meta)
		return
	}
	if p.dim != 0 {
		x.dim = p.dim
	}
	if f != nil && len(p.gone) > 0 {
		x.unlink(f, p.gone)
		if len(f.points) == 0 || o.kind == opWrite || o.kind == opDelete {
			x.dropFile(f)
			f = nil
		}
	}
	for _, h := range p.unhash {
		rest := slices.DeleteFunc(x.hashes[h.key], func(v int32) bool { return v == h.slot })
		if len(rest) > 0 {
			x.hashes[h.key] = rest
		} else {
			delete(x.hashes, h.key)
		}
	}
	for i := range x.sparse {
		x.sparse[i].remove(p.dec[i], p.docs[i])
	}
	if len(o.points) > 0 && (o.kind == opWrite || o.kind == opUpsert) {
		if f == nil {
			f = &fileRec{meta: o.meta}
			x.files[o.meta.ID] = f
		} else {
			x.updateMeta(f, o.meta)
		}
		x.link(f, o, p, off, inWAL)
	}
	x.purgeDead()
}

// unlink frees the slots gone (sorted) of f's points; they are dead until
// purged.
func (x *index) unlink(f *fileRec, gone []int32) {
	for _, u := range f.meta.Readers {
		x.setUser(u, removeSlots(x.users[u], gone))
	}
	f.slots = removeSlots(f.slots, gone)
	f.points = slices.DeleteFunc(f.points, func(s int32) bool {
		_, found := slices.BinarySearch(gone, s)
		return found
	})
	for _, s := range gone {
		x.file[s], x.dense[s] = nil, false
	}
	x.dead = append(x.dead, gone...)
	x.points -= len(gone)
}

// dropFile forgets f once its remaining slots are unlinked as well.
func (x *index) dropFile(f *fileRec) {
	if len(f.slots) > 0 {
		x.unlink(f, slices.Clone(f.slots))
	}
	delete(x.files, f.meta.ID)
}

// link stores o's points in f, in the slots p chose.
func (x *index) link(f *fileRec, o *op, p *plan, off int64, inWAL bool) {
	x.free = x.free[:len(x.free)-p.reuse]
	if grow := len(o.points) - p.reuse; grow > 0 {
		n := len(x.file) + grow
		x.ids = slices.Grow(x.ids, grow)[:n]
		x.nos = slices.Grow(x.nos, grow)[:n]
		x.locs = slices.Grow(x.locs, grow)[:n]
		x.file = slices.Grow(x.file, grow)[:n]
		x.dense = slices.Grow(x.dense, grow)[:n]
		x.qrow = slices.Grow(x.qrow, grow)[:n]
	}
	for i, pt := range o.points {
		s := p.slots[i]
		x.ids[s], x.nos[s], x.locs[s] = p.ids[i], int32(pt.chunk.No), o.pos[i].loc(off, inWAL)
		x.file[s], x.dense[s], x.qrow[s] = f, pt.dense != nil, p.qrows[i]
		if pt.dense != nil && pt.chunk.Hash != "" {
			k := x.hashKey(pt.chunk.Hash)
			x.hashes[k] = append(x.hashes[k], s)
		}
		x.sparse[0].add(s, pt.bm25)
		x.sparse[1].add(s, pt.trigram)
	}
	added := slices.Clone(p.slots)
	if len(f.points) == 0 {
		f.points = append(f.points, added...) // o.points are in chunk order
	} else {
		f.points = append(f.points, added...)
		slices.SortFunc(f.points, func(a, b int32) int { return int(x.nos[a]) - int(x.nos[b]) })
	}
	slices.Sort(added)
	f.slots = addSlots(f.slots, added)
	for _, u := range f.meta.Readers {
		x.users[u] = addSlots(x.users[u], added)
	}
	x.points += len(o.points)
}

// updateMeta replaces f's metadata and moves its slots between the
// readers' lists. An absent file is left absent.
func (x *index) updateMeta(f *fileRec, meta hs.FileMeta) {
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

func (x *index) setUser(u hs.UserID, slots []int32) {
	if len(slots) == 0 {
		delete(x.users, u)
		return
	}
	x.users[u] = slots
}

// vector returns slot s's dense vector, aliased into the mapped slab: valid
// while the caller holds Store.mu.
func (x *index) vector(s int32) []float32 {
	return x.slab[int(s)*x.dim : (int(s)+1)*x.dim : (int(s)+1)*x.dim]
}

// openRows creates the row files for dimension dim (replacing those of a
// dimension an unlogged write left behind).
func (x *index) openRows(dim int) error {
	if x.vec != nil && x.vec.size == 4*dim {
		return nil
	}
	x.closeRows()
	vec, err := openRowFile(filepath.Join(x.dir, denseName), 4*dim)
	if err != nil {
		return err
	}
	vec8, err := openRowFile(filepath.Join(x.dir, dense8Name), dim)
	if err != nil {
		vec.close()
		return err
	}
	x.vec, x.vec8 = vec, vec8
	return nil
}

// reserveRows makes the row files hold at least n rows and refreshes the
// slabs that map them. Callers exclude readers.
func (x *index) reserveRows(n int) error {
	if err := x.vec.reserve(n); err != nil {
		return err
	}
	if err := x.vec8.reserve(n); err != nil {
		return err
	}
	x.slab, x.q8 = x.vec.float32s(), x.vec8.int8s()
	return nil
}

// closeRows closes and removes the row files.
func (x *index) closeRows() error {
	var err error
	if x.vec != nil {
		err = x.vec.close()
		if err8 := x.vec8.close(); err == nil {
			err = err8
		}
	}
	x.vec, x.vec8, x.slab, x.q8 = nil, nil, nil, nil
	return err
}

// close closes the snapshot that records are read from and the row files.
func (x *index) close() error {
	var err error
	if x.recs.snap != nil {
		err = x.recs.snap.Close()
		x.recs.snap = nil
	}
	if rerr := x.closeRows(); err == nil {
		err = rerr
	}
	return err
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
