package local

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// A segment is an immutable file of posting lists, written when a
// checkpoint writes out the tail (postings.go) or when segments are merged
// (merge.go), and mapped into memory to be read. Its postings are grouped
// by vector, then by group (the files of one set of readers), then by
// index, so a search reads only its user's groups' lists. A list's slots
// are ascending and split into blocks of segBlock postings, each with the
// largest weight it holds (its block max), so that a search can skip the
// blocks that cannot reach its top k (block-max WAND, wand.go).
//
// Layout, after segMagic:
//
//	header    frame (length, CRC-32C, payload): uvarint segment id, then
//	          for each vector the offset and count of its group directory
//	          and the offset and count of its weight table
//	groups    per vector, sorted by group: group uint32, terms uint32,
//	          offset uint64 of the group's term entries
//	terms     per group, sorted by index: index uint32, count uint32
//	          (bit 31: every weight is 1, none stored; bit 30: weights are
//	          raw float32 rather than table numbers), max weight float32,
//	          offset uint32 of the postings from the group's term entries
//	postings  per term: with more than segBlock postings, a block
//	          directory (last slot int32, max weight float32, offset uint32
//	          from the directory's end) per block; then each block: the
//	          slots as uvarint deltas (the first from the previous block's
//	          last slot, or 0), then the weights (uvarint table numbers,
//	          raw float32 or nothing)
//	weights   per vector, the table's float32 weights
//
// All numbers are little-endian. The header is checked when a segment is
// opened; the rest is read where it lies (a checksum of a whole segment
// would mean reading it at every open), and reads past its end fail as
// corruption.

const (
	segMagic  = "HSSEG\x00\x00\x01"
	segBlock  = 128
	segGroupW = 16 // bytes per group directory entry
	segTermW  = 16 // bytes per term entry
	segBlockW = 12 // bytes per block directory entry

	termOnes = 1 << 31 // count flag: every weight is 1
	termRaw  = 1 << 30 // count flag: weights are raw float32
	termMask = termRaw - 1
)

// segment is an open segment.
type segment struct {
	id   int32
	docs int // points whose postings it was written with
	live int // of those, points whose postings are still its (index.owner)
	path string
	f    *os.File
	data []byte // the mapped file
	vecs [2]segVector
}

// segVector is one vector's part of a segment.
type segVector struct {
	groups  []byte // the group directory
	weights []float32
}

// segTerm is a term entry: a list's place and summary.
type segTerm struct {
	count int
	ones  bool
	raw   bool
	maxW  float32
	data  []byte // from the list's start (block directory or first block) to the end of the segment
}

// segName returns the file name of segment id.
func segName(id int32) string { return fmt.Sprintf("seg-%d", id) }

// openSegment maps the segment file id in dir and checks its header.
func openSegment(dir string, id int32) (*segment, error) {
	path := filepath.Join(dir, segName(id))
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("store: open segment: %w", err)
	}
	sg := &segment{id: id, path: path, f: f}
	if err := sg.load(); err != nil {
		sg.close()
		return nil, fmt.Errorf("store: segment %s: %w", path, err)
	}
	return sg, nil
}

func (sg *segment) load() error {
	st, err := sg.f.Stat()
	if err != nil {
		return err
	}
	if sg.data, err = mapFile(sg.f, int(st.Size())); err != nil {
		return err
	}
	r := &byteReader{b: sg.data}
	if err := readMagic(r, segMagic); err != nil {
		return err
	}
	frame, err := readFrame(r, nil)
	if err != nil {
		return badSnapshot(err)
	}
	d := decoder{b: frame}
	if id := int32(d.uvarint()); id != sg.id && d.err == nil {
		return fmt.Errorf("segment id %d in file of segment %d: %w", id, sg.id, errCorrupt)
	}
	for v := range sg.vecs {
		gOff, gN, wOff, wN := d.uvarint(), d.uvarint(), d.uvarint(), d.uvarint()
		if d.err != nil || gOff+gN*segGroupW > uint64(len(sg.data)) || wOff+wN*4 > uint64(len(sg.data)) {
			return errCorrupt
		}
		sg.vecs[v].groups = sg.data[gOff : gOff+gN*segGroupW]
		w := make([]float32, wN)
		for i := range w {
			w[i] = math.Float32frombits(binary.LittleEndian.Uint32(sg.data[wOff+uint64(4*i):]))
		}
		sg.vecs[v].weights = w
	}
	return d.err
}

