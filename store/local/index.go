package local

import (
	"path/filepath"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// Row files of the v1 format, derived data that Open rebuilt; a v1 store
// is converted and they are removed.
const (
	denseName  = "dense.f32"
	dense8Name = "dense.i8"
)

// fileRec is a stored file: its metadata, its points' slots and its group.
type fileRec struct {
	meta   hs.FileMeta
	points []int32 // slots in chunk order
	slots  []int32 // the same slots, sorted
	group  *group  // the group of its readers
	gpos   int     // its place in group.files
}

// Owners of a slot's postings (index.owner): a segment (its id, at least
// 1), the tail (tailOwner of the point's place in it, negative), or none
// (a free or dead slot, or one without sparse vectors).
const ownNone int32 = 0

// index is the in-memory state of a Store: what ranking and filtering need,
// while the points' records (text, vectors) stay on disk (records.go).
//
// Points live in slots. Slot s has its point id, chunk number, record
// location, file, whether it has a dense vector, the description of its
// int8 row, the owner of its postings, its node in its group's graph and
// its place in its group. Its dense vector is slab[s*dim:(s+1)*dim] and its
// int8 copy q8[s*dim:(s+1)*dim] (see dot8.go), rows of files mapped into
// memory (rows.go). Sparse vectors live as posting lists (postings.go).
//
// A slot is live while it holds a point. When its point is removed it is
// dead until nothing refers to it any more: at once for a group without a
// graph, after the graph's next purge otherwise (graph_purge.go). Then it
// is freed: reused at once unless it held a point at the last checkpoint,
// whose row a crash would need (rows are rewritten from the log only for
// the points written after it), in which case it waits for the next
// checkpoint.
//
// Writers hold Store.wmu; prepare reads and writes files, apply changes
// the index under Store.mu's write lock and cannot fail.
type index struct {
	dir   string
	dim   int
	vec   *rowFile // float32 rows; nil until a dimension is set
	vec8  *rowFile // int8 rows
	slab  []float32
	q8    []int8
	qrow  []quantRow
	ids   []pointID
	nos   []int32 // chunk numbers
	locs  []recLoc
	file  []*fileRec // nil unless live
	dense []bool     // whether a live slot has a dense vector
	owner []int32    // who holds the slot's postings: a segment id, tailOwner(place) or ownNone
	gnode []int32    // the slot's node in its group's graph, -1 if none
	gpos  []int32    // the slot's place in its group's slots
	hnext []int32    // the next slot with the same hash key, -1 at the end

	free     []int32  // slots ready for reuse
	freed    []int32  // slots freed since the last checkpoint, reusable after the next
	released []int32  // slots the indexer no longer needs, freed by the next write
	inCkpt   []uint64 // bitset of the slots live at the last checkpoint
	points   int
	graphMin int     // the dense points a group needs for a graph; 0: never
	calMin   int     // the nodes a graph needs to be measured; 0: calibrateMin
	calNeed  float64 // tests: the recall a walk must reach, target and floor; 0: the defaults
	calWalk  bool    // tests: walk a graph that reaches the recall even if a scan is as fast

	files      map[hs.FileID]*fileRec
	groups     map[string]*group // by key
	groupByID  map[uint32]*group
	userGroups map[hs.UserID][]*group // by id
	nextGroup  uint32
	hashes     map[uint64]int32 // hashKey of a chunk hash -> first slot with a dense vector; keys may collide
	df         [2]docFreq       // store.VectorBM25, store.VectorTrigram
	tail       []tailDoc        // points whose postings are not in a segment yet
	tailGroups []*group         // the groups with points in the tail
	segs       []*segment       // oldest first
	recs       records

	nextFile      int      // the last number given to a rec-, seg- or graph- file
	metaSize      int64    // bytes of the last meta written or read
	dropAfterCkpt []string // files to remove once a checkpoint no longer names them
}

func newIndex(dir string) *index {
	return &index{
		dir:        dir,
		files:      make(map[hs.FileID]*fileRec),
		groups:     make(map[string]*group),
		groupByID:  make(map[uint32]*group),
		userGroups: make(map[hs.UserID][]*group),
		hashes:     make(map[uint64]int32),
		df:         [2]docFreq{newDocFreq(), newDocFreq()},
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
	x.owner = make([]int32, 0, n)
	x.gnode = make([]int32, 0, n)
	x.gpos = make([]int32, 0, n)
	x.hnext = make([]int32, 0, n)
}

// hashKey returns the key of a chunk hash in x.hashes: FNV-1a, so that
// keys are the same in every process (checkpoints store them), never 0
// (which stands for none).
func (x *index) hashKey(h string) uint64 {
	k := uint64(14695981039346656037)
	for i := 0; i < len(h); i++ {
		k ^= uint64(h[i])
		k *= 1099511628211
	}
	return max(k, 1)
}

// vectorNo returns the number of a checked sparse vector name (0 bm25, 1
// trigram).
func vectorNo(name string) int {
	if name == store.VectorTrigram {
		return 1
	}
	return 0
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
// off of records file rf (0 for the WAL). On replay an op may meet a state
// it was not checked against (an update of a file deleted since); prepare
// and apply then do what leaves the state consistent.
func (x *index) apply(o *op, p *plan, off int64, rf uint16) {
	f := x.files[o.meta.ID]
	// The slots p chose come off the free list before the op frees any.
	x.take(p)
	defer x.drainReleased()
	if o.kind == opMeta {
		if f == nil {
			return
		}
		if len(p.moveFrom) > 0 {
			x.unlink(f, p.gone)
			x.unhash(p.unhash)
			x.setGroup(f, o.meta)
			x.linkMoved(f, p)
			x.sortFile(f, p.slots)
			return
		}
		x.setGroup(f, o.meta)
		return
	}
	if p.dim != 0 {
		x.dim = p.dim
	}
	if f != nil && len(p.gone) > 0 {
		x.unlink(f, p.gone)
		if len(f.points) == 0 && len(p.moveFrom) == 0 || o.kind == opWrite || o.kind == opDelete {
			x.dropFile(f)
			f = nil
		}
	}
	x.unhash(p.unhash)
	for i := range x.df {
		x.df[i].remove(p.dec[i], p.docs[i])
	}
	if len(o.points) > 0 && (o.kind == opWrite || o.kind == opUpsert) {
		if f == nil {
			f = &fileRec{meta: o.meta}
			x.files[o.meta.ID] = f
			x.groupOf(o.meta.Readers).addFile(f)
		} else {
			x.setGroup(f, o.meta)
		}
		x.linkMoved(f, p)
		x.link(f, o, p, off, rf)
		x.sortFile(f, p.slots)
	}
}

// setGroup gives f new metadata, moving it to the group of its readers
// (its points have moved already, see plan.moveFrom).
func (x *index) setGroup(f *fileRec, meta hs.FileMeta) {
	if key := groupKey(meta.Readers); key != f.group.key {
		old := f.group
		old.removeFile(f)
		x.groupOf(meta.Readers).addFile(f)
		if len(old.files) == 0 {
			x.dropGroup(old)
		}
	}
	f.meta = meta
}

// unhash removes entries from the hash chains.
func (x *index) unhash(hs []hashSlot) {
	for _, h := range hs {
		prev := int32(-1)
		for s := x.hashes[h.key]; s >= 0; s = x.hnext[s] {
			if s != h.slot {
				prev = s
				continue
			}
			switch {
			case prev >= 0:
				x.hnext[prev] = x.hnext[s]
			case x.hnext[s] >= 0:
				x.hashes[h.key] = x.hnext[s]
			default:
				delete(x.hashes, h.key)
			}
			break
		}
	}
}

// hash adds slot s to the chain of key.
func (x *index) hash(key uint64, s int32) {
	if first, ok := x.hashes[key]; ok {
		x.hnext[s] = first
	} else {
		x.hnext[s] = -1
	}
	x.hashes[key] = s
}

// unlink removes the slots gone (sorted) of f's points from f and from its
// group; they are dead (see index).
func (x *index) unlink(f *fileRec, gone []int32) {
	g := f.group
	f.slots = removeSlots(f.slots, gone)
	f.points = slices.DeleteFunc(f.points, func(s int32) bool {
		_, found := slices.BinarySearch(gone, s)
		return found
	})
	for _, s := range gone {
		x.removeSlot(g, s)
		dense := x.dense[s]
		if o := x.owner[s]; o > 0 {
			if sg := x.segment(o); sg != nil {
				sg.live--
			}
		}
		x.file[s], x.dense[s], x.owner[s] = nil, false, ownNone
		switch {
		case g.graph != nil && x.gnode[s] >= 0:
			g.graph.dead = append(g.graph.dead, s) // freed by the graph's purge
		case g.graph != nil && dense:
			// Still pending: the indexer skips it and the purge frees it.
		default:
			x.freeSlot(s)
		}
	}
	x.points -= len(gone)
}

// release hands a dead slot that nothing refers to any more to the next
// writer, which frees it (drainReleased): the indexer releases the slots
// it purges, while only writers, between choosing slots and taking them,
// may change the free lists. The caller holds Store.mu's write lock.
func (x *index) release(s int32) {
	x.gnode[s] = -1
	x.released = append(x.released, s)
}

// drainReleased frees the released slots. The caller holds Store.wmu and
// mu's write lock.
func (x *index) drainReleased() {
	for _, s := range x.released {
		x.freeSlot(s)
	}
	x.released = x.released[:0]
}

// freeSlot makes a dead slot that nothing refers to reusable: at once,
// unless it held a point at the last checkpoint (see index).
func (x *index) freeSlot(s int32) {
	x.gnode[s] = -1
	if w := int(s >> 6); w < len(x.inCkpt) && x.inCkpt[w]&(1<<(s&63)) != 0 {
		x.freed = append(x.freed, s)
		return
	}
	x.free = append(x.free, s)
}

// dropFile forgets f once its remaining slots are unlinked as well.
func (x *index) dropFile(f *fileRec) {
	if len(f.slots) > 0 {
		x.unlink(f, slices.Clone(f.slots))
	}
	g := f.group
	g.removeFile(f)
	if len(g.files) == 0 {
		x.dropGroup(g)
	}
	delete(x.files, f.meta.ID)
}

// take takes the slots p chose off the free list and grows the slot
// arrays for the new ones.
func (x *index) take(p *plan) {
	x.free = x.free[:len(x.free)-p.reuse]
	if grow := len(p.slots) - p.reuse; grow > 0 {
		n := len(x.file) + grow
		x.ids = slices.Grow(x.ids, grow)[:n]
		x.nos = slices.Grow(x.nos, grow)[:n]
		x.locs = slices.Grow(x.locs, grow)[:n]
		x.file = slices.Grow(x.file, grow)[:n]
		x.dense = slices.Grow(x.dense, grow)[:n]
		x.qrow = slices.Grow(x.qrow, grow)[:n]
		x.owner = slices.Grow(x.owner, grow)[:n]
		x.gnode = slices.Grow(x.gnode, grow)[:n]
		x.gpos = slices.Grow(x.gpos, grow)[:n]
		x.hnext = slices.Grow(x.hnext, grow)[:n]
	}
}

// linkMoved puts f's points that p moves (p.moveFrom, now dead) in their
// new slots, the first len(p.moveFrom) of p.slots.
func (x *index) linkMoved(f *fileRec, p *plan) {
	for i, old := range p.moveFrom {
		s := p.slots[i]
		mv := &p.moved[i]
		x.ids[s], x.nos[s], x.locs[s], x.qrow[s] = mv.id, mv.no, mv.loc, mv.qrow
		x.place(f, s, mv.dense, mv.hash, mv.bm25, mv.trigram)
		_ = old
	}
	x.points += len(p.moveFrom)
}

// link stores o's points in f, in the slots p chose after the moved ones.
func (x *index) link(f *fileRec, o *op, p *plan, off int64, rf uint16) {
	slots := p.slots[len(p.moveFrom):]
	for i, pt := range o.points {
		s := slots[i]
		x.ids[s], x.nos[s], x.locs[s] = p.ids[i], int32(pt.chunk.No), o.pos[i].loc(off, rf)
		x.qrow[s] = p.qrows[i]
		var key uint64
		if pt.chunk.Hash != "" {
			key = x.hashKey(pt.chunk.Hash)
		}
		x.place(f, s, pt.dense != nil, key, pt.bm25, pt.trigram)
		x.df[0].add(pt.bm25)
		x.df[1].add(pt.trigram)
	}
	x.points += len(o.points)
}

// place makes slot s a live point of f with the given dense flag, hash key
// (0 for none) and sparse vectors, in f's group, pending for its graph.
func (x *index) place(f *fileRec, s int32, dense bool, key uint64, bm25, trigram hs.SparseVector) {
	g := f.group
	x.file[s], x.dense[s], x.gnode[s], x.hnext[s] = f, dense, -1, -1
	if dense && key != 0 {
		x.hash(key, s)
	}
	x.owner[s] = ownNone
	if len(bm25.Indices) > 0 || len(trigram.Indices) > 0 {
		pos := len(x.tail)
		x.tail = append(x.tail, tailDoc{slot: s, vecs: [2]hs.SparseVector{bm25, trigram}})
		if len(g.tail) == 0 {
			x.tailGroups = append(x.tailGroups, g)
		}
		g.tail = append(g.tail, int32(pos))
		x.owner[s] = tailOwner(pos)
	}
	x.addSlot(g, s)
	if dense && g.graph != nil {
		g.graph.pending = append(g.graph.pending, s)
	}
}

// sortFile adds the new slots to f's lists.
func (x *index) sortFile(f *fileRec, added []int32) {
	f.points = append(f.points, added...)
	slices.SortFunc(f.points, func(a, b int32) int { return int(x.nos[a]) - int(x.nos[b]) })
	added = slices.Clone(added)
	slices.Sort(added)
	f.slots = addSlots(f.slots, added)
}

// vector returns slot s's dense vector, aliased into the mapped slab: valid
// while the caller holds Store.mu.
func (x *index) vector(s int32) []float32 {
	return x.slab[int(s)*x.dim : (int(s)+1)*x.dim : (int(s)+1)*x.dim]
}

// row8 returns slot s's int8 row, aliased like vector.
func (x *index) row8(s int32) []int8 {
	return x.q8[int(s)*x.dim : (int(s)+1)*x.dim : (int(s)+1)*x.dim]
}

// openRows creates the row files for dimension dim (replacing those of a
// dimension an unlogged write left behind).
func (x *index) openRows(dim int) error {
	if x.vec != nil && x.vec.size == 4*dim {
		return nil
	}
	x.closeRows()
	vec, err := openRowFile(filepath.Join(x.dir, rowsName), 4*dim)
	if err != nil {
		return err
	}
	vec8, err := openRowFile(filepath.Join(x.dir, rows8Name), dim)
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

// closeRows closes the row files.
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

// close closes the files records are read from, the row files, the
// segments and the graphs.
func (x *index) close() error {
	err := x.recs.close()
	if rerr := x.closeRows(); err == nil {
		err = rerr
	}
	for _, sg := range x.segs {
		if serr := sg.close(); err == nil {
			err = serr
		}
	}
	x.segs = nil
	for _, g := range x.groups {
		if g.graph != nil {
			x.closeGraph(g)
		}
	}
	return err
}

// closeGraph drops g's graph and frees the slots only it held.
func (x *index) closeGraph(g *group) {
	gr := g.graph
	g.graph = nil
	gr.closed = true
	for _, s := range gr.dead {
		x.freeSlot(s)
	}
	for _, s := range gr.skip {
		x.freeSlot(s)
	}
	_, done := gr.counts()
	for _, s := range gr.pending[done:] {
		if !x.live(s) {
			x.freeSlot(s)
		}
	}
	for _, s := range g.slots {
		x.gnode[s] = -1
	}
	gr.close()
}

// segment returns the segment of id, nil if none.
func (x *index) segment(id int32) *segment {
	for _, sg := range x.segs {
		if sg.id == id {
			return sg
		}
	}
	return nil
}

// setBit sets bit s of a growing bitset.
func setBit(b []uint64, s int32) []uint64 {
	w := int(s >> 6)
	if w >= len(b) {
		b = slices.Grow(b, w+1-len(b))[:w+1]
	}
	b[w] |= 1 << (s & 63)
	return b
}

// checkpointed updates the slot lists once a checkpoint holds the
// current state: the slots freed meanwhile become reusable, and those not
// free are the checkpoint's.
func (x *index) checkpointed() {
	x.free = append(x.free, x.freed...)
	x.freed = x.freed[:0]
	n := (len(x.file) + 63) / 64
	x.inCkpt = slices.Grow(x.inCkpt[:0], n)[:n]
	for w := range x.inCkpt {
		x.inCkpt[w] = ^uint64(0)
	}
	for _, s := range x.free {
		x.inCkpt[s>>6] &^= 1 << (s & 63)
	}
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
