package local

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	hs "github.com/hybrid-search/hybridsearch"
)

// Files under a Store's directory.
const (
	snapName = "snapshot"     // the last complete snapshot
	snapTmp  = "snapshot.tmp" // a snapshot being written
	walName  = "wal"          // records after the snapshot
	lockName = "LOCK"         // held (flock) by the process that has the store open
)

// A v1 snapshot, the format before checkpoints (checkpoint.go), is
// snapMagic, a header frame (sequence number of the last record it
// contains, dense dimension, file and point counts) and the files in file
// id order: each an opWrite frame of its first points, followed by
// opUpsert frames of the next ones (sequence number 0). Open reads it,
// replays the WAL and converts the store.

// loadSnapshot reads dir/snapshot into a new index, which keeps the file
// open to read points' records from, and returns the sequence number of
// the last record it contains and its size. A missing snapshot gives an
// empty index. A damaged one is an error: it was complete when renamed
// into place, so damage is not a crash artefact.
func loadSnapshot(dir string, graphMin int) (x *index, seq uint64, size int64, err error) {
	x = newIndex(dir)
	x.graphMin = graphMin
	path := filepath.Join(dir, snapName)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return x, 0, 0, nil
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("open snapshot: %w", err)
	}
	rf := x.recs.add(f, 0)
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
		x.apply(o, p, at, rf)
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
