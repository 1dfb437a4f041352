package local

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// The WAL and the snapshot share one binary encoding: unsigned varints for
// counts and lengths, zig-zag varints for signed numbers, little-endian
// IEEE-754 for float32 and length-prefixed UTF-8 for strings.

// errCorrupt reports a record that passed its checksum but does not decode:
// a bug or a format mismatch, never a torn write.
var errCorrupt = errors.New("corrupt record")

// encoder appends to a byte slice. With compact set it writes sparse
// vectors in the records files' form (see sparse).
type encoder struct {
	b       []byte
	compact bool
}

func (e *encoder) byte(v byte)      { e.b = append(e.b, v) }
func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) u32(v uint32)     { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) f32(v float32)    { e.u32(math.Float32bits(v)) }
func (e *encoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) int(v int)        { e.varint(int64(v)) }
func (e *encoder) bool(v bool) {
	if v {
		e.byte(1)
	} else {
		e.byte(0)
	}
}

func (e *encoder) floats(v []float32) {
	e.uvarint(uint64(len(v)))
	for _, x := range v {
		e.f32(x)
	}
}

func (e *encoder) strs(v []string) {
	e.uvarint(uint64(len(v)))
	for _, s := range v {
		e.str(s)
	}
}

func (e *encoder) time(t time.Time) {
	if t.IsZero() {
		e.bool(false)
		return
	}
	e.bool(true)
	e.varint(t.Unix())
	e.uvarint(uint64(t.Nanosecond()))
}

// sparse writes indices as deltas (they are sorted and unique), then the
// values. In compact form (records files, checkpoint.go) a byte comes
// before the values: 1 when every value is 1 and none follow (trigram
// vectors, half of a record), 0 when they follow.
func (e *encoder) sparse(v hs.SparseVector) {
	e.uvarint(uint64(len(v.Indices)))
	prev := uint32(0)
	for _, i := range v.Indices {
		e.uvarint(uint64(i - prev))
		prev = i
	}
	if e.compact && len(v.Values) > 0 {
		if !slices.ContainsFunc(v.Values, func(x float32) bool { return math.Float32bits(x) != one }) {
			e.byte(1)
			return
		}
		e.byte(0)
	}
	for _, x := range v.Values {
		e.f32(x)
	}
}

func (e *encoder) meta(m hs.FileMeta) {
	e.varint(int64(m.ID))
	e.str(m.Path)
	e.str(m.Title)
	e.str(m.MIME)
	e.str(string(m.Type))
	e.time(m.Modified)
	e.str(m.ETag)
	e.varint(m.Size)
	// Each reader is written as "<uid>" or, with the path they see the
	// file at, "<uid>\x00<path>": a store written before paths were kept
	// reads the same way, with no paths.
	e.uvarint(uint64(len(m.Readers)))
	for _, r := range m.Readers {
		if p, ok := m.Paths[r]; ok && p != "" {
			e.str(string(r) + "\x00" + p)
		} else {
			e.str(string(r))
		}
	}
}

// point writes one point of a file without its file id and metadata, and
// returns where its head (id and chunk, up to the hash) ends, relative to
// where it starts.
func (e *encoder) point(id string, c hs.Chunk, dense []float32, bm25, trigram hs.SparseVector) (head int) {
	start := len(e.b)
	e.str(id)
	e.int(c.No)
	e.str(c.Text)
	e.int(c.Start)
	e.int(c.End)
	e.strs(c.Headings)
	// A recognised (OCR) chunk's page is written negated: it is never 0
	// (an image is page 1), and a store written before OCR reads the same.
	if c.OCR {
		e.int(-max(c.Page, 1))
	} else {
		e.int(c.Page)
	}
	e.str(c.Hash)
	head = len(e.b) - start
	e.floats(dense)
	e.sparse(bm25)
	e.sparse(trigram)
	return head
}

// decoder reads what encoder wrote, in compact form when compact is set.
// The first failure sticks in err and every later read returns a zero
// value, so callers check err once.
type decoder struct {
	b       []byte
	err     error
	compact bool
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.b = nil
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) u32() uint32 {
	if len(d.b) < 4 {
		d.fail()
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return v
}

func (d *decoder) f32() float32 { return math.Float32frombits(d.u32()) }
func (d *decoder) int() int     { return int(d.varint()) }
func (d *decoder) bool() bool   { return d.byte() != 0 }

// count reads a length and checks that at least size bytes per element
// remain, so a corrupt length cannot make a huge allocation.
func (d *decoder) count(size int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/size) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.count(1)
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) floats() []float32 {
	n := d.count(4)
	if n == 0 {
		return nil
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = d.f32()
	}
	return v
}

