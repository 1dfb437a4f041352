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

// DefaultCompactBytes is the WAL size that triggers a checkpoint when
// Options.CompactBytes is zero.
const DefaultCompactBytes = 64 << 20

// Options configures Open. The zero value is usable.
type Options struct {
	// Dim, if positive, fixes the dense dimension up front: writes and
	// queries of another dimension fail with EINVALID, and opening a store
	// that holds vectors of another dimension fails with EINVALID.
	// Zero fixes the dimension on the first write with a dense vector.
	Dim int
	// CompactBytes is the WAL size past which the store writes a
	// checkpoint (checkpoint.go) and empties the WAL. The threshold grows
	// to four times the size of the checkpoint's meta (a few dozen bytes
	// per point), so writing metas costs a fraction of writing the WAL.
	// Zero means DefaultCompactBytes.
	CompactBytes int64
	// Logger, if non-nil, receives recovery and compaction messages;
	// nil means slog.Default().
	Logger *slog.Logger
	// GraphMin is the number of points with a dense vector from which the
	// files of one set of readers (a group: a user's own files, a group
	// folder, the files two people share) get a graph index, which
	// SearchDense walks instead of scanning every row: approximate, but
	// fast at any size (see graph.go). Below it, and for every group when
	// GraphMin is negative, SearchDense is exact. Zero means
	// DefaultGraphMin.
	GraphMin int
}

// Store is the embedded store, persisted under a directory as a
// checkpoint plus a write-ahead log. A write returns only once its WAL
// record is fsynced (concurrent writers share one fsync), so a crash at
// any moment loses no acknowledged write and never leaves a write
// half-applied. Searches run concurrently with each other and only wait
// for the in-memory part of a write. Close it when done.
//
// The directory holds the checkpoint (checkpoint.go: "meta", records
// files "rec-N", row files "rows.f32" and "rows.i8", keyword segments
// "seg-N", graphs "graph-G-N"), "wal" (the records after it, each framed
// with its length and CRC-32C) and "LOCK". A checkpoint is written when
// the WAL outgrows Options.CompactBytes (or four times the meta), after
// which the WAL is emptied; records carry sequence numbers, so after a
// crash between the two, replay skips the records the checkpoint already
// holds. Open reads the meta, maps the other files and replays the WAL:
// its time grows with the number of points (about a second per million),
// not with their text or vectors.
//
// Points are kept by reader set (group.go): a user's searches read the
// groups the user is a reader of and nothing else. Memory holds what
// ranking needs beyond the mapped files, under a hundred bytes per point
// (ids, chunk numbers, record locations, int8 row descriptions) and the
// keyword index's tail; text and vectors are read back from the records
// and the row files, postings from the segments, graphs from pages outside
// the Go heap. So the resident memory a large file adds is a few dozen
// bytes per chunk beyond the page cache the kernel can reclaim.
type Store struct {
	dir  string
	opts Options
	log  *slog.Logger
	lock *os.File
	wal  *wal

	wmu      sync.Mutex // serialises writes, compaction and Close; only its holder mutates idx
	seq      uint64     // sequence number of the last logged record; guarded by wmu
	metaSize int64      // size of the last checkpoint's meta; guarded by wmu
	closed   atomic.Bool

	mu   sync.RWMutex // writers apply to idx under Lock, queries read it under RLock
	idx  *index
	shut bool // files closed; guarded by mu

	compacting atomic.Bool
	merging    atomic.Bool
	bg         sync.WaitGroup // background checkpoints and merges
	scratch    sync.Pool      // *scratch for sparse searches

	imu  sync.Mutex    // held by the indexer while it changes graphs
	kick chan struct{} // wakes the indexer
	stop chan struct{} // closed to stop the indexer
	ibg  sync.WaitGroup
}

// Open opens the store under dir, creating dir if needed: it loads the
// last checkpoint (converting a store of the older snapshot format),
// replays the WAL and cuts off a torn last record, then starts the
// indexer (indexer.go). Only one Store may have a directory open at a time
// (ECONFLICT otherwise). A checkpoint or WAL that is damaged other than by
// a crash mid-append is an error, never silently dropped.
func Open(dir string, o Options) (*Store, error) {
	if o.CompactBytes <= 0 {
		o.CompactBytes = DefaultCompactBytes
	}
	l := &Store{dir: dir, opts: o, log: o.Logger, kick: make(chan struct{}, 1), stop: make(chan struct{})}
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
	l.ibg.Go(l.indexLoop)
	l.kickIndexer()
	return l, nil
}

