package local

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// A checkpoint makes the state after some WAL record durable without the
// WAL, so that the WAL can be emptied and Open need not replay it. Unlike
// a snapshot of everything, its cost does not grow with the store's text
// and vectors: each part is written where it changed.
//
//   - Records: those still in the WAL are copied, without their dense
//     vectors, to the end of the current records file ("rec-N"); when the
//     records files hold more dead records than live ones, the live ones
//     are copied to a new file instead and the old ones removed.
//   - Rows: the row files ("rows.f32", "rows.i8") are synced; they hold the
//     dense vectors.
//   - Postings: the tail is written out as a new segment ("seg-N").
//   - Graphs: a graph is saved ("graph-G-N") when it dropped nodes since
//     its last save (which the slots it freed depend on) or gained many;
//     at Close when it changed at all. Otherwise the last save stands and
//     Open re-inserts the points added since.
//   - Meta ("meta"): everything else, in a few bytes per point (ids, chunk
//     numbers, record locations, int8 row descriptions, postings owners,
//     hash keys), the files' metadata, the groups, the free slots and the
//     document frequencies, with the names of the files above. It is
//     written to "meta.tmp", synced and renamed: the rename is the commit.
//
// Every file but the meta is written under a new name, so until the
// rename the last checkpoint's files are intact, and files no meta names
// are removed by Open. A slot held by a point at a checkpoint is not
// reused before the next one (index.freeSlot), so its row is intact after
// a crash. A checkpoint runs with writes and the indexer paused; searches
// go on.

// Files of a store directory.
const (
	metaName  = "meta"
	metaTmp   = "meta.tmp"
	rowsName  = "rows.f32" // normalised float32 rows
	rows8Name = "rows.i8"  // their int8 copies
	metaMagic = "HSMETA\x00\x01"
	recMagic  = "HSREC\x00\x00\x01"
)

func recName(n int) string               { return fmt.Sprintf("rec-%d", n) }
func graphName(gid uint32, n int) string { return fmt.Sprintf("graph-%d-%d", gid, n) }

// Meta frame types.
const (
	metaHeader = 'H'
	metaSlots  = 'S'
	metaGroups = 'G'
	metaFiles  = 'F'
	metaFree   = 'R'
	metaDF     = 'D'
	metaEnd    = 'E'
)

// metaChunk is how many slots or files one meta frame holds.
const metaChunk = 8192

// checkpoint writes a checkpoint of the state after record l.seq and
// empties the WAL; closing saves every graph that changed. Callers hold
// wmu.
func (l *Store) checkpoint(closing bool) error {
	if err := l.wal.failed(); err != nil {
		return err
	}
	l.imu.Lock()
	defer l.imu.Unlock()
	x := l.idx
	if err := x.checkpoint(l.seq, closing, &l.mu); err != nil {
		return fmt.Errorf("store: checkpoint %s: %w", l.dir, err)
	}
	l.metaSize = x.metaSize
	if err := l.wal.reset(l.seq); err != nil {
		return fmt.Errorf("store: checkpoint %s: %w", l.dir, err)
	}
	if !closing {
		l.maybeMerge()
	}
	return nil
}

// checkpoint writes x's checkpoint as the state after record seq. lk is
// Store.mu, taken to install what it wrote.
func (x *index) checkpoint(seq uint64, closing bool, lk interface {
	Lock()
	Unlock()
}) error {
	locs, files, retire, err := x.writeRecords()
	if err != nil {
		return err
	}
	if x.vec != nil {
		if err := x.vec.sync(); err != nil {
			return err
		}
		if err := x.vec8.sync(); err != nil {
			return err
		}
	}
	seg, flushed, err := x.flushTail()
	if err != nil {
		return err
	}
	saves, err := x.saveGraphs(closing)
	if err != nil {
		if seg != nil {
			seg.close()
			os.Remove(seg.path)
		}
		return err
	}
	lk.Lock()
	x.recs.files, x.recs.nums = files.files, files.nums
	for s, loc := range locs {
		x.locs[s] = loc
	}
	x.installTail(seg, flushed)
	var oldGraphs []string
	for _, sv := range saves {
		if sv.gr.file != 0 {
			oldGraphs = append(oldGraphs, graphName(sv.g.id, sv.gr.file))
		}
		sv.gr.file, sv.gr.savedNodes, sv.gr.purged = sv.file, sv.nodes, false
	}
	lk.Unlock()
	for _, f := range retire {
		f.Close()
		os.Remove(f.Name())
	}
	if err := x.writeMeta(seq); err != nil {
		return err
	}
	lk.Lock()
	x.checkpointed()
	lk.Unlock()
	for _, name := range oldGraphs {
		os.Remove(filepath.Join(x.dir, name))
	}
	for _, name := range x.dropAfterCkpt {
		os.Remove(filepath.Join(x.dir, name))
	}
	x.dropAfterCkpt = x.dropAfterCkpt[:0]
	return nil
}

