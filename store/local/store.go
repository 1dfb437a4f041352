package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// DefaultCompactBytes is the WAL size that triggers a snapshot when
// Options.CompactBytes is zero.
const DefaultCompactBytes = 64 << 20

// Options configures Open. The zero value is usable.
type Options struct {
	// Dim, if positive, fixes the dense dimension up front: writes and
	// queries of another dimension fail with EINVALID, and opening a store
	// that holds vectors of another dimension fails with EINVALID.
	// Zero fixes the dimension on the first write with a dense vector.
	Dim int
	// CompactBytes is the WAL size past which the store writes a snapshot
	// and empties the WAL. The threshold grows to the last snapshot's size,
	// so compaction work stays proportional to the data written.
	// Zero means DefaultCompactBytes.
	CompactBytes int64
	// Logger, if non-nil, receives recovery and compaction messages;
	// nil means slog.Default().
	Logger *slog.Logger
}

// Store is the embedded store, persisted under a directory as a snapshot
// plus a write-ahead log. A write returns only once its WAL record is
// fsynced (concurrent writers share one fsync), so a crash at any moment
// loses no acknowledged write and never leaves a write half-applied.
// Searches run concurrently with each other and only wait for the
// in-memory part of a write. Close it when done.
//
// The directory holds "snapshot" (the state after some record, written to
// "snapshot.tmp", fsynced and renamed), "wal" (the records after it, each
// framed with its length and CRC-32C) and "LOCK". Both files start with a
// magic number that carries the format version. A snapshot is written when
// the WAL outgrows Options.CompactBytes and the last snapshot, after
// which the WAL is emptied; records carry sequence numbers, so after a crash
// between the two, replay skips the records the snapshot already holds.
//
// Memory holds what ranking needs, about 2 KB per point of typical text
// (see index): the posting lists in a compact form, ids, chunk numbers and
// where each point's record lies. Text and vectors are read back from the
// snapshot and the WAL themselves (records.go), and the dense rows that
// SearchDense scans live in files mapped into memory, "dense.f32" and
// "dense.i8", derived data written anew by every Open (rows.go). So the
// resident memory a large file adds is its posting lists, not its text or
// vectors, which the kernel keeps in its page cache as long as there is
// room.
type Store struct {
	dir  string
	opts Options
	log  *slog.Logger
	lock *os.File
	wal  *wal

	wmu      sync.Mutex // serialises writes, compaction and Close; only its holder mutates idx
	seq      uint64     // sequence number of the last logged record; guarded by wmu
	snapSize int64      // size of the last snapshot; guarded by wmu
	closed   atomic.Bool

	mu   sync.RWMutex // writers apply to idx under Lock, queries read it under RLock
	idx  *index
	shut bool // files closed; guarded by mu

	compacting atomic.Bool
	bg         sync.WaitGroup // background compaction
	scratch    sync.Pool      // *scratch for sparse searches
}

