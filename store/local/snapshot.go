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

	"github.com/hybrid-search/hybridsearch"
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
// directory fsynced. It returns the snapshot's size. Callers hold wmu, so x
// does not change meanwhile.
func writeSnapshot(dir string, x *index, seq uint64) (size int64, err error) {
	tmp := filepath.Join(dir, snapTmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("create snapshot: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(snapMagic)
	buf := encodeFrame(nil, func(e *encoder) {
		e.uvarint(seq)
		e.uvarint(uint64(x.dim))
		e.uvarint(uint64(len(x.files)))
		e.uvarint(uint64(x.points))
	})
	w.Write(buf)
	ids := make([]hybridsearch.FileID, 0, len(x.files))
	for id := range x.files {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var o op
	for _, id := range ids {
		f := x.files[id]
		for start := 0; start == 0 || start < len(f.points); start += snapBatch {
			o.kind, o.meta, o.points = opUpsert, f.meta, o.points[:0]
			if start == 0 {
				o.kind = opWrite
			}
			for _, r := range f.points[start:min(start+snapBatch, len(f.points))] {
				p := pointIn{id: r.id, chunk: r.chunk, bm25: r.bm25, trigram: r.trigram}
				if r.dense {
					p.dense = x.vector(r.slot)
				}
				o.points = append(o.points, p)
			}
			buf = encodeFrame(buf, func(e *encoder) { o.encode(e, 0) })
			if _, err := w.Write(buf); err != nil {
				return 0, fmt.Errorf("write snapshot: %w", err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		return 0, fmt.Errorf("write snapshot: %w", err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("sync snapshot: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat snapshot: %w", err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("close snapshot: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, snapName)); err != nil {
		return 0, fmt.Errorf("rename snapshot: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// loadSnapshot reads dir/snapshot into a new index and returns the
// sequence number of the last record it contains and its size. A missing
// snapshot gives an empty index. A damaged one is an error: it was
// complete when renamed into place, so damage is not a crash artefact.
func loadSnapshot(dir string) (x *index, seq uint64, size int64, err error) {
	path := filepath.Join(dir, snapName)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newIndex(0), 0, 0, nil
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("open snapshot: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("stat snapshot: %w", err)
	}
	r := bufio.NewReaderSize(f, 1<<20)
	if err := readMagic(r, snapMagic); err != nil {
		return nil, 0, 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	frame, err := readFrame(r, nil)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("snapshot %s: header: %w", path, badSnapshot(err))
	}
	d := decoder{b: frame}
	seq = d.uvarint()
	dim, files, points := d.uvarint(), d.uvarint(), d.uvarint()
	if d.err != nil || dim > 1<<20 || points > 1<<31 {
		return nil, 0, 0, fmt.Errorf("snapshot %s: header: %w", path, errCorrupt)
	}
	x = newIndex(0)
	if dim > 0 {
		x.dim = int(dim)
		x.reserve(0, int(points))
	}
	x.slots = make([]*pointRec, 0, points)
	var last hybridsearch.FileID // the file upsert frames continue
	for i := uint64(0); ; {
		if frame, err = readFrame(r, frame); err == io.EOF && i == files {
			break
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("snapshot %s: file %d of %d: %w", path, i+1, files, badSnapshot(err))
		}
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
		if err == nil {
			err = x.apply(o)
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("snapshot %s: file %d of %d: %w", path, i, files, err)
		}
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