// close unmaps and closes the segment.
func (sg *segment) close() error {
	err := unmapFile(sg.data)
	sg.data = nil
	if cerr := sg.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// terms returns the term entries of group g in vector v and the offset
// they start at (the base of their postings' offsets); none if the segment
// has no postings of g.
func (sg *segment) terms(v int, g uint32) ([]byte, int) {
	dir := sg.vecs[v].groups
	n := len(dir) / segGroupW
	lo, hi := 0, n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if binary.LittleEndian.Uint32(dir[mid*segGroupW:]) < g {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == n || binary.LittleEndian.Uint32(dir[lo*segGroupW:]) != g {
		return nil, 0
	}
	e := dir[lo*segGroupW:]
	nt := uint64(binary.LittleEndian.Uint32(e[4:]))
	off := binary.LittleEndian.Uint64(e[8:])
	if off+nt*segTermW > uint64(len(sg.data)) {
		return nil, 0 // corrupt: read as empty
	}
	return sg.data[off : off+nt*segTermW], int(off)
}

// term returns the entry of index i among a group's term entries, which
// start at base.
func (sg *segment) term(terms []byte, base int, i uint32) (segTerm, bool) {
	n := len(terms) / segTermW
	lo, hi := 0, n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if binary.LittleEndian.Uint32(terms[mid*segTermW:]) < i {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == n || binary.LittleEndian.Uint32(terms[lo*segTermW:]) != i {
		return segTerm{}, false
	}
	e := terms[lo*segTermW:]
	c := binary.LittleEndian.Uint32(e[4:])
	t := segTerm{count: int(c & termMask), ones: c&termOnes != 0, raw: c&termRaw != 0, maxW: math.Float32frombits(binary.LittleEndian.Uint32(e[8:]))}
	off := base + int(binary.LittleEndian.Uint32(e[12:]))
	if off > len(sg.data) || t.count == 0 {
		return segTerm{}, false
	}
	t.data = sg.data[off:]
	return t, true
}

// byteReader reads from a byte slice (the mapped segment header).
type byteReader struct{ b []byte }

func (r *byteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// segPosting is a posting being written.
type segPosting struct {
	slot int32
	w    float32
}

// segWriter writes a segment: vector by vector, group by group, term by
// term, each in ascending order.
type segWriter struct {
	f      *os.File
	w      *bufio.Writer
	off    int64
	id     int32
	v      int          // the vector being written
	groups [2][]byte    // group directories
	tables [2][]float32 // weight tables
	ids    [2]map[uint32]uint32
	// The group being written: its term entries and postings, written
	// out when the group ends.
	group    uint32
	inGroup  bool
	terms    []byte
	postings []byte
	err      error
}

// newSegWriter creates segment id's file in dir.
func newSegWriter(dir string, id int32) (*segWriter, error) {
	f, err := os.OpenFile(filepath.Join(dir, segName(id)), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: create segment: %w", err)
	}
	sw := &segWriter{f: f, w: bufio.NewWriterSize(f, 1<<20), id: id}
	sw.ids = [2]map[uint32]uint32{make(map[uint32]uint32), make(map[uint32]uint32)}
	// A fixed-size header slot: magic and a frame written last.
	sw.write(make([]byte, segHeaderMax))
	return sw, nil
}

// segHeaderMax is the room kept for the header at the start of the file.
const segHeaderMax = 256

func (sw *segWriter) write(b []byte) {
	if sw.err != nil {
		return
	}
	n, err := sw.w.Write(b)
	sw.off += int64(n)
	sw.err = err
}

// startGroup begins group g of vector v (groups in ascending order).
func (sw *segWriter) startGroup(v int, g uint32) {
	sw.endGroup()
	sw.v, sw.group, sw.inGroup = v, g, true
	sw.terms, sw.postings = sw.terms[:0], sw.postings[:0]
}

// addTerm writes the list of index i of the current group: postings in
// ascending slot order, at least one.
func (sw *segWriter) addTerm(i uint32, ps []segPosting) {
	ones, raw := true, false
	var maxW float32 = float32(math.Inf(-1))
	for _, p := range ps {
		maxW = max(maxW, p.w)
		if math.Float32bits(p.w) != one {
			ones = false
			if _, ok := sw.ids[sw.v][math.Float32bits(p.w)]; !ok && len(sw.tables[sw.v]) >= maxWeights {
				raw = true
			}
		}
	}
	if !ones && !raw {
		for _, p := range ps {
			bits := math.Float32bits(p.w)
			if _, ok := sw.ids[sw.v][bits]; !ok {
				sw.ids[sw.v][bits] = uint32(len(sw.tables[sw.v]))
				sw.tables[sw.v] = append(sw.tables[sw.v], p.w)
			}
		}
	}
	count := uint32(len(ps))
	if ones {
		count |= termOnes
	} else if raw {
		count |= termRaw
	}
	e := binary.LittleEndian.AppendUint32(nil, i)
	e = binary.LittleEndian.AppendUint32(e, count)
	e = binary.LittleEndian.AppendUint32(e, math.Float32bits(maxW))
	e = binary.LittleEndian.AppendUint32(e, uint32(len(sw.postings))) // from the postings' start; fixed in endGroup
	sw.terms = append(sw.terms, e...)
	nb := (len(ps) + segBlock - 1) / segBlock
	dirAt := len(sw.postings)
	if nb > 1 {
		sw.postings = append(sw.postings, make([]byte, nb*segBlockW)...)
	}
	start := len(sw.postings)
	var prev int32
	for b := range nb {
		blk := ps[b*segBlock : min((b+1)*segBlock, len(ps))]
		at := len(sw.postings) - start
		bmax := float32(math.Inf(-1))
		for _, p := range blk {
			sw.postings = binary.AppendUvarint(sw.postings, uint64(p.slot-prev))
			prev = p.slot
			bmax = max(bmax, p.w)
		}
		switch {
		case ones:
		case raw:
			for _, p := range blk {
				sw.postings = binary.LittleEndian.AppendUint32(sw.postings, math.Float32bits(p.w))
			}
		default:
			for _, p := range blk {
				sw.postings = binary.AppendUvarint(sw.postings, uint64(sw.ids[sw.v][math.Float32bits(p.w)]))
			}
		}
		if nb > 1 {
			d := sw.postings[dirAt+b*segBlockW:]
			binary.LittleEndian.PutUint32(d, uint32(prev))
			binary.LittleEndian.PutUint32(d[4:], math.Float32bits(bmax))
			binary.LittleEndian.PutUint32(d[8:], uint32(at))
		}
	}
}

// endGroup writes out the current group's term entries and postings.
func (sw *segWriter) endGroup() {
	if !sw.inGroup {
		return
	}
	sw.inGroup = false
	n := len(sw.terms) / segTermW
	if n == 0 {
		return
	}
	// Offsets count from the term entries' start.
	for j := range n {
		e := sw.terms[j*segTermW:]
		binary.LittleEndian.PutUint32(e[12:], binary.LittleEndian.Uint32(e[12:])+uint32(len(sw.terms)))
	}
	entry := binary.LittleEndian.AppendUint32(nil, sw.group)
	entry = binary.LittleEndian.AppendUint32(entry, uint32(n))
	entry = binary.LittleEndian.AppendUint64(entry, uint64(sw.off))
	sw.groups[sw.v] = append(sw.groups[sw.v], entry...)
	if int64(len(sw.terms))+int64(len(sw.postings)) > math.MaxUint32 {
		sw.err = fmt.Errorf("store: a group's postings exceed 4 GB")
	}
	sw.write(sw.terms)
	sw.write(sw.postings)
}

// finish writes the directories, tables and header, syncs and closes the
// file, and opens it as a segment.
func (sw *segWriter) finish(dir string) (*segment, error) {
	sw.endGroup()
	var hdr encoder
	hdr.uvarint(uint64(sw.id))
	for v := range sw.groups {
		gOff := sw.off
		sw.write(sw.groups[v])
		wOff := sw.off
		for _, w := range sw.tables[v] {
			sw.write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(w)))
		}
		hdr.uvarint(uint64(gOff))
		hdr.uvarint(uint64(len(sw.groups[v]) / segGroupW))
		hdr.uvarint(uint64(wOff))
		hdr.uvarint(uint64(len(sw.tables[v])))
	}
	if sw.err == nil {
		sw.err = sw.w.Flush()
	}
	frame := encodeFrame(nil, func(e *encoder) { e.b = append(e.b, hdr.b...) })
	head := append([]byte(segMagic), frame...)
	if sw.err == nil && len(head) > segHeaderMax {
		sw.err = errors.New("store: segment header too large")
	}
	if sw.err == nil {
		_, sw.err = sw.f.WriteAt(head, 0)
	}
	if sw.err == nil {
		sw.err = sw.f.Sync()
	}
	if cerr := sw.f.Close(); sw.err == nil {
		sw.err = cerr
	}
	if sw.err != nil {
		os.Remove(sw.f.Name())
		return nil, fmt.Errorf("store: write segment: %w", sw.err)
	}
	return openSegment(dir, sw.id)
}

// cursor walks one posting list of a segment in slot order, a block at a
// time; its current posting is (doc, weight()). doc is endDoc past the
// end.
type cursor struct {
	j      int     // the query index it belongs to
	w      float32 // query weight times IDF
	ub     float32 // w times the list's max weight: no posting scores more
	t      segTerm
	table  []float32
	blocks []byte // block directory, nil for a single block
	nb     int
	body   []byte // the blocks
	bi     int    // current block, -1 before the first decode
	shal   int    // block shallowAdvance positioned at
	slots  [segBlock]int32
	ws     [segBlock]float32
	n, i   int
	doc    int32
	bad    bool // a posting failed to decode: the list ends there
}

// endDoc is a cursor's doc past its end.
const endDoc = math.MaxInt32

// reset positions c at the start of list t.
func (c *cursor) reset(t segTerm, table []float32) {
	c.t, c.table = t, table
	c.nb = (t.count + segBlock - 1) / segBlock
	c.blocks, c.body = nil, t.data
	if c.nb > 1 {
		if len(t.data) < c.nb*segBlockW {
			c.nb, c.body = 0, nil
		} else {
			c.blocks, c.body = t.data[:c.nb*segBlockW], t.data[c.nb*segBlockW:]
		}
	}
	c.bi, c.shal, c.n, c.i, c.bad = -1, 0, 0, 0, false
	c.doc = -1
	c.decode(0)
}

// blockLast returns block b's last slot (endDoc-1 for a single block).
func (c *cursor) blockLast(b int) int32 {
	if c.blocks == nil {
		return endDoc - 1
	}
	return int32(binary.LittleEndian.Uint32(c.blocks[b*segBlockW:]))
}

// blockMax returns block b's max weight.
func (c *cursor) blockMax(b int) float32 {
	if c.blocks == nil {
		return c.t.maxW
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(c.blocks[b*segBlockW+4:]))
}

// decode decodes block b and positions c at its first posting.
func (c *cursor) decode(b int) {
	if b >= c.nb || c.bad {
		c.bi, c.doc = c.nb, endDoc
		return
	}
	var off int
	var prev int32
	if c.blocks != nil {
		off = int(binary.LittleEndian.Uint32(c.blocks[b*segBlockW+8:]))
		if b > 0 {
			prev = c.blockLast(b - 1)
		}
	}
	n := min(segBlock, c.t.count-b*segBlock)
	buf := c.body
	if off > len(buf) {
		c.fail()
		return
	}
	buf = buf[off:]
	for k := range n {
		d, m := binary.Uvarint(buf)
		if m <= 0 {
			c.fail()
			return
		}
		buf = buf[m:]
		prev += int32(d)
		c.slots[k] = prev
	}
	switch {
	case c.t.ones:
		for k := range n {
			c.ws[k] = 1
		}
	case c.t.raw:
		if len(buf) < 4*n {
			c.fail()
			return
		}
		for k := range n {
			c.ws[k] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*k:]))
		}
	default:
		for k := range n {
			id, m := binary.Uvarint(buf)
			if m <= 0 || id >= uint64(len(c.table)) {
				c.fail()
				return
			}
			buf = buf[m:]
			c.ws[k] = c.table[id]
		}
	}
	c.bi, c.shal, c.n, c.i = b, b, n, 0
	c.doc = c.slots[0]
}

