package local

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
)

// A point's record (what encoder.point writes: id, chunk, dense vector,
// sparse vectors) is not kept in memory: the index remembers where it lies
// and reads it back (pread, served from the page cache) when a hit with
// text, ReadChunks, a file's points or a removal needs it: a search asks
// for hits without text and reads the few chunks it shows. Records lie in
// the write-ahead log until a checkpoint copies them into a records file
// (checkpoint.go), which stores them without their dense vectors: those
// are in the row files.

// recLoc is where a point's record lies: n bytes at off in file (0 the WAL,
// else records.files[file-1]), whose first head bytes run up to and
// including the chunk hash.
type recLoc struct {
	off  int64 // low 48 bits: offset; high 16: file
	n    uint32
	head uint32
}

const locOffBits = 48

func (r recLoc) offset() int64   { return r.off & (1<<locOffBits - 1) }
func (r recLoc) file() uint16    { return uint16(r.off >> locOffBits) }
func (r recLoc) headLen() uint32 { return r.head }

// recPos is a record's place in a frame: bytes from the frame's start (its
// header included) to the record, to the end of its head, and to its end.
type recPos struct{ start, head, end uint32 }

// loc returns the location of a record at pos in a frame at off of file f.
func (p recPos) loc(off int64, f uint16) recLoc {
	return recLoc{off: int64(f)<<locOffBits | (off + int64(p.start)), n: p.end - p.start, head: p.head - p.start}
}

// records reads point records from the files that hold them.
type records struct {
	wal   *os.File
	files []*os.File // records files, by number - 1; nil for a closed one
	nums  []int      // their file names' numbers (rec-N), 0 for a v1 snapshot
}

// read returns the record at l, its head only unless full, in buf's
// storage.
func (r *records) read(l recLoc, full bool, buf []byte) ([]byte, error) {
	var f *os.File
	switch n := int(l.file()); {
	case n == 0:
		f = r.wal
	case n <= len(r.files):
		f = r.files[n-1]
	}
	size := int(l.headLen())
	if full {
		size = int(l.n)
	}
	if f == nil || size == 0 {
		return nil, fmt.Errorf("store: point record at %d of file %d: %w", l.offset(), l.file(), errCorrupt)
	}
	buf = slices.Grow(buf[:0], size)[:size]
	if _, err := f.ReadAt(buf, l.offset()); err != nil {
		return nil, fmt.Errorf("store: read point record: %w", err)
	}
	return buf, nil
}

// add makes f, named by num (0 for a v1 snapshot), a records file and
// returns the number locations give it.
func (r *records) add(f *os.File, num int) uint16 {
	r.files = append(r.files, f)
	r.nums = append(r.nums, num)
	return uint16(len(r.files))
}

// close closes the records files (not the WAL, which the wal owns).
func (r *records) close() error {
	var errs []error
	for i, f := range r.files {
		if f != nil {
			errs = append(errs, f.Close())
			r.files[i] = nil
		}
	}
	return errors.Join(errs...)
}

// decodeHead decodes a record's head (id and chunk) for file.
func decodeHead(rec []byte, file hs.FileID) (string, hs.Chunk, error) {
	d := decoder{b: rec}
	id, c := d.pointHead(file)
	return id, c, d.err
}

// compact reports whether the record at l is in compact form: in a
// records file rather than the WAL or a v1 snapshot.
func (r *records) compact(l recLoc) bool {
	n := int(l.file())
	return n > 0 && n <= len(r.nums) && r.nums[n-1] != 0
}

// decodeRecord decodes a whole record for file, in compact form if set.
func decodeRecord(rec []byte, file hs.FileID, compact bool) (pointIn, error) {
	d := decoder{b: rec, compact: compact}
	p := d.point(file)
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	return p, d.err
}

// compactRecord appends to dst the record rec (in compact form if
// compact) in compact form and without its dense vector, as records files
// keep it, and returns it with the length of its head. It copies bytes
// rather than decoding, so a checkpoint's cost is that of reading and
// writing the records.
func compactRecord(dst, rec []byte, compact bool) ([]byte, int, error) {
	d := decoder{b: rec, compact: compact}
	d.pointHash()
	head := len(rec) - len(d.b)
	d.bytes(4 * d.count(4)) // dense
	if d.err != nil {
		return dst, 0, d.err
	}
	out := append(dst, rec[:head]...)
	out = binary.AppendUvarint(out, 0)
	for range 2 {
		from := len(rec) - len(d.b)
		n := d.count(1)
		for range n {
			d.uvarint()
		}
		out = append(out, rec[from:len(rec)-len(d.b)]...)
		if n == 0 {
			continue
		}
		if compact && d.byte() == 1 {
			out = append(out, 1)
			continue
		}
		if d.err != nil || len(d.b) < 4*n {
			return dst, 0, errCorrupt
		}
		vals := d.b[:4*n]
		d.b = d.b[4*n:]
		ones := true
		for i := 0; i < len(vals); i += 4 {
			if binary.LittleEndian.Uint32(vals[i:]) != one {
				ones = false
				break
			}
		}
		if ones {
			out = append(out, 1)
		} else {
			out = append(out, 0)
			out = append(out, vals...)
		}
	}
	if d.err != nil || len(d.b) != 0 {
		return dst, 0, errCorrupt
	}
	return out, head, nil
}