// recFiles is the list of records files: the open files and their
// numbers (0 for a v1 snapshot, which a checkpoint empties).
type recFiles struct {
	files []*os.File
	nums  []int
}

// writeRecords copies the live records that lie in the WAL or a v1
// snapshot, without their dense vectors, to the current records file, or
// every live record to a new one when the files hold more dead records
// than live ones. It returns the new locations by slot, the records files
// after the checkpoint and the files to close and remove once the new
// locations are installed.
func (x *index) writeRecords() (map[int32]recLoc, recFiles, []*os.File, error) {
	var live, held int64 // bytes of live records, and of all in v2 records files
	moving := 0
	for s, f := range x.file {
		if f == nil {
			continue
		}
		l := x.locs[s]
		live += int64(l.n)
		if n := int(l.file()); n == 0 || x.recs.nums[n-1] == 0 {
			moving++
		}
	}
	for i, f := range x.recs.files {
		if f != nil && x.recs.nums[i] != 0 {
			if st, err := f.Stat(); err == nil {
				held += st.Size()
			}
		}
	}
	out := recFiles{files: slices.Clone(x.recs.files), nums: slices.Clone(x.recs.nums)}
	if moving == 0 && held <= 2*live+64<<20 {
		return nil, out, nil, nil
	}
	rewrite := held > 2*live+64<<20
	// The current file is the last v2 one, unless everything is rewritten.
	cur := -1
	for i := len(out.files) - 1; i >= 0 && !rewrite; i-- {
		if out.files[i] != nil && out.nums[i] != 0 {
			cur = i
			break
		}
	}
	var f *os.File
	var off int64
	var err error
	if cur < 0 {
		x.nextFile++
		f, err = os.OpenFile(filepath.Join(x.dir, recName(x.nextFile)), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return nil, out, nil, fmt.Errorf("create records file: %w", err)
		}
		if _, err := f.Write([]byte(recMagic)); err != nil {
			f.Close()
			return nil, out, nil, fmt.Errorf("write records file: %w", err)
		}
		off = int64(len(recMagic))
		out.files = append(out.files, f)
		out.nums = append(out.nums, x.nextFile)
		cur = len(out.files) - 1
	} else {
		f = out.files[cur]
		st, err := f.Stat()
		if err != nil {
			return nil, out, nil, fmt.Errorf("stat records file: %w", err)
		}
		off = st.Size()
	}
	fail := func(err error) (map[int32]recLoc, recFiles, []*os.File, error) {
		if rewrite || x.recs.nums == nil || cur >= len(x.recs.files) {
			f.Close()
			os.Remove(f.Name())
		} else {
			f.Truncate(off)
		}
		return nil, recFiles{files: x.recs.files, nums: x.recs.nums}, nil, err
	}
	w := bufio.NewWriterSize(io.NewOffsetWriter(f, off), 1<<20)
	locs := make(map[int32]recLoc)
	var buf, enc []byte
	at := off
	for s, fr := range x.file {
		if fr == nil {
			continue
		}
		l := x.locs[s]
		if n := int(l.file()); !rewrite && n != 0 && x.recs.nums[n-1] != 0 {
			continue
		}
		rec, err := x.recs.read(l, true, buf)
		if err != nil {
			return fail(err)
		}
		buf = rec
		var head int
		if enc, head, err = compactRecord(enc[:0], rec, x.recs.compact(l)); err != nil {
			return fail(fmt.Errorf("record of file %d chunk %d: %w", fr.meta.ID, x.nos[s], err))
		}
		if _, err := w.Write(enc); err != nil {
			return fail(fmt.Errorf("write records file: %w", err))
		}
		locs[int32(s)] = recLoc{off: int64(cur+1)<<locOffBits | at, n: uint32(len(enc)), head: uint32(head)}
		at += int64(len(enc))
	}
	if err := w.Flush(); err != nil {
		return fail(fmt.Errorf("write records file: %w", err))
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("sync records file: %w", err))
	}
	var retire []*os.File
	for i, of := range out.files {
		if of == nil || i == cur {
			continue
		}
		if rewrite || out.nums[i] == 0 {
			retire = append(retire, of)
			out.files[i] = nil
		}
	}
	return locs, out, retire, nil
}

