package local_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/local"
)

var testUsers = []hs.UserID{"alice", "bob", "carol"}

// TestLocalRandomOps checks random writes, updates and deletes against the
// brute-force model, then again after a clean reopen (snapshot) and after
// an in-process "crash" (a copy of the files while the store is open: WAL
// replay).
func TestLocalRandomOps(t *testing.T) {
	const dim = 8
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	s, err := local.Open(dir, local.Options{CompactBytes: 16 << 10, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	m := newModel()
	for range 6 {
		randOps(t, s, m, rng, 60, testUsers, dim)
		checkModel(t, s, m, rng, testUsers, dim)
	}
	crashed, atCrash := crashCopy(t, dir), m.clone()
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	for _, tt := range []struct {
		dir string
		m   *model
	}{{dir, m}, {crashed, atCrash}} {
		s := mustOpen(t, tt.dir, local.Options{})
		checkModel(t, s, tt.m, rng, testUsers, dim)
		randOps(t, s, tt.m, rng, 30, testUsers, dim)
		checkModel(t, s, tt.m, rng, testUsers, dim)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = mustOpen(t, tt.dir, local.Options{})
		checkModel(t, s, tt.m, rng, testUsers, dim)
	}
}

// crashCopy copies the store's files as they are on disk now into a new
// directory: what a crash at this moment would leave behind. The meta,
// which names the other files, is copied after them and the WAL last, as
// a checkpoint writes them in that order.
func crashCopy(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); n != "LOCK" && n != "meta" && n != "wal" {
			names = append(names, n)
		}
	}
	for _, name := range append(names, "meta", "wal") {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// writeSeq writes files 1..n, one chunk each, text "file <id>".
func writeSeq(t *testing.T, s *local.Store, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		id := hs.FileID(i)
		meta := hs.FileMeta{ID: id, Path: "/f.md", Readers: []hs.UserID{"alice"}}
		p := hs.Point{
			ID: hs.PointID(id, 0), Chunk: hs.Chunk{FileID: id, Text: "file"},
			Dense: []float32{1, float32(i)}, BM25: hs.SparseVector{Indices: []uint32{uint32(i)}, Values: []float32{1}},
		}
		if err := s.WriteFile(t.Context(), meta, []hs.Point{p}); err != nil {
			t.Fatalf("WriteFile(%d) = %v", i, err)
		}
	}
}

func fileList(t *testing.T, s *local.Store) []hs.FileID {
	t.Helper()
	files, err := s.Files(t.Context(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	var ids []hs.FileID
	for _, f := range files {
		ids = append(ids, f.ID)
	}
	return ids
}

func seq(from, to int) []hs.FileID {
	var ids []hs.FileID
	for i := from; i <= to; i++ {
		ids = append(ids, hs.FileID(i))
	}
	return ids
}

func TestLocalTornTail(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, local.Options{})
	writeSeq(t, s, 1, 3)
	crashed := crashCopy(t, dir)
	wal := filepath.Join(crashed, "wal")
	st, err := os.Stat(wal)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
		want   []hs.FileID
	}{
		{"intact", func(*testing.T, string) {}, seq(1, 3)},
		{"last record cut short", func(t *testing.T, p string) { truncate(t, p, st.Size()-5) }, seq(1, 2)},
		{"only a header left", func(t *testing.T, p string) { truncate(t, p, st.Size()-int64(recordSize(t, p))+3) }, seq(1, 2)},
		{"garbage appended", func(t *testing.T, p string) { appendBytes(t, p, []byte("\x10\x00\x00\x00garbage")) }, seq(1, 3)},
		{"zeros appended", func(t *testing.T, p string) { appendBytes(t, p, make([]byte, 4096)) }, seq(1, 3)},
		{"last record flipped", func(t *testing.T, p string) { flipByte(t, p, st.Size()-2) }, seq(1, 2)},
		{"magic only", func(t *testing.T, p string) { truncate(t, p, 8) }, nil},
		{"magic cut short", func(t *testing.T, p string) { truncate(t, p, 3) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := crashCopy(t, crashed)
			tt.damage(t, filepath.Join(d, "wal"))
			s, err := local.Open(d, local.Options{Logger: testLogger(t)})
			if err != nil {
				t.Fatalf("Open = %v", err)
			}
			if got := fileList(t, s); !slices.Equal(got, tt.want) {
				t.Errorf("after recovery files = %v, want %v", got, tt.want)
			}
			writeSeq(t, s, 10, 10)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s = mustOpen(t, d, local.Options{})
			if got, want := fileList(t, s), append(slices.Clone(tt.want), 10); !slices.Equal(got, want) {
				t.Errorf("after a write and reopen files = %v, want %v", got, want)
			}
		})
	}
}

// recordSize returns the size of the last WAL record, found by replaying
// into a throwaway copy: the WAL minus one record is what Open keeps
// after cutting it.
func recordSize(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	off, last := 8, 0
	for off+8 <= len(b) {
		n := int(b[off]) | int(b[off+1])<<8 | int(b[off+2])<<16 | int(b[off+3])<<24
		last = 8 + n
		off += last
	}
	return last
}

func truncate(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func appendBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0xff
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestLocalCheckpointThenStaleWAL covers a crash between renaming a new
// meta into place and emptying the WAL: records the checkpoint already
// holds are skipped, later ones replayed.
func TestLocalCheckpointThenStaleWAL(t *testing.T) {
	dir := t.TempDir()
	s, err := local.Open(dir, local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	writeSeq(t, s, 1, 5)
	if err := s.DeleteFile(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	before := crashCopy(t, dir)       // WAL with every record, no checkpoint
	if err := s.Close(); err != nil { // writes a checkpoint, empties the WAL
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); n != "wal" && n != "LOCK" {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(before, n), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	s = mustOpen(t, before, local.Options{})
	if got, want := fileList(t, s), []hs.FileID{1, 3, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	writeSeq(t, s, 2, 2)
	if got, want := fileList(t, s), seq(1, 5); !slices.Equal(got, want) {
		t.Errorf("after rewriting file 2 files = %v, want %v", got, want)
	}
}

// TestLocalDamagedMeta checks that a damaged checkpoint meta is an error,
// never a store that silently lost points.
func TestLocalDamagedMeta(t *testing.T) {
	dir := t.TempDir()
	s, err := local.Open(dir, local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	writeSeq(t, s, 1, 20)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join(dir, "meta"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		damage func([]byte) []byte
		kind   string
	}{
		{"byte flipped", func(b []byte) []byte { b[len(b)/2] ^= 1; return b }, hs.EINTERNAL},
		{"truncated", func(b []byte) []byte { return b[:len(b)-3] }, hs.EINTERNAL},
		{"last frame missing", func(b []byte) []byte { return b[:len(b)-int(lastFrame(b))] }, hs.EINTERNAL},
		{"not a meta", func(b []byte) []byte { return []byte("something else entirely") }, hs.EINTERNAL},
		{"newer format", func(b []byte) []byte { b[7] = 99; return b }, hs.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := crashCopy(t, dir)
			if err := os.WriteFile(filepath.Join(d, "meta"), tt.damage(slices.Clone(meta)), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := local.Open(d, local.Options{Logger: testLogger(t)})
			if err == nil {
				s.Close()
				t.Fatalf("Open on a damaged meta = nil error")
			}
			if hs.ErrorKind(err) != tt.kind {
				t.Errorf("Open = %v (kind %s), want kind %s", err, hs.ErrorKind(err), tt.kind)
			}
		})
	}
}

// TestLocalDamagedSnapshot checks that a damaged v1 snapshot (the format
// before checkpoints, testdata/v1) is an error, not a converted store
// that lost points.
func TestLocalDamagedSnapshot(t *testing.T) {
	snap, err := os.ReadFile(filepath.Join(compatDir, "snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		damage func([]byte) []byte
		kind   string
	}{
		{"byte flipped", func(b []byte) []byte { b[len(b)/2] ^= 1; return b }, hs.EINTERNAL},
		{"truncated", func(b []byte) []byte { return b[:len(b)-10] }, hs.EINTERNAL},
		{"last file missing", func(b []byte) []byte { return b[:len(b)-int(lastFrame(b))] }, hs.EINTERNAL},
		{"not a snapshot", func(b []byte) []byte { return []byte("something else entirely") }, hs.EINTERNAL},
		{"newer format", func(b []byte) []byte { b[7] = 99; return b }, hs.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := t.TempDir()
			if err := os.WriteFile(filepath.Join(d, "snapshot"), tt.damage(slices.Clone(snap)), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := local.Open(d, local.Options{Logger: testLogger(t)})
			if err == nil {
				s.Close()
				t.Fatalf("Open on a damaged snapshot = nil error")
			}
			if hs.ErrorKind(err) != tt.kind {
				t.Errorf("Open = %v (kind %s), want kind %s", err, hs.ErrorKind(err), tt.kind)
			}
		})
	}
}

// lastFrame returns the size of the last frame of a snapshot.
func lastFrame(b []byte) int {
	off, last := 8, 0
	for off+8 <= len(b) {
		last = 8 + (int(b[off]) | int(b[off+1])<<8 | int(b[off+2])<<16 | int(b[off+3])<<24)
		off += last
	}
	return last
}

func TestLocalLock(t *testing.T) {
	dir := t.TempDir()
	s, err := local.Open(dir, local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if s2, err := local.Open(dir, local.Options{Logger: testLogger(t)}); hs.ErrorKind(err) != hs.ECONFLICT {
		if err == nil {
			s2.Close()
		}
		t.Errorf("second Open = %v, want ECONFLICT", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	mustOpen(t, dir, local.Options{})
}

func TestLocalDim(t *testing.T) {
	dir := t.TempDir()
	s, err := local.Open(dir, local.Options{Dim: 2, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if hits, err := s.SearchDense(ctx, "alice", []float32{1, 0}, 5, hs.Filter{}); err != nil || len(hits) != 0 {
		t.Errorf("SearchDense on an empty store = %v, %v, want no hits", hits, err)
	}
	if _, err := s.SearchDense(ctx, "alice", []float32{1, 0, 0}, 5, hs.Filter{}); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("SearchDense(3 dims) on a 2-dim store = %v, want EINVALID", err)
	}
	meta := hs.FileMeta{ID: 1, Readers: []hs.UserID{"alice"}}
	p := hs.Point{ID: hs.PointID(1, 0), Chunk: hs.Chunk{FileID: 1}, Dense: []float32{1, 2, 3}}
	if err := s.WriteFile(ctx, meta, []hs.Point{p}); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("WriteFile(3 dims) on a 2-dim store = %v, want EINVALID", err)
	}
	if _, err := s.SearchDense(ctx, "alice", []float32{1, float32(nanValue())}, 5, hs.Filter{}); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("SearchDense(NaN) = %v, want EINVALID", err)
	}
	writeSeq(t, s, 1, 2)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err := local.Open(dir, local.Options{Dim: 3, Logger: testLogger(t)}); hs.ErrorKind(err) != hs.EINVALID {
		if err == nil {
			s.Close()
		}
		t.Errorf("Open(Dim 3) on a 2-dim store = %v, want EINVALID", err)
	}
	s = mustOpen(t, dir, local.Options{})
	if st, err := s.Stats(ctx); err != nil || st.Dim != 2 || st.Points != 2 {
		t.Errorf("Stats() = %+v, %v, want 2 points of dimension 2", st, err)
	}

	// Without Dim, the first dense write fixes it.
	s2 := mustOpen(t, t.TempDir(), local.Options{})
	noDense := p
	noDense.Dense = nil
	if err := s2.WriteFile(ctx, meta, []hs.Point{noDense}); err != nil {
		t.Fatal(err)
	}
	if st, _ := s2.Stats(ctx); st.Dim != 0 {
		t.Errorf("Dim after a write without dense vectors = %d, want 0", st.Dim)
	}
	if err := s2.WriteFile(ctx, meta, []hs.Point{p}); err != nil {
		t.Fatal(err)
	}
	if st, _ := s2.Stats(ctx); st.Dim != 3 {
		t.Errorf("Dim after a 3-dim write = %d, want 3", st.Dim)
	}
	meta.ID = 2
	p2 := hs.Point{ID: hs.PointID(2, 0), Chunk: hs.Chunk{FileID: 2}, Dense: []float32{1, 2}}
	if err := s2.WriteFile(ctx, meta, []hs.Point{p2}); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("WriteFile(2 dims) on a 3-dim store = %v, want EINVALID", err)
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

func TestLocalClosed(t *testing.T) {
	s, err := local.Open(t.TempDir(), local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	writeSeq(t, s, 1, 1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
	ctx := t.Context()
	calls := map[string]func() error{
		"Health":         func() error { return s.Health(ctx) },
		"WriteFile":      func() error { writeErr := s.DeleteFile(ctx, 1); return writeErr },
		"UpdateFileMeta": func() error { return s.UpdateFileMeta(ctx, hs.FileMeta{ID: 1}) },
		"SearchDense": func() error {
			_, err := s.SearchDense(ctx, "alice", []float32{1, 0}, 1, hs.Filter{})
			return err
		},
		"SearchSparse": func() error {
			_, err := s.SearchSparse(ctx, "alice", store.VectorBM25, hs.SparseVector{}, 1, hs.Filter{})
			return err
		},
		"FilePoints": func() error { _, err := s.FilePoints(ctx, 1, false); return err },
		"Files":      func() error { _, err := s.Files(ctx, "alice"); return err },
		"Stats":      func() error { _, err := s.Stats(ctx); return err },
		"VectorsByHash": func() error {
			_, err := s.VectorsByHash(ctx, []string{"x"})
			return err
		},
	}
	for name, call := range calls {
		if err := call(); hs.ErrorKind(err) != hs.EUNAVAILABLE {
			t.Errorf("%s after Close = %v, want EUNAVAILABLE", name, err)
		}
	}
}

// TestLocalLeftoverTempMeta covers a crash while a meta was being
// written: the unfinished temporary file is ignored and removed.
func TestLocalLeftoverTempMeta(t *testing.T) {
	dir := t.TempDir()
	s, err := local.Open(dir, local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	writeSeq(t, s, 1, 3)
	crashed := crashCopy(t, dir)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(crashed, "meta.tmp")
	if err := os.WriteFile(tmp, []byte("HSMETA\x00\x01half a meta"), 0o600); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, crashed, local.Options{})
	if got := fileList(t, s); !slices.Equal(got, seq(1, 3)) {
		t.Errorf("files = %v, want %v", got, seq(1, 3))
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("meta.tmp is still there: %v", err)
	}
}

// TestLocalReaderPathsPersist: readers' paths survive a reopen (snapshot
// and WAL), and a store written without them reads back without them.
func TestLocalReaderPathsPersist(t *testing.T) {
	dir := t.TempDir()
	s, err := local.Open(dir, local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	shared := hs.FileMeta{ID: 1, Path: "/Secret/a.md", Readers: []hs.UserID{"alice", "bob"},
		Paths: map[hs.UserID]string{"alice": "/Secret/a.md", "bob": "/a.md"}}
	legacy := hs.FileMeta{ID: 2, Path: "/b.md", Readers: []hs.UserID{"alice"}}
	for _, m := range []hs.FileMeta{shared, legacy} {
		pt := hs.Point{ID: hs.PointID(m.ID, 0), Chunk: hs.Chunk{FileID: m.ID, Text: "x"}, File: m}
		if err := s.WriteFile(t.Context(), m, []hs.Point{pt}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = local.Open(dir, local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tt := range []struct {
		id   hs.FileID
		user hs.UserID
		want string
	}{{1, "alice", "/Secret/a.md"}, {1, "bob", "/a.md"}, {2, "alice", "/b.md"}, {2, "bob", ""}} {
		pts, err := s.FilePoints(t.Context(), tt.id, false)
		if err != nil || len(pts) != 1 {
			t.Fatalf("FilePoints(%d) = %v, %v", tt.id, pts, err)
		}
		if got := pts[0].File.PathOf(tt.user); got != tt.want {
			t.Errorf("file %d: %s's path after reopen = %q, want %q", tt.id, tt.user, got, tt.want)
		}
	}
}

// TestLocalUpsertTrimReplay: batched writes and a trim are replayed from
// the WAL after a crash, and survive a clean reopen.
func TestLocalUpsertTrimReplay(t *testing.T) {
	dir := t.TempDir()
	s, err := local.Open(dir, local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	m := hs.FileMeta{ID: 3, Path: "/big.txt", Readers: []hs.UserID{"alice"}}
	pt := func(no int) hs.Point {
		text := "chunk " + strconv.Itoa(no)
		return hs.Point{ID: hs.PointID(3, no), File: m, Chunk: hs.Chunk{FileID: 3, No: no, Text: text, Hash: text},
			Dense: []float32{1, float32(no)}, BM25: hs.SparseVector{Indices: []uint32{uint32(no)}, Values: []float32{1}}}
	}
	for _, batch := range [][]hs.Point{{pt(0), pt(1), pt(2)}, {pt(3), pt(4)}, {pt(1)}} {
		if err := s.UpsertPoints(t.Context(), m, batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.TrimFile(t.Context(), 3, 4); err != nil {
		t.Fatal(err)
	}
	check := func(what string, s *local.Store) {
		t.Helper()
		pts, err := s.FilePoints(t.Context(), 3, true)
		if err != nil || len(pts) != 4 {
			t.Fatalf("%s: FilePoints = %d points, %v; want 4", what, len(pts), err)
		}
		for i, p := range pts {
			if p.Chunk.No != i || len(p.Dense) != 2 {
				t.Errorf("%s: point %d = %+v", what, i, p.Chunk)
			}
		}
	}
	check("live", s)
	crashed, err := local.Open(crashCopy(t, dir), local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	check("replayed after a crash", crashed)
	crashed.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = local.Open(dir, local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check("reopened", s)
}

// TestLocalLargeFileCheckpoint: a file of hundreds of points reads back
// whole after a reopen from a checkpoint.
func TestLocalLargeFileCheckpoint(t *testing.T) {
	dir := t.TempDir()
	s, err := local.Open(dir, local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	m := hs.FileMeta{ID: 5, Path: "/book.txt", Readers: []hs.UserID{"alice"}}
	var pts []hs.Point
	for no := range 700 {
		text := "page " + strconv.Itoa(no)
		pts = append(pts, hs.Point{ID: hs.PointID(5, no), File: m, Chunk: hs.Chunk{FileID: 5, No: no, Text: text, Hash: text},
			Dense: []float32{1, float32(no)}, Trigram: hs.SparseVector{Indices: []uint32{uint32(no)}, Values: []float32{1}}})
	}
	if err := s.WriteFile(t.Context(), m, pts); err != nil {
		t.Fatal(err)
	}
	small := hs.FileMeta{ID: 9, Path: "/after.txt", Readers: []hs.UserID{"alice"}}
	if err := s.WriteFile(t.Context(), small, []hs.Point{{ID: hs.PointID(9, 0), File: small, Chunk: hs.Chunk{FileID: 9, Text: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "meta")); err != nil {
		t.Fatalf("no checkpoint after Close: %v", err)
	}
	s, err = local.Open(dir, local.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.FilePoints(t.Context(), 5, true)
	if err != nil || len(got) != 700 {
		t.Fatalf("FilePoints after reopen = %d points, %v; want 700", len(got), err)
	}
	for i, p := range got {
		if p.Chunk.No != i || p.Chunk.Text != pts[i].Chunk.Text || len(p.Dense) != 2 || len(p.Trigram.Indices) != 1 {
			t.Fatalf("point %d after reopen = %+v", i, p.Chunk)
		}
	}
	if st, _ := s.Stats(t.Context()); st.Points != 701 || st.Files != 2 {
		t.Errorf("Stats after reopen = %+v", st)
	}
}