// Open opens the store under dir, creating dir if needed: it loads the
// last snapshot, replays the WAL and cuts off a torn last record. Only one
// Store may have a directory open at a time (ECONFLICT otherwise). A
// snapshot or WAL that is damaged other than by a crash mid-append is an
// error, never silently dropped.
func Open(dir string, o Options) (*Store, error) {
	if o.CompactBytes <= 0 {
		o.CompactBytes = DefaultCompactBytes
	}
	l := &Store{dir: dir, opts: o, log: o.Logger}
	if l.log == nil {
		l.log = slog.Default()
	}
	l.scratch.New = func() any { return new(scratch) }
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	if err := l.load(); err != nil {
		lock.Close()
		if hs.ErrorKind(err) != hs.EINTERNAL {
			return nil, err
		}
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	l.lock = lock
	return l, nil
}

// load reads the snapshot and replays the WAL into l.idx.
func (l *Store) load() error {
	os.Remove(filepath.Join(l.dir, snapTmp)) // an unfinished snapshot from a crash
	x, snapSeq, size, err := loadSnapshot(l.dir)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			x.close()
		}
	}()
	if l.opts.Dim > 0 {
		if x.dim != 0 && x.dim != l.opts.Dim {
			return hs.Errorf(hs.EINVALID, "store: %s holds dense vectors of dimension %d, not %d", l.dir, x.dim, l.opts.Dim)
		}
		if x.dim == 0 {
			x.dim = l.opts.Dim
			if err := x.openRows(x.dim); err != nil {
				return err
			}
		}
	}
	seq, replayed := snapSeq, 0
	w, cut, err := openWAL(filepath.Join(l.dir, walName), func(payload []byte, off int64, f *os.File) error {
		s, o, err := decodeOp(payload)
		if err != nil {
			return err
		}
		if s <= snapSeq {
			return nil // already in the snapshot: the WAL was not emptied after it
		}
		if s <= seq {
			return fmt.Errorf("record %d after record %d: %w", s, seq, errCorrupt)
		}
		seq = s
		replayed++
		x.recs.wal = f
		p, err := x.prepare(o, nil)
		if err != nil {
			return err
		}
		x.apply(o, p, off, true)
		return nil
	})
	if err != nil {
		return err
	}
	x.recs.wal = w.f
	if err := syncDir(l.dir); err != nil { // the WAL's directory entry, if it is new
		w.close()
		return err
	}
	if cut > 0 {
		l.log.Warn("store: cut a torn record off the write-ahead log", slog.String("dir", l.dir), slog.Int64("bytes", cut))
	}
	w.written.Store(seq)
	w.durable = seq
	l.wal, l.idx, l.seq, l.snapSize = w, x, seq, size
	ok = true
	l.log.Debug("store: opened", slog.String("dir", l.dir), slog.Int("points", x.points),
		slog.Int("files", len(x.files)), slog.Int("replayed", replayed))
	return nil
}

// WriteFile makes the file's points exactly points: it stores them with
// File set to meta and removes the file's other points, atomically. Dense
// vectors are stored normalised. It returns an EINVALID error when a point
// does not belong to meta (see CheckWrite) or its dense dimension differs
// from the store's. Writing no points deletes the file.
func (l *Store) WriteFile(ctx context.Context, meta hs.FileMeta, points []hs.Point) error {
	o, err := prepareWrite(meta, points)
	if err != nil {
		return err
	}
	if l.opts.Dim > 0 {
		for _, p := range o.points {
			if p.dense != nil && len(p.dense) != l.opts.Dim {
				return hs.Errorf(hs.EINVALID, "store: dense vector of file %d has dimension %d, the store has %d", meta.ID, len(p.dense), l.opts.Dim)
			}
		}
	}
	if err := l.mutate(ctx, o); err != nil {
		return wrap(err, "store: write file %d", meta.ID)
	}
	return nil
}

// UpsertPoints stores points in the file, each replacing the file's point
// of the same chunk number, and sets the metadata of all its points to
// meta; its other points stay (TrimFile removes those past the end). A
// large file is written this way in batches, each durable on return, at
// the cost of that batch only. Checks and errors are WriteFile's.
func (l *Store) UpsertPoints(ctx context.Context, meta hs.FileMeta, points []hs.Point) error {
	o, err := prepareWrite(meta, points)
	if err != nil {
		return err
	}
	o.kind = opUpsert
	if l.opts.Dim > 0 {
		for _, p := range o.points {
			if p.dense != nil && len(p.dense) != l.opts.Dim {
				return hs.Errorf(hs.EINVALID, "store: dense vector of file %d has dimension %d, the store has %d", meta.ID, len(p.dense), l.opts.Dim)
			}
		}
	}
	if err := l.mutate(ctx, o); err != nil {
		return wrap(err, "store: write file %d", meta.ID)
	}
	return nil
}

// TrimFile removes the file's points whose chunk number is keep or more
// (a shorter new version of the file); keep 0 removes the file. An absent
// file is not an error.
func (l *Store) TrimFile(ctx context.Context, id hs.FileID, keep int) error {
	if err := l.mutate(ctx, &op{kind: opTrim, meta: hs.FileMeta{ID: id}, keep: max(keep, 0)}); err != nil {
		return wrap(err, "store: trim file %d", id)
	}
	return nil
}

// UpdateFileMeta sets the metadata of every point of the file to meta
// without touching vectors or text. It returns an ENOTFOUND error when the
// file has no points.
func (l *Store) UpdateFileMeta(ctx context.Context, meta hs.FileMeta) error {
	if err := l.mutate(ctx, &op{kind: opMeta, meta: store.CleanMeta(meta)}); err != nil {
		return wrap(err, "store: update file %d", meta.ID)
	}
	return nil
}