// flushTail writes the tail's current postings to a new segment and
// returns it with the slots whose postings it holds, or nil when there are
// none. The caller holds wmu; installTail makes the segment the postings'
// owner.
func (x *index) flushTail() (*segment, []int32, error) {
	groups := slices.Clone(x.tailGroups)
	slices.SortFunc(groups, func(a, b *group) int { return cmp.Compare(a.id, b.id) })
	var flushed []int32
	for _, g := range groups {
		for _, pos := range g.tail {
			if td := &x.tail[pos]; x.owner[td.slot] == tailOwner(int(pos)) {
				flushed = append(flushed, td.slot)
			}
		}
	}
	if len(flushed) == 0 {
		return nil, nil, nil
	}
	x.nextFile++
	sw, err := newSegWriter(x.dir, int32(x.nextFile))
	if err != nil {
		return nil, nil, err
	}
	var ps, tmp []termPosting
	var list []segPosting
	var docs []int32
	for v := range 2 {
		for _, g := range groups {
			// The group's current points in slot order, so that a stable
			// sort by index leaves each list in slot order.
			docs = docs[:0]
			for _, pos := range g.tail {
				if x.owner[x.tail[pos].slot] == tailOwner(int(pos)) {
					docs = append(docs, pos)
				}
			}
			slices.SortFunc(docs, func(a, b int32) int { return cmp.Compare(x.tail[a].slot, x.tail[b].slot) })
			ps = ps[:0]
			for _, pos := range docs {
				td := &x.tail[pos]
				vec := &td.vecs[v]
				for j, i := range vec.Indices {
					ps = append(ps, termPosting{i, td.slot, vec.Values[j]})
				}
			}
			if len(ps) == 0 {
				continue
			}
			ps, tmp = radixSortTerms(ps, tmp)
			sw.startGroup(v, g.id)
			for i := 0; i < len(ps); {
				term := ps[i].term
				list = list[:0]
				for ; i < len(ps) && ps[i].term == term; i++ {
					list = append(list, segPosting{ps[i].slot, ps[i].w})
				}
				sw.addTerm(term, list)
			}
		}
		sw.endGroup()
	}
	sg, err := sw.finish(x.dir)
	if err != nil {
		return nil, nil, err
	}
	return sg, flushed, nil
}

// termPosting is a posting with its index.
type termPosting struct {
	term uint32
	slot int32
	w    float32
}

// radixSortTerms sorts ps by index, stably, a byte at a time from the
// least significant, using tmp (grown as needed) as the other buffer; it
// returns the sorted slice and the other buffer. Four linear passes over
// 256 buckets beat a comparison sort on the millions of postings a tail
// flush sorts.
func radixSortTerms(ps, tmp []termPosting) ([]termPosting, []termPosting) {
	tmp = slices.Grow(tmp[:0], len(ps))[:len(ps)]
	var count [256]int
	for shift := uint(0); shift < 32; shift += 8 {
		clear(count[:])
		for _, p := range ps {
			count[byte(p.term>>shift)]++
		}
		if count[byte(ps[0].term>>shift)] == len(ps) {
			continue // every index has the same byte here
		}
		at := 0
		for d, c := range count {
			count[d] = at
			at += c
		}
		for _, p := range ps {
			d := byte(p.term >> shift)
			tmp[count[d]] = p
			count[d]++
		}
		ps, tmp = tmp, ps
	}
	return ps, tmp
}

