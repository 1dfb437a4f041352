package storetest

import (
	"cmp"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

// sampleFixture writes alice's files 1–6 (three chunks each), bob's file 7
// and a note 8 shared by both, and returns every point by id.
func sampleFixture(t *testing.T, s Store) map[string]hs.Point {
	t.Helper()
	all := map[string]hs.Point{}
	for id := hs.FileID(1); id <= 8; id++ {
		readers := []hs.UserID{"alice"}
		switch id {
		case 7:
			readers = []hs.UserID{"bob"}
		case 8:
			readers = []hs.UserID{"alice", "bob"}
		}
		m := fileMeta(id, "/f"+string(rune('0'+id))+".md", readers...)
		if id == 8 {
			m.Type = hs.DocNote
		}
		var ps []hs.Point
		for no := range 3 {
			dense := v(float32(id), float32(no+1), 1)
			ps = append(ps, point(m, no, "chunk text", dense, map[uint32]float32{uint32(id): 1, 100 + uint32(no): 0.5}, map[uint32]float32{7: 1}))
		}
		mustWrite(t, s, m, ps...)
		for _, p := range ps {
			all[p.ID] = p
		}
	}
	return all
}

// checkPoint compares a returned point, vectors included, with the written one.
func checkPoint(t *testing.T, got hs.Point, all map[string]hs.Point) {
	t.Helper()
	want, ok := all[got.ID]
	if !ok {
		t.Fatalf("returned point %s was never written", got.ID)
	}
	if !chunkEqual(got.Chunk, want.Chunk) || got.File.ID != want.File.ID || got.File.Path != want.File.Path {
		t.Errorf("point %s = %+v / %+v, want %+v / %+v", got.ID, got.Chunk, got.File, want.Chunk, want.File)
	}
	if !nearVec(got.Dense, unit(want.Dense)) {
		t.Errorf("point %s dense = %v, want %v (normalised)", got.ID, got.Dense, unit(want.Dense))
	}
	if !sparseEqual(got.BM25, want.BM25) {
		t.Errorf("point %s bm25 = %+v, want %+v", got.ID, got.BM25, want.BM25)
	}
}

func testPointsByID(t *testing.T, s Store) {
	all := sampleFixture(t, s)
	ids := []string{
		hs.PointID(3, 2), hs.PointID(7, 0), hs.PointID(1, 0),
		hs.PointID(8, 1), hs.PointID(99, 0), hs.PointID(3, 2),
	}
	got, err := s.PointsByID(t.Context(), "alice", ids)
	if err != nil {
		t.Fatalf("PointsByID(alice) = %v", err)
	}
	// Bob's file 7 and the absent file 99 are left out, the repeat is not doubled.
	want := []string{hs.PointID(3, 2), hs.PointID(1, 0), hs.PointID(8, 1)}
	if gotIDs := idsOf(got); !slices.Equal(gotIDs, want) {
		t.Fatalf("PointsByID(alice) = %v, want %v", gotIDs, want)
	}
	for _, p := range got {
		checkPoint(t, p, all)
	}
	got, err = s.PointsByID(t.Context(), "bob", ids)
	if err != nil {
		t.Fatalf("PointsByID(bob) = %v", err)
	}
	if gotIDs, want := idsOf(got), []string{hs.PointID(7, 0), hs.PointID(8, 1)}; !slices.Equal(gotIDs, want) {
		t.Errorf("PointsByID(bob) = %v, want %v", gotIDs, want)
	}
	for _, u := range []hs.UserID{"carol", "ALICE"} {
		if got, err := s.PointsByID(t.Context(), u, ids); err != nil || len(got) != 0 {
			t.Errorf("PointsByID(%q) = %v, %v; want nothing", u, idsOf(got), err)
		}
	}
	if _, err := s.PointsByID(t.Context(), "", ids); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("PointsByID(\"\") = %v, want EINVALID", err)
	}
	if got, err := s.PointsByID(t.Context(), "alice", nil); err != nil || len(got) != 0 {
		t.Errorf("PointsByID(alice, nil) = %v, %v", got, err)
	}
}

func testSamplePoints(t *testing.T, s Store) {
	all := sampleFixture(t, s)
	readable := func(user hs.UserID, f func(hs.Point) bool) []string {
		var ids []string
		for id, p := range all {
			if slices.Contains(p.File.Readers, user) && (f == nil || f(p)) {
				ids = append(ids, id)
			}
		}
		slices.SortFunc(ids, cmp.Compare)
		return ids
	}
	for _, tt := range []struct {
		user hs.UserID
		n    int
		f    hs.Filter
		keep func(hs.Point) bool
	}{
		{"alice", 100, hs.Filter{}, nil},
		{"alice", 5, hs.Filter{}, nil},
		{"bob", 100, hs.Filter{}, nil},
		{"bob", 4, hs.Filter{}, nil},
		{"alice", 100, hs.Filter{Types: []hs.DocType{hs.DocNote}}, func(p hs.Point) bool { return p.File.Type == hs.DocNote }},
		{"alice", 100, hs.Filter{PathPrefix: "/f2.md"}, func(p hs.Point) bool { return p.File.ID == 2 }},
		{"carol", 100, hs.Filter{}, nil},
	} {
		got, err := s.SamplePoints(t.Context(), tt.user, tt.n, tt.f)
		if err != nil {
			t.Fatalf("SamplePoints(%s, %d, %+v) = %v", tt.user, tt.n, tt.f, err)
		}
		want := readable(tt.user, tt.keep)
		want = want[:min(len(want), tt.n)]
		if gotIDs := idsOf(got); !slices.Equal(gotIDs, want) {
			t.Errorf("SamplePoints(%s, %d, %+v) = %v, want the smallest ids %v", tt.user, tt.n, tt.f, gotIDs, want)
		}
		for _, p := range got {
			checkPoint(t, p, all)
		}
	}
	if got, err := s.SamplePoints(t.Context(), "alice", 0, hs.Filter{}); err != nil || len(got) != 0 {
		t.Errorf("SamplePoints(alice, 0) = %v, %v; want nothing", idsOf(got), err)
	}
	if _, err := s.SamplePoints(t.Context(), "", 10, hs.Filter{}); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("SamplePoints(\"\") = %v, want EINVALID", err)
	}
}

// idsOf returns the ids of points in order.
func idsOf(ps []hs.Point) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids
}
