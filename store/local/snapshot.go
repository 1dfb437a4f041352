package local

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
)

// Files under a Store's directory.
const (
	snapName = "snapshot"     // the last complete snapshot
	snapTmp  = "snapshot.tmp" // a snapshot being written
	walName  = "wal"          // records after the snapshot
	lockName = "LOCK"         // held (flock) by the process that has the store open
)

// A snapshot is snapMagic, a header frame (sequence number of the last
// record it contains, dense dimension, file and point counts) and the
// files in file id order: each an opWrite frame of its first snapBatch
// points, followed by opUpsert frames of the next snapBatch points each
// (sequence number 0), so no frame, written or read, holds a large file
// whole. Snapshots of one opWrite frame per file read the same way.

// snapBatch is the most points of one snapshot frame.
const snapBatch = 256

// writeSnapshot writes x, the state after record seq, to dir/snapshot: to
// a temporary file first, fsynced, renamed over the old one, then the
// directory fsynced. Points' records are copied as they are from where
// they lie. It returns the new snapshot, open for reading, the records'
// locations in it by slot, and its size. Callers hold wmu, so x does not
// change meanwhile.
func writeSnapshot(dir string, x *index, seq uint64) (snap *os.File, locs []recLoc, size int64, err error) {
	tmp := filepath.Join(dir, snapTmp)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("create snapshot: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	off := int64(0)
	write := func(b []byte) error {
		n, err := w.Write(b)
		off += int64(n)
		return err
	}
	write([]byte(snapMagic))
	buf := encodeFrame(nil, func(e *encoder) {
		e.uvarint(seq)
		e.uvarint(uint64(x.dim))
		e.uvarint(uint64(len(x.files)))
		e.uvarint(uint64(x.points))
	})
	write(buf)
	ids := make([]hs.FileID, 0, len(x.files))
	for id := range x.files {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	locs = make([]recLoc, len(x.file))
	var rec []byte
	var pos []recPos
	for _, id := range ids {
		fr := x.files[id]
		for start := 0; start == 0 || start < len(fr.points); start += snapBatch {
			batch := fr.points[start:min(start+snapBatch, len(fr.points))]
			kind := opUpsert
			if start == 0 {
				kind = opWrite
			}
			var rerr error
			pos = pos[:0]
			buf = encodeFrame(buf, func(e *encoder) {
				// op.encode's layout, with each point's record copied.
				e.uvarint(0)
				e.byte(kind)
				e.meta(fr.meta)
				e.uvarint(uint64(len(batch)))
				for _, s := range batch {
					if rec, rerr = x.recs.read(x.locs[s], true, rec); rerr != nil {
						return
					}
					at := uint32(len(e.b))
					e.b = append(e.b, rec...)
					pos = append(pos, recPos{at, at + x.locs[s].headLen(), uint32(len(e.b))})
				}
			})
			if rerr != nil {
				return nil, nil, 0, fmt.Errorf("write snapshot: %w", rerr)
			}
			for i, s := range batch {
				locs[s] = pos[i].loc(off, false)
			}
			if err := write(buf); err != nil {
				return nil, nil, 0, fmt.Errorf("write snapshot: %w", err)
			}
			if cap(rec) > 1<<20 {
				rec = nil
			}
		}
	}
	if err := w.Flush(); err != nil {
		return nil, nil, 0, fmt.Errorf("write snapshot: %w", err)
	}
	if err := f.Sync(); err != nil {
		return nil, nil, 0, fmt.Errorf("sync snapshot: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, snapName)); err != nil {
		return nil, nil, 0, fmt.Errorf("rename snapshot: %w", err)
	}
	if err := syncDir(dir); err != nil {
		f.Close() // renamed: nothing to remove
		return nil, nil, 0, err
	}
	return f, locs, off, nil
}

// loadSnapshot reads dir/snapshot into a new index, which keeps the file
// open to read points' records from, and returns the sequence number of
// the last record it contains and its size. A missing snapshot gives an
// empty index. A damaged one is an error: it was complete when renamed
// into place, so damage is not a crash artefact.
func loadSnapshot(dir string) (x *index, seq uint64, size int64, err error) {
	x = newIndex(dir)
	path := filepath.Join(dir, snapName)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return x, 0, 0, nil
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("open snapshot: %w", err)
	}
	x.recs.snap = f
	defer func(x *index) {
		if err != nil {
			x.close()
		}
	}(x)
	st, err := f.Stat()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("stat snapshot: %w", err)
	}
	r := bufio.NewReaderSize(f, 1<<20)
	if err := readMagic(r, snapMagic); err != nil {
		return nil, 0, 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	off := int64(magicLen)
	frame, err := readFrame(r, nil)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("snapshot %s: header: %w", path, badSnapshot(err))
	}
	off += frameHeader + int64(len(frame))
	d := decoder{b: frame}
	seq = d.uvarint()
	dim, files, points := d.uvarint(), d.uvarint(), d.uvarint()
	if d.err != nil || dim > 1<<20 || points > 1<<31 {
		return nil, 0, 0, fmt.Errorf("snapshot %s: header: %w", path, errCorrupt)
	}
	x.reserve(int(points))
	if dim > 0 {
		x.dim = int(dim)
		if err := x.openRows(x.dim); err != nil {
			return nil, 0, 0, err
		}
		if err := x.reserveRows(int(points)); err != nil {
			return nil, 0, 0, err
		}
	}
	var last hs.FileID // the file upsert frames continue
	for i := uint64(0); ; {
		at := off
		if frame, err = readFrame(r, frame); err == io.EOF && i == files {
			break
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("snapshot %s: file %d of %d: %w", path, i+1, files, badSnapshot(err))
		}
		off += frameHeader + int64(len(frame))
		_, o, err := decodeOp(frame)
		switch {
		case err != nil:
		case o.kind == opWrite && x.files[o.meta.ID] == nil && i < files:
			i++
			last = o.meta.ID
		case o.kind == opUpsert && o.meta.ID == last && last != 0:
		default:
			err = errCorrupt
		}
		var p *plan
		if err == nil {
			p, err = x.prepare(o, nil)
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("snapshot %s: file %d of %d: %w", path, i, files, err)
		}
		x.apply(o, p, at, false)
	}
	return x, seq, st.Size(), nil
}

// badSnapshot turns a clean end of file inside a snapshot into corruption.
func badSnapshot(err error) error {
	if err == io.EOF {
		return fmt.Errorf("%w: truncated", errCorrupt)
	}
	return err
}

// syncDir fsyncs a directory so that renames and new files in it survive a
// crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open dir: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	return nil
}