// installTail makes a flushed segment the owner of the tail's postings
// and empties the tail. The caller holds wmu and excludes readers.
func (x *index) installTail(sg *segment, flushed []int32) {
	if sg != nil {
		for _, s := range flushed {
			x.owner[s] = sg.id
		}
		sg.docs, sg.live = len(flushed), len(flushed)
		x.segs = append(x.segs, sg)
	}
	for _, g := range x.tailGroups {
		g.tail = nil
	}
	x.tailGroups = x.tailGroups[:0]
	clear(x.tail) // drop the vectors
	x.tail = x.tail[:0]
}

// graphSave is a graph saved by a checkpoint.
type graphSave struct {
	g     *group
	gr    *graph
	file  int
	nodes int
}

// saveGraphs saves the graphs that must or should be saved (see
// checkpoint).
func (x *index) saveGraphs(closing bool) ([]graphSave, error) {
	var saves []graphSave
	for _, g := range x.groups {
		gr := g.graph
		if gr == nil {
			continue
		}
		nodes, _ := gr.counts()
		grown := nodes - gr.savedNodes
		if !gr.purged && grown == 0 || !gr.purged && !closing && grown < max(10_000, gr.savedNodes/4) {
			continue
		}
		x.nextFile++
		if err := gr.save(filepath.Join(x.dir, graphName(g.id, x.nextFile)), g.id, nodes); err != nil {
			for _, sv := range saves {
				os.Remove(filepath.Join(x.dir, graphName(sv.g.id, sv.file)))
			}
			return nil, err
		}
		saves = append(saves, graphSave{g: g, gr: gr, file: x.nextFile, nodes: nodes})
	}
	return saves, nil
}