// DeleteFile removes the file's points; an absent file is not an error.
func (l *Store) DeleteFile(ctx context.Context, id hs.FileID) error {
	if err := l.mutate(ctx, &op{kind: opDelete, meta: hs.FileMeta{ID: id}}); err != nil {
		return wrap(err, "store: delete file %d", id)
	}
	return nil
}

// mutate prepares o, logs it, applies it and waits until its record is
// durable.
func (l *Store) mutate(ctx context.Context, o *op) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.wmu.Lock()
	if err := l.usable(); err != nil {
		l.wmu.Unlock()
		return err
	}
	noop, err := l.idx.check(o)
	if err != nil || noop {
		l.wmu.Unlock()
		return err
	}
	p, err := l.idx.prepare(o, &l.mu)
	if err != nil {
		l.wmu.Unlock()
		return err
	}
	seq := l.seq + 1
	off, err := l.wal.append(o, seq)
	if err != nil {
		l.wmu.Unlock()
		return err
	}
	l.seq = seq
	l.mu.Lock()
	l.idx.apply(o, p, off, true)
	l.mu.Unlock()
	if l.wal.off > max(l.opts.CompactBytes, l.snapSize) && l.compacting.CompareAndSwap(false, true) {
		l.bg.Go(l.compactInBackground)
	}
	l.wmu.Unlock()
	return l.wal.sync(seq)
}

// compactInBackground runs one compaction for mutate.
func (l *Store) compactInBackground() {
	defer l.compacting.Store(false)
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if l.closed.Load() || l.wal.off <= max(l.opts.CompactBytes, l.snapSize) {
		return
	}
	if err := l.compact(); err != nil {
		l.log.Error("store: compaction failed", slog.String("dir", l.dir), slog.Any("error", err))
	}
}

// compact writes a snapshot of the current state, moves the points'
// record locations into it and empties the WAL. Callers hold wmu; queries
// go on meanwhile, reading the old files until the move.
func (l *Store) compact() error {
	if err := l.wal.failed(); err != nil {
		return err
	}
	x := l.idx
	snap, locs, size, err := writeSnapshot(l.dir, x, l.seq)
	if err != nil {
		return fmt.Errorf("store: compact %s: %w", l.dir, err)
	}
	l.mu.Lock()
	old := x.recs.snap
	x.recs.snap, x.locs = snap, locs
	l.mu.Unlock()
	if old != nil {
		old.Close()
	}
	l.snapSize = size
	if err := l.wal.reset(l.seq); err != nil {
		return fmt.Errorf("store: compact %s: %w", l.dir, err)
	}
	l.log.Debug("store: wrote snapshot", slog.String("dir", l.dir), slog.Int64("bytes", size), slog.Int("points", x.points))
	return nil
}

// FilePoints returns the file's points in chunk order, with their
// (normalised) dense and sparse vectors when withVectors is set; none for
// an absent file.
func (l *Store) FilePoints(ctx context.Context, id hs.FileID, withVectors bool) ([]hs.Point, error) {
	x, err := l.rlock(ctx)
	if err != nil {
		return nil, wrap(err, "store: file points %d", id)
	}
	defer l.mu.RUnlock()
	f := x.files[id]
	if f == nil {
		return nil, nil
	}
	out := make([]hs.Point, len(f.points))
	var buf []byte
	for i, s := range f.points {
		if out[i], err = x.point(s, withVectors, &buf); err != nil {
			return nil, wrap(err, "store: file points %d", id)
		}
	}
	return out, nil
}

// VectorsByHash returns the (normalised) dense vector of a point whose
// Chunk.Hash is h, for every h in hashes that some point with a dense
// vector has, in any file, so unchanged text is not embedded twice.
func (l *Store) VectorsByHash(ctx context.Context, hashes []string) (map[string][]float32, error) {
	x, err := l.rlock(ctx)
	if err != nil {
		return nil, wrap(err, "store: vectors by hash")
	}
	defer l.mu.RUnlock()
	out := make(map[string][]float32)
	var buf []byte
	for _, h := range hashes {
		if out[h] != nil {
			continue
		}
		for _, s := range x.hashes[x.hashKey(h)] {
			rec, err := x.recs.read(x.locs[s], false, buf)
			if err != nil {
				return nil, wrap(err, "store: vectors by hash")
			}
			buf = rec
			d := decoder{b: rec}
			if d.pointHash() == h && d.err == nil {
				out[h] = slices.Clone(x.vector(s))
				break
			}
		}
	}
	return out, nil
}