func (c *cursor) fail() {
	c.bad = true
	c.bi, c.doc = c.nb, endDoc
}

// weight returns the current posting's weight.
func (c *cursor) weight() float32 { return c.ws[c.i] }

// next moves to the next posting.
func (c *cursor) next() {
	if c.doc == endDoc {
		return
	}
	if c.i++; c.i < c.n {
		c.doc = c.slots[c.i]
		return
	}
	c.decode(c.bi + 1)
}

// advance moves to the first posting whose slot is at least target.
func (c *cursor) advance(target int32) {
	if c.doc >= target {
		return
	}
	if c.blocks != nil && c.blockLast(c.bi) < target {
		b := c.bi + 1
		for b < c.nb && c.blockLast(b) < target {
			b++
		}
		c.decode(b)
		if c.doc >= target {
			return
		}
	}
	for c.doc < target {
		c.next()
	}
}

// shallow positions the block pointer (not the cursor) at the block
// holding target, if any, and returns its last slot and its upper bound
// (w times its max weight); past the end it returns endDoc, 0.
func (c *cursor) shallow(target int32) (int32, float32) {
	if c.doc == endDoc {
		return endDoc, 0
	}
	b := max(c.shal, c.bi)
	for b < c.nb && c.blockLast(b) < target {
		b++
	}
	if b >= c.nb {
		return endDoc, 0
	}
	c.shal = b
	return c.blockLast(b), c.w * c.blockMax(b)
}

// sortSegPostings sorts postings by slot.
func sortSegPostings(ps []segPosting) {
	slices.SortFunc(ps, func(a, b segPosting) int { return cmp.Compare(a.slot, b.slot) })
}