// writeMeta writes the meta file of the state after record seq and
// renames it into place.
func (x *index) writeMeta(seq uint64) (err error) {
	tmp := filepath.Join(x.dir, metaTmp)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create meta: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	var size int64
	frame := func(fill func(e *encoder)) {
		b := encodeFrame(nil, fill)
		size += int64(len(b))
		w.Write(b)
	}
	w.Write([]byte(metaMagic))
	// Records files are renumbered without the closed ones.
	renum := make([]uint16, len(x.recs.files)+1)
	var recs []int
	var recLens []int64
	for i, rf := range x.recs.files {
		if rf == nil {
			continue
		}
		st, err := rf.Stat()
		if err != nil {
			return fmt.Errorf("stat records file: %w", err)
		}
		recs = append(recs, x.recs.nums[i])
		recLens = append(recLens, st.Size())
		renum[i+1] = uint16(len(recs))
	}
	frame(func(e *encoder) {
		e.byte(metaHeader)
		e.uvarint(seq)
		e.uvarint(uint64(x.dim))
		e.uvarint(uint64(len(x.file)))
		e.uvarint(uint64(x.points))
		e.uvarint(uint64(x.nextGroup))
		e.uvarint(uint64(x.nextFile))
		e.uvarint(uint64(len(recs)))
		for i, n := range recs {
			e.uvarint(uint64(n))
			e.uvarint(uint64(recLens[i]))
		}
		e.uvarint(uint64(len(x.segs)))
		for _, sg := range x.segs {
			e.uvarint(uint64(sg.id))
			e.uvarint(uint64(sg.docs))
		}
		var graphs []*group
		for _, g := range x.groups {
			if g.graph != nil && g.graph.file != 0 {
				graphs = append(graphs, g)
			}
		}
		e.uvarint(uint64(len(graphs)))
		for _, g := range graphs {
			e.uvarint(uint64(g.id))
			e.uvarint(uint64(g.graph.file))
		}
	})
	hashKeys := x.slotHashKeys()
	for from := 0; from < len(x.file); from += metaChunk {
		to := min(from+metaChunk, len(x.file))
		frame(func(e *encoder) {
			e.byte(metaSlots)
			e.uvarint(uint64(from))
			e.uvarint(uint64(to - from))
			for s := from; s < to; s++ {
				e.b = append(e.b, x.ids[s][:]...)
				e.varint(int64(x.nos[s]))
				l := x.locs[s]
				e.uvarint(uint64(renum[l.file()]))
				e.uvarint(uint64(l.offset()))
				e.uvarint(uint64(l.n))
				e.uvarint(uint64(l.head))
				q := x.qrow[s]
				e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(q.scale))
				e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(q.resid))
				e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(q.norm))
				e.varint(int64(x.owner[s]))
				e.bool(x.dense[s])
				e.b = binary.LittleEndian.AppendUint64(e.b, hashKeys[s])
			}
		})
	}
	ids := make([]uint32, 0, len(x.groups))
	for _, g := range x.groups {
		ids = append(ids, g.id)
	}
	slices.Sort(ids)
	frame(func(e *encoder) {
		e.byte(metaGroups)
		e.uvarint(uint64(len(ids)))
		for _, id := range ids {
			g := x.groupByID[id]
			e.uvarint(uint64(id))
			e.uvarint(uint64(len(g.readers)))
			for _, u := range g.readers {
				e.str(string(u))
			}
		}
	})
	files := make([]hs.FileID, 0, len(x.files))
	for id := range x.files {
		files = append(files, id)
	}
	slices.Sort(files)
	for from := 0; from < len(files); from += metaChunk / 8 {
		to := min(from+metaChunk/8, len(files))
		frame(func(e *encoder) {
			e.byte(metaFiles)
			e.uvarint(uint64(to - from))
			for _, id := range files[from:to] {
				fr := x.files[id]
				e.meta(fr.meta)
				e.uvarint(uint64(fr.group.id))
				e.uvarint(uint64(len(fr.points)))
				for _, s := range fr.points {
					e.uvarint(uint64(s))
				}
			}
		})
	}
	free := slices.Concat(x.free, x.freed)
	slices.Sort(free)
	frame(func(e *encoder) {
		e.byte(metaFree)
		e.uvarint(uint64(len(free)))
		prev := int32(0)
		for _, s := range free {
			e.uvarint(uint64(s - prev))
			prev = s
		}
	})
	for v := range x.df {
		d := &x.df[v]
		terms := make([]uint32, 0, len(d.n))
		for t := range d.n {
			terms = append(terms, t)
		}
		slices.Sort(terms)
		for from := 0; from == 0 || from < len(terms); from += 8 * metaChunk {
			to := min(from+8*metaChunk, len(terms))
			frame(func(e *encoder) {
				e.byte(metaDF)
				e.uvarint(uint64(v))
				e.uvarint(uint64(d.docs))
				e.uvarint(uint64(to - from))
				prev := uint32(0)
				for _, t := range terms[from:to] {
					e.uvarint(uint64(t - prev))
					e.uvarint(uint64(d.n[t]))
					prev = t
				}
			})
		}
	}
	frame(func(e *encoder) { e.byte(metaEnd) })
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write meta: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync meta: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close meta: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(x.dir, metaName)); err != nil {
		return fmt.Errorf("rename meta: %w", err)
	}
	if err := syncDir(x.dir); err != nil {
		return err
	}
	x.metaSize = size
	return nil
}

// slotHashKeys returns each live dense slot's hash key, 0 for none.
func (x *index) slotHashKeys() []uint64 {
	keys := make([]uint64, len(x.file))
	for key, first := range x.hashes {
		for s := first; s >= 0; s = x.hnext[s] {
			keys[s] = key
		}
	}
	return keys
}