// Files returns the metadata of every file whose readers include user,
// ordered by file id. It returns an EINVALID error for the empty user.
func (l *Store) Files(ctx context.Context, user hs.UserID) ([]hs.FileMeta, error) {
	if err := l.readable(ctx); err != nil {
		return nil, wrap(err, "store: files of %s", user)
	}
	if err := store.CheckUser(user); err != nil {
		return nil, err
	}
	x, err := l.rlock(ctx)
	if err != nil {
		return nil, wrap(err, "store: files of %s", user)
	}
	defer l.mu.RUnlock()
	var out []hs.FileMeta
	for _, f := range x.files {
		if _, ok := slices.BinarySearch(f.meta.Readers, user); ok {
			out = append(out, cloneMeta(f.meta))
		}
	}
	slices.SortFunc(out, cmpFileID)
	return out, nil
}

// Stats counts the stored points and files and reports the dimension.
func (l *Store) Stats(ctx context.Context) (store.Stats, error) {
	x, err := l.rlock(ctx)
	if err != nil {
		return store.Stats{}, wrap(err, "store: stats")
	}
	defer l.mu.RUnlock()
	return store.Stats{Points: x.points, Files: len(x.files), Dim: x.dim}, nil
}

// Health returns nil while the store can take writes, an EUNAVAILABLE
// error once it is closed or its disk failed it (a failed fsync: reopen the
// store to recover from the last durable state).
func (l *Store) Health(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.usable()
}

// Close waits for a running compaction, writes a snapshot unless the WAL
// is small next to the last snapshot (under a quarter of its size: replaying
// it is cheaper than rewriting the snapshot), and releases the directory. Writes
// acknowledged before Close are durable either way. Later calls on the
// store fail with EUNAVAILABLE; closing twice is not an error.
func (l *Store) Close() error {
	l.wmu.Lock()
	if l.closed.Swap(true) {
		l.wmu.Unlock()
		return nil
	}
	l.wmu.Unlock()
	l.bg.Wait()
	l.wmu.Lock()
	defer l.wmu.Unlock()
	var errs []error
	if l.wal.failed() == nil && l.wal.off > magicLen && (l.snapSize == 0 || l.wal.off >= l.snapSize/4) {
		errs = append(errs, l.compact())
	}
	errs = append(errs, l.wal.sync(l.seq))
	l.mu.Lock()
	l.shut = true
	errs = append(errs, l.wal.close(), l.idx.close())
	l.mu.Unlock()
	errs = append(errs, l.lock.Close())
	return errors.Join(errs...)
}

// usable returns an EUNAVAILABLE error once the store is closed or its
// WAL failed.
func (l *Store) usable() error {
	if l.closed.Load() {
		return hs.Errorf(hs.EUNAVAILABLE, "store: closed")
	}
	if err := l.wal.failed(); err != nil {
		return hs.WrapError(hs.EUNAVAILABLE, err, "store: write-ahead log failed; reopen the store")
	}
	return nil
}

// rlock checks what every query checks first and read-locks the index;
// the caller unlocks l.mu unless it returns an error.
func (l *Store) rlock(ctx context.Context) (*index, error) {
	if err := l.readable(ctx); err != nil {
		return nil, err
	}
	l.mu.RLock()
	if l.shut {
		l.mu.RUnlock()
		return nil, hs.Errorf(hs.EUNAVAILABLE, "store: closed")
	}
	return l.idx, nil
}

// readable checks what every query checks first.
func (l *Store) readable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.closed.Load() {
		return hs.Errorf(hs.EUNAVAILABLE, "store: closed")
	}
	return nil
}

// checkSearch checks the arguments every search shares and returns k
// capped at MaxK.
func (l *Store) checkSearch(ctx context.Context, user hs.UserID, k int) (int, error) {
	if err := l.readable(ctx); err != nil {
		return 0, err
	}
	if err := store.CheckUser(user); err != nil {
		return 0, err
	}
	return store.CheckK(k)
}

// wrap prefixes err with the operation unless it is already an *Error
// with a message for users.
func wrap(err error, format string, args ...any) error {
	var e *hs.Error
	if errors.As(err, &e) {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
