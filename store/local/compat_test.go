package local_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// compatDir holds a store's files as the store before bounded memory left
// them (main at 62bbc7f, whose store is that of a044367): a snapshot and a
// WAL with records after it, copied while the store was open (a crash
// image), and compat.json, what that store answered for its files.
// TestWriteCompatFixture made them.
const compatDir = "testdata/v1"

// compatState is what compat.json holds.
type compatState struct {
	Points map[hs.FileID][]hs.Point
	Files  map[hs.UserID][]hs.FileMeta
}

var compatFiles = []hs.FileID{1, 2, 3, 4}

// readCompatState returns what s answers for compatFiles and testUsers.
func readCompatState(t *testing.T, s *local.Store) compatState {
	t.Helper()
	st := compatState{Points: map[hs.FileID][]hs.Point{}, Files: map[hs.UserID][]hs.FileMeta{}}
	for _, id := range compatFiles {
		ps, err := s.FilePoints(t.Context(), id, true)
		if err != nil {
			t.Fatal(err)
		}
		st.Points[id] = ps
	}
	for _, u := range testUsers {
		fs, err := s.Files(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		st.Files[u] = fs
	}
	// A JSON round trip, so both sides compare alike (nil and empty).
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var out compatState
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// compatPoint is point no of a fixture file, with every field set.
func compatPoint(meta hs.FileMeta, no int, dense bool) hs.Point {
	c := hs.Chunk{FileID: meta.ID, No: no, Text: "chunk " + string(rune('a'+no)) + " of " + meta.Path,
		Start: 100 * no, End: 100*no + 50, Headings: []string{"Title", "Part"}, Page: no + 1, Hash: meta.Path + string(rune('0'+no))}
	p := hs.Point{ID: hs.PointID(meta.ID, no), Chunk: c,
		BM25:    hs.SparseVector{Indices: []uint32{uint32(no), 7, 90000}, Values: []float32{0.25, 1.5, 2.75}},
		Trigram: hs.SparseVector{Indices: []uint32{3, uint32(10 + no)}, Values: []float32{1, 1}}}
	if dense {
		p.Dense = []float32{float32(no + 1), 2, -3, 0.5, 0, 1, float32(meta.ID), 4}
	}
	return p
}

// TestWriteCompatFixture writes compatDir with the store it is built
// with, when HS_WRITE_COMPAT_FIXTURE names the folder to write to (run it
// in a checkout of the older store to refresh the fixture).
func TestWriteCompatFixture(t *testing.T) {
	out := os.Getenv("HS_WRITE_COMPAT_FIXTURE")
	if out == "" {
		t.Skip("set HS_WRITE_COMPAT_FIXTURE to write the fixture")
	}
	ctx := t.Context()
	dir := t.TempDir()
	meta := func(id hs.FileID, path string, readers ...hs.UserID) hs.FileMeta {
		return hs.FileMeta{ID: id, Path: path, Title: filepath.Base(path), MIME: "text/markdown", Type: hs.DocFile,
			Modified: time.Unix(1700000000+int64(id), 0).UTC(), ETag: "etag" + path, Size: 1000 * int64(id), Readers: readers}
	}
	m1, m2 := meta(1, "/notes/a.md", "alice"), meta(2, "/shared/b.md", "alice", "bob")
	m2.Paths = map[hs.UserID]string{"alice": "/shared/b.md", "bob": "/Shared with me/b.md"}
	s, err := local.Open(dir, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteFile(ctx, m1, []hs.Point{compatPoint(m1, 0, true), compatPoint(m1, 1, true), compatPoint(m1, 2, true)}); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteFile(ctx, m2, []hs.Point{compatPoint(m2, 0, true), compatPoint(m2, 1, false)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // writes the snapshot
		t.Fatal(err)
	}
	s, err = local.Open(dir, local.Options{CompactBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p1 := compatPoint(m1, 1, true)
	p1.Chunk.Text = "chunk b, edited"
	p1.Dense[3] = -7
	if err := s.UpsertPoints(ctx, m1, []hs.Point{p1, compatPoint(m1, 3, true)}); err != nil {
		t.Fatal(err)
	}
	m2.Readers = append(m2.Readers, "carol")
	if err := s.UpdateFileMeta(ctx, m2); err != nil {
		t.Fatal(err)
	}
	m3, m4 := meta(3, "/notes/c.md", "bob"), meta(4, "/notes/d.md", "carol")
	if err := s.WriteFile(ctx, m3, []hs.Point{compatPoint(m3, 0, true), compatPoint(m3, 1, true)}); err != nil {
		t.Fatal(err)
	}
	if err := s.TrimFile(ctx, 3, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteFile(ctx, m4, []hs.Point{compatPoint(m4, 0, true)}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteFile(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"snapshot", "wal"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.MarshalIndent(readCompatState(t, s), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "compat.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLocalOpensOlderData opens the files the store before bounded memory
// wrote (snapshot plus WAL records after it) and finds what that store
// held, then again after this store rewrote them.
func TestLocalOpensOlderData(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(compatDir, "compat.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want compatState
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Points[1]) != 4 || len(want.Points[3]) != 1 || len(want.Points[4]) != 0 || len(want.Files["carol"]) != 1 {
		t.Fatalf("fixture holds %d, %d, %d points and %d files of carol's; regenerate it", len(want.Points[1]), len(want.Points[3]), len(want.Points[4]), len(want.Files["carol"]))
	}
	dir := t.TempDir()
	for _, name := range []string{"snapshot", "wal"} {
		b, err := os.ReadFile(filepath.Join(compatDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, when := range []string{"older files", "rewritten files"} {
		s := mustOpen(t, dir, local.Options{Logger: testLogger(t)})
		if got := readCompatState(t, s); !reflect.DeepEqual(got, want) {
			gb, _ := json.MarshalIndent(got, "", " ")
			t.Fatalf("%s: store holds\n%s\nwant\n%s", when, gb, b)
		}
		hits, err := s.SearchDense(t.Context(), "alice", want.Points[1][2].Dense, 1, hs.Filter{})
		if err != nil || len(hits) != 1 || hits[0].Point.ID != want.Points[1][2].ID {
			t.Fatalf("%s: SearchDense(own vector) = %v, %v; want %s", when, hits, err, want.Points[1][2].ID)
		}
		if err := s.Close(); err != nil { // compacts: the next round reads this store's snapshot
			t.Fatal(err)
		}
	}
}