func (d *decoder) strs() []string {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	v := make([]string, n)
	for i := range v {
		v[i] = d.str()
	}
	return v
}

func (d *decoder) time() time.Time {
	if !d.bool() {
		return time.Time{}
	}
	sec := d.varint()
	nsec := d.uvarint()
	if nsec >= 1e9 {
		d.fail()
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

func (d *decoder) sparse() hs.SparseVector {
	size := 5 // bytes per element at least
	if d.compact {
		size = 1
	}
	n := d.count(size)
	if n == 0 {
		return hs.SparseVector{}
	}
	v := hs.SparseVector{Indices: make([]uint32, n), Values: make([]float32, n)}
	prev := uint64(0)
	for i := range v.Indices {
		prev += d.uvarint()
		if prev > math.MaxUint32 || (i > 0 && uint32(prev) == v.Indices[i-1]) {
			d.fail()
			return hs.SparseVector{}
		}
		v.Indices[i] = uint32(prev)
	}
	if d.compact && d.byte() == 1 {
		for i := range v.Values {
			v.Values[i] = 1
		}
		return v
	}
	for i := range v.Values {
		v.Values[i] = d.f32()
	}
	return v
}

func (d *decoder) meta() hs.FileMeta {
	m := hs.FileMeta{
		ID:       hs.FileID(d.varint()),
		Path:     d.str(),
		Title:    d.str(),
		MIME:     d.str(),
		Type:     hs.DocType(d.str()),
		Modified: d.time(),
		ETag:     d.str(),
		Size:     d.varint(),
	}
	if n := d.count(1); n > 0 {
		m.Readers = make([]hs.UserID, n)
		for i := range m.Readers {
			r, p, found := strings.Cut(d.str(), "\x00")
			m.Readers[i] = hs.UserID(r)
			if found {
				if m.Paths == nil {
					m.Paths = make(map[hs.UserID]string, n)
				}
				m.Paths[m.Readers[i]] = p
			}
		}
	}
	return m
}

// point reads what encoder.point wrote into a pointIn of file.
func (d *decoder) point(file hs.FileID) pointIn {
	var p pointIn
	p.id, p.chunk = d.pointHead(file)
	p.dense = d.floats()
	p.bm25 = d.sparse()
	p.trigram = d.sparse()
	return p
}

// pointHead reads a point's id and chunk, the head of what encoder.point
// wrote.
func (d *decoder) pointHead(file hs.FileID) (string, hs.Chunk) {
	id := d.str()
	c := hs.Chunk{FileID: file}
	c.No = d.int()
	c.Text = d.str()
	c.Start = d.int()
	c.End = d.int()
	c.Headings = d.strs()
	c.Page = d.int()
	if c.Page < 0 {
		c.Page, c.OCR = -c.Page, true
	}
	c.Hash = d.str()
	return id, c
}

// pointHash reads the chunk hash of a record's head, skipping the rest.
func (d *decoder) pointHash() string {
	d.skip() // id
	d.varint()
	d.skip() // text
	d.varint()
	d.varint()
	for n := d.count(1); n > 0; n-- {
		d.skip() // a heading
	}
	d.varint()
	return d.str()
}

// pointTerms reads what a removal needs of a record that encoder.point
// wrote: the chunk hash, and each sparse vector's indices passed to f with
// the vector's number (0 bm25, 1 trigram). Text and vectors are skipped.
func (d *decoder) pointTerms(f func(vector int, index uint32)) (hash string) {
	hash = d.pointHash()
	n := d.count(4)
	d.bytes(4 * n) // dense
	for v := range 2 {
		n := d.count(1)
		prev := uint64(0)
		for range n {
			prev += d.uvarint()
			if d.err == nil {
				f(v, uint32(prev))
			}
		}
		if n > 0 && d.compact && d.byte() == 1 {
			continue
		}
		d.bytes(4 * n) // values
	}
	return hash
}

// skip passes over a string.
func (d *decoder) skip() { d.bytes(d.count(1)) }

// bytes passes over n bytes.
func (d *decoder) bytes(n int) {
	if n > len(d.b) {
		d.fail()
		return
	}
	d.b = d.b[n:]
}