// load reads the last checkpoint (or a v1 snapshot, which it converts)
// and replays the WAL into l.idx.
func (l *Store) load() error {
	os.Remove(filepath.Join(l.dir, snapTmp)) // an unfinished snapshot from a crash
	os.Remove(filepath.Join(l.dir, metaTmp)) // an unfinished checkpoint
	x, snapSeq, ok, err := loadMeta(l.dir, l.graphMin())
	if err != nil {
		return err
	}
	convert := false
	if !ok {
		// No checkpoint: a new store, or one of the v1 format (a snapshot
		// of every record), converted below.
		if x, snapSeq, _, err = loadSnapshot(l.dir, l.graphMin()); err != nil {
			return err
		}
		convert = len(x.recs.files) > 0
	}
	ok = false
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
			return nil // already in the checkpoint: the WAL was not emptied after it
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
		x.apply(o, p, off, 0)
		if len(x.tail) >= tailFlush {
			sg, flushed, err := x.flushTail()
			if err != nil {
				return err
			}
			x.installTail(sg, flushed)
		}
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
	l.wal, l.idx, l.seq, l.metaSize = w, x, seq, x.metaSize
	if convert {
		if err := l.checkpoint(true); err != nil {
			w.close()
			return fmt.Errorf("convert a v1 store: %w", err)
		}
		l.log.Info("store: converted to the checkpoint format", slog.String("dir", l.dir), slog.Int("points", x.points))
	}
	x.removeOrphans()
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
	l.idx.apply(o, p, off, 0)
	l.mu.Unlock()
	l.kickIndexer()
	if len(l.idx.tail) >= tailFlush {
		l.flushTail()
	}
	if l.wal.off > l.checkpointAt() && l.compacting.CompareAndSwap(false, true) {
		l.bg.Go(l.compactInBackground)
	}
	l.wmu.Unlock()
	return l.wal.sync(seq)
}

// checkpointAt is the WAL size past which a checkpoint is written:
// Options.CompactBytes, or four times the last meta's size when larger,
// so that writing metas costs a quarter of writing the WAL.
func (l *Store) checkpointAt() int64 {
	return max(l.opts.CompactBytes, 4*l.metaSize)
}

// flushTail writes the tail out as a segment (postings.go). Callers hold
// wmu. A failure leaves the tail as it was, to be written out later.
func (l *Store) flushTail() {
	x := l.idx
	sg, flushed, err := x.flushTail()
	if err != nil {
		l.log.Error("store: writing out the keyword index's tail failed", slog.String("dir", l.dir), slog.Any("error", err))
		return
	}
	l.mu.Lock()
	x.installTail(sg, flushed)
	l.mu.Unlock()
	l.maybeMerge()
}

// compactInBackground runs one checkpoint for mutate.
func (l *Store) compactInBackground() {
	defer l.compacting.Store(false)
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if l.closed.Load() || l.wal.off <= l.checkpointAt() {
		return
	}
	if err := l.checkpoint(false); err != nil {
		l.log.Error("store: checkpoint failed", slog.String("dir", l.dir), slog.Any("error", err))
	}
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
		first, ok := x.hashes[x.hashKey(h)]
		if !ok {
			continue
		}
		for s := first; s >= 0; s = x.hnext[s] {
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
	for _, g := range x.userGroups[user] {
		for _, f := range g.files {
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

// Close waits for a running checkpoint, stops the indexer, writes a
// checkpoint if anything changed since the last one (so that the next Open
// replays nothing and re-indexes nothing), and releases the directory.
// Writes acknowledged before Close are durable either way. Later calls on
// the store fail with EUNAVAILABLE; closing twice is not an error.
func (l *Store) Close() error {
	l.wmu.Lock()
	if l.closed.Swap(true) {
		l.wmu.Unlock()
		return nil
	}
	l.wmu.Unlock()
	l.bg.Wait()
	close(l.stop)
	l.ibg.Wait()
	l.wmu.Lock()
	defer l.wmu.Unlock()
	var errs []error
	if l.wal.failed() == nil && (l.wal.off > magicLen || l.idx.graphsUnsaved()) {
		errs = append(errs, l.checkpoint(true))
	}
	errs = append(errs, l.wal.sync(l.seq))
	l.mu.Lock()
	l.shut = true
	errs = append(errs, l.wal.close(), l.idx.close())
	l.mu.Unlock()
	errs = append(errs, l.lock.Close())
	return errors.Join(errs...)
}

// graphMin returns the effective Options.GraphMin: 0 for never.
func (l *Store) graphMin() int {
	switch {
	case l.opts.GraphMin < 0:
		return 0
	case l.opts.GraphMin == 0:
		return DefaultGraphMin
	}
	return l.opts.GraphMin
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
