package local

import (
	"fmt"
	"os"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
)

// A point's record (what encoder.point writes: id, chunk, dense vector,
// sparse vectors) is not kept in memory: the index remembers where it lies
// in the snapshot or the write-ahead log and reads it back (pread, served
// from the page cache) when a hit with text, ReadChunks, a file's points or
// a compaction needs it: a search asks for hits without text and reads the
// few chunks it shows. A compaction copies the records into the new snapshot and moves the
// locations there before the WAL is emptied.

// recLoc is where a point's record lies: n bytes at off in the snapshot or
// the WAL, whose first head bytes run up to and including the chunk hash.
type recLoc struct {
	off  int64
	n    uint32
	head uint32 // walBit set when the record is in the WAL
}

// walBit marks a location in the WAL; frames are at most maxFrame bytes.
const walBit = 1 << 31

func (r recLoc) inWAL() bool     { return r.head&walBit != 0 }
func (r recLoc) headLen() uint32 { return r.head &^ walBit }

// recPos is a record's place in a frame: bytes from the frame's start (its
// header included) to the record, to the end of its head, and to its end.
type recPos struct{ start, head, end uint32 }

// loc returns the location of a record at pos in a frame at off.
func (p recPos) loc(off int64, inWAL bool) recLoc {
	l := recLoc{off: off + int64(p.start), n: p.end - p.start, head: p.head - p.start}
	if inWAL {
		l.head |= walBit
	}
	return l
}

// records reads point records from the files that hold them.
type records struct {
	snap *os.File // the current snapshot; nil while there is none
	wal  *os.File
}

// read returns the record at l, its head only unless full, in buf's
// storage.
func (r *records) read(l recLoc, full bool, buf []byte) ([]byte, error) {
	f := r.snap
	if l.inWAL() {
		f = r.wal
	}
	n := int(l.headLen())
	if full {
		n = int(l.n)
	}
	if f == nil || n == 0 {
		return nil, fmt.Errorf("store: point record at %d: %w", l.off, errCorrupt)
	}
	buf = slices.Grow(buf[:0], n)[:n]
	if _, err := f.ReadAt(buf, l.off); err != nil {
		return nil, fmt.Errorf("store: read point record: %w", err)
	}
	return buf, nil
}

// decodeHead decodes a record's head (id and chunk) for file.
func decodeHead(rec []byte, file hs.FileID) (string, hs.Chunk, error) {
	d := decoder{b: rec}
	id, c := d.pointHead(file)
	return id, c, d.err
}

// decodeRecord decodes a whole record for file.
func decodeRecord(rec []byte, file hs.FileID) (pointIn, error) {
	d := decoder{b: rec}
	p := d.point(file)
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	return p, d.err
}