// loadMeta opens the checkpoint in dir: the meta, records files, rows,
// segments and graphs. It returns the sequence number of the last record
// the checkpoint holds, or ok false when dir has no meta.
func loadMeta(dir string, graphMin int) (x *index, seq uint64, ok bool, err error) {
	f, err := os.Open(filepath.Join(dir, metaName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("open meta: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, false, fmt.Errorf("stat meta: %w", err)
	}
	x = newIndex(dir)
	x.graphMin = graphMin
	x.metaSize = st.Size()
	defer func(idx *index) {
		if err != nil {
			idx.close()
		}
	}(x)
	r := bufio.NewReaderSize(f, 1<<20)
	if err := readMagic(r, metaMagic); err != nil {
		return nil, 0, false, fmt.Errorf("meta: %w", err)
	}
	ld := &metaLoader{x: x}
	var frame []byte
	for done := false; !done; {
		if frame, err = readFrame(r, frame); err != nil {
			return nil, 0, false, fmt.Errorf("meta: %w", badSnapshot(err))
		}
		d := decoder{b: frame}
		typ := d.byte()
		switch typ {
		case metaHeader:
			err = ld.header(&d)
			seq = ld.seq
		case metaSlots:
			err = ld.slots(&d)
		case metaGroups:
			err = ld.groups(&d)
		case metaFiles:
			err = ld.files(&d)
		case metaFree:
			err = ld.free(&d)
		case metaDF:
			err = ld.df(&d)
		case metaEnd:
			done = true
		default:
			err = errCorrupt
		}
		if err == nil && d.err == nil && len(d.b) != 0 {
			err = errCorrupt
		}
		if err == nil {
			err = d.err
		}
		if err != nil {
			return nil, 0, false, fmt.Errorf("meta: frame %q: %w", typ, err)
		}
	}
	if err := ld.finish(); err != nil {
		return nil, 0, false, err
	}
	return x, seq, true, nil
}

// metaLoader builds an index from meta frames.
type metaLoader struct {
	x         *index
	seq       uint64
	nslots    int
	points    int
	recs      []int
	lens      []int64
	segs      []int32
	segDocs   []int
	graphs    map[uint32]int
	hashes    []uint64
	freeSlots []int32
	hasHeader bool
}

func (ld *metaLoader) header(d *decoder) error {
	x := ld.x
	ld.seq = d.uvarint()
	dim, n, points := d.uvarint(), d.uvarint(), d.uvarint()
	x.nextGroup, x.nextFile = uint32(d.uvarint()), int(d.uvarint())
	if d.err != nil || dim > 1<<20 || n > 1<<31 || points > n {
		return errCorrupt
	}
	x.dim, ld.nslots, ld.points = int(dim), int(n), int(points)
	for k := d.count(2); k > 0; k-- {
		ld.recs = append(ld.recs, int(d.uvarint()))
		ld.lens = append(ld.lens, int64(d.uvarint()))
	}
	for k := d.count(2); k > 0; k-- {
		ld.segs = append(ld.segs, int32(d.uvarint()))
		ld.segDocs = append(ld.segDocs, int(d.uvarint()))
	}
	ld.graphs = make(map[uint32]int)
	for k := d.count(2); k > 0; k-- {
		g := uint32(d.uvarint())
		ld.graphs[g] = int(d.uvarint())
	}
	x.reserve(ld.nslots)
	n0 := ld.nslots
	x.ids, x.nos, x.locs, x.file = x.ids[:n0], x.nos[:n0], x.locs[:n0], x.file[:n0]
	x.dense, x.qrow, x.owner = x.dense[:n0], x.qrow[:n0], x.owner[:n0]
	x.gnode, x.gpos, x.hnext = x.gnode[:n0], x.gpos[:n0], x.hnext[:n0]
	ld.hashes = make([]uint64, n0)
	ld.hasHeader = true
	return d.err
}

func (ld *metaLoader) slots(d *decoder) error {
	x := ld.x
	from, n := int(d.uvarint()), int(d.uvarint())
	if !ld.hasHeader || from+n > ld.nslots || d.err != nil {
		return errCorrupt
	}
	for s := from; s < from+n && d.err == nil; s++ {
		if len(d.b) < 16 {
			return errCorrupt
		}
		copy(x.ids[s][:], d.b[:16])
		d.b = d.b[16:]
		x.nos[s] = int32(d.varint())
		file, off, size, head := d.uvarint(), d.uvarint(), d.uvarint(), d.uvarint()
		if file > uint64(len(ld.recs)) || off >= 1<<locOffBits || size > math.MaxUint32 || head > size {
			return errCorrupt
		}
		x.locs[s] = recLoc{off: int64(file)<<locOffBits | int64(off), n: uint32(size), head: uint32(head)}
		if len(d.b) < 24 {
			return errCorrupt
		}
		x.qrow[s] = quantRow{
			scale: math.Float64frombits(binary.LittleEndian.Uint64(d.b)),
			resid: math.Float64frombits(binary.LittleEndian.Uint64(d.b[8:])),
			norm:  math.Float64frombits(binary.LittleEndian.Uint64(d.b[16:])),
		}
		d.b = d.b[24:]
		x.owner[s] = int32(d.varint())
		x.dense[s] = d.bool()
		if len(d.b) < 8 {
			return errCorrupt
		}
		ld.hashes[s] = binary.LittleEndian.Uint64(d.b)
		d.b = d.b[8:]
		x.gnode[s], x.hnext[s] = -1, -1
	}
	return d.err
}

func (ld *metaLoader) groups(d *decoder) error {
	x := ld.x
	for k := d.count(2); k > 0 && d.err == nil; k-- {
		id := uint32(d.uvarint())
		readers := make([]hs.UserID, d.count(1))
		for i := range readers {
			readers[i] = hs.UserID(d.str())
		}
		if d.err != nil || id == 0 || id > x.nextGroup || x.groupByID[id] != nil || !slices.IsSorted(readers) {
			return errCorrupt
		}
		g := &group{id: id, key: groupKey(readers), readers: readers}
		if x.groups[g.key] != nil {
			return errCorrupt
		}
		x.addGroup(g)
	}
	return d.err
}

func (ld *metaLoader) files(d *decoder) error {
	x := ld.x
	for k := d.count(1); k > 0 && d.err == nil; k-- {
		meta := d.meta()
		g := x.groupByID[uint32(d.uvarint())]
		n := d.count(1)
		if d.err != nil || g == nil || g.key != groupKey(meta.Readers) || x.files[meta.ID] != nil || n == 0 {
			return errCorrupt
		}
		fr := &fileRec{meta: meta, points: make([]int32, n)}
		for i := range fr.points {
			s := d.uvarint()
			if s >= uint64(ld.nslots) || x.file[s] != nil {
				return errCorrupt
			}
			fr.points[i] = int32(s)
			x.file[s] = fr
		}
		fr.slots = slices.Sorted(slices.Values(fr.points))
		x.files[meta.ID] = fr
		g.addFile(fr)
		for _, s := range fr.points {
			x.addSlot(g, s)
		}
		x.points += n
	}
	return d.err
}

func (ld *metaLoader) free(d *decoder) error {
	prev := uint64(0)
	for k := d.count(1); k > 0 && d.err == nil; k-- {
		prev += d.uvarint()
		if prev >= uint64(ld.nslots) || ld.x.file[prev] != nil {
			return errCorrupt
		}
		ld.freeSlots = append(ld.freeSlots, int32(prev))
	}
	return d.err
}

func (ld *metaLoader) df(d *decoder) error {
	v := d.uvarint()
	if v > 1 {
		return errCorrupt
	}
	df := &ld.x.df[v]
	df.docs = int(d.uvarint())
	prev := uint64(0)
	for k := d.count(2); k > 0 && d.err == nil; k-- {
		prev += d.uvarint()
		df.n[uint32(prev)] = int32(d.uvarint())
	}
	return d.err
}

// finish opens what the meta names and links what needs all of it.
func (ld *metaLoader) finish() error {
	x := ld.x
	if !ld.hasHeader || x.points != ld.points {
		return fmt.Errorf("meta: %d points of %d: %w", x.points, ld.points, errCorrupt)
	}
	for i, n := range ld.recs {
		f, err := os.OpenFile(filepath.Join(x.dir, recName(n)), os.O_RDWR, 0o600)
		if err != nil {
			return fmt.Errorf("open records file: %w", err)
		}
		x.recs.add(f, n)
		st, err := f.Stat()
		if err != nil {
			return fmt.Errorf("stat records file: %w", err)
		}
		switch {
		case st.Size() < ld.lens[i]:
			return fmt.Errorf("records file %s is %d bytes, want %d: %w", f.Name(), st.Size(), ld.lens[i], errCorrupt)
		case st.Size() > ld.lens[i]:
			// A checkpoint that did not commit appended to it.
			if err := f.Truncate(ld.lens[i]); err != nil {
				return fmt.Errorf("truncate records file: %w", err)
			}
		}
	}
	if x.dim > 0 {
		vec, err := reopenRowFile(filepath.Join(x.dir, rowsName), 4*x.dim, ld.nslots)
		if err != nil {
			return err
		}
		vec8, err := reopenRowFile(filepath.Join(x.dir, rows8Name), x.dim, ld.nslots)
		if err != nil {
			vec.close()
			return err
		}
		x.vec, x.vec8 = vec, vec8
		x.slab, x.q8 = vec.float32s(), vec8.int8s()
	}
	for i, id := range ld.segs {
		sg, err := openSegment(x.dir, id)
		if err != nil {
			return err
		}
		sg.docs = ld.segDocs[i]
		x.segs = append(x.segs, sg)
	}
	for s, o := range x.owner {
		if o > 0 && x.file[s] != nil {
			if sg := x.segment(o); sg != nil {
				sg.live++
			}
		}
	}
	for s, key := range ld.hashes {
		if key != 0 && x.file[s] != nil && x.dense[s] {
			x.hash(key, int32(s))
		}
	}
	for s := range x.file {
		if x.file[s] == nil {
			x.dense[s], x.owner[s] = false, ownNone
		}
	}
	// Slots neither live nor free are dead nodes of graphs; a graph file
	// that does not hold one (saved before it was inserted) frees it.
	held := make([]bool, ld.nslots)
	for s, f := range x.file {
		held[s] = f == nil
	}
	for _, s := range ld.freeSlots {
		held[s] = false
	}
	for gid, file := range ld.graphs {
		g := x.groupByID[gid]
		if g == nil {
			continue
		}
		gr, err := loadGraph(filepath.Join(x.dir, graphName(gid, file)), gid)
		if err != nil {
			return err
		}
		gr.file = file
		g.graph = gr
		x.adoptGraph(g, held)
	}
	for s, h := range held {
		if h {
			ld.freeSlots = append(ld.freeSlots, int32(s))
		}
	}
	x.free = ld.freeSlots
	for _, g := range x.groups {
		if gr := g.graph; gr != nil {
			for _, s := range g.slots {
				if x.dense[s] && x.gnode[s] < 0 {
					gr.pending = append(gr.pending, s)
				}
			}
		}
	}
	x.checkpointed()
	return nil
}

// adoptGraph links a loaded graph's nodes to their slots: a node of a
// live slot of its group is its node, a node of a held slot is dead, any
// other is dropped.
func (x *index) adoptGraph(g *group, held []bool) {
	gr := g.graph
	nodes, _ := gr.counts()
	for n := range nodes {
		s := gr.slotOf(uint32(n))
		switch {
		case s < 0 || int(s) >= len(x.file):
			gr.drop(uint32(n))
		case x.file[s] != nil && x.file[s].group == g && x.dense[s] && x.gnode[s] < 0:
			x.gnode[s] = int32(n)
		case x.file[s] == nil && held[s]:
			held[s] = false
			x.gnode[s] = int32(n)
			gr.dead = append(gr.dead, s)
		default:
			gr.drop(uint32(n))
		}
	}
}

// removeOrphans removes the files of dir that no checkpoint names: those
// of a checkpoint that did not commit, and of the v1 format once
// converted.
func (x *index) removeOrphans() {
	keep := map[string]bool{metaName: true, walName: true, lockName: true, rowsName: true, rows8Name: true}
	for i, n := range x.recs.nums {
		if x.recs.files[i] != nil && n != 0 {
			keep[recName(n)] = true
		}
	}
	for _, sg := range x.segs {
		keep[segName(sg.id)] = true
	}
	for _, g := range x.groups {
		if g.graph != nil && g.graph.file != 0 {
			keep[graphName(g.id, g.graph.file)] = true
		}
	}
	entries, err := os.ReadDir(x.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if keep[name] || e.IsDir() {
			continue
		}
		ours := name == metaTmp || name == snapName || name == snapTmp || name == denseName || name == dense8Name
		for _, prefix := range []string{"rec-", "seg-", "graph-"} {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				_, err := strconv.Atoi(strings.ReplaceAll(rest, "-", ""))
				ours = ours || err == nil
			}
		}
		if ours {
			os.Remove(filepath.Join(x.dir, name))
		}
	}
}

// graphsUnsaved reports whether a graph changed since it was last saved.
func (x *index) graphsUnsaved() bool {
	for _, g := range x.groups {
		if gr := g.graph; gr != nil {
			if nodes, _ := gr.counts(); gr.purged || nodes != gr.savedNodes {
				return true
			}
		}
	}
	return false
}
