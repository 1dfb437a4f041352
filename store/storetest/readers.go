package storetest

import (
	"fmt"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// testReaderSets: files of several overlapping sets of readers, whose
// readers change by UpdateFileMeta and by rewrites, into sets other files
// already have and out of them again. After every change each user finds exactly the
// points of the files they read, through every way in: the three search
// legs, SamplePoints, PointsByID, ReadChunks and Files; moving points
// between readers changes no document frequency. A store that keeps
// points by reader set (the embedded store) moves them between sets here.
func testReaderSets(t *testing.T, s Store) {
	users := []hs.UserID{"alice", "bob", "carol"}
	readers := map[hs.FileID][]hs.UserID{
		1: {"alice"},
		2: {"alice", "bob"},
		3: {"bob"},
		4: {"alice", "bob", "carol"},
		5: {"alice"},
	}
	const chunks = 3
	write := func(id hs.FileID, nos ...int) {
		t.Helper()
		m := fileMeta(id, fmt.Sprintf("/r/%d.md", id), readers[id]...)
		var pts []hs.Point
		for _, no := range nos {
			pts = append(pts, point(m, no, fmt.Sprintf("chunk %d of %d", no, id), v(1, float32(id), float32(no)), map[uint32]float32{1: 1, uint32(10 + no): 1}, map[uint32]float32{2: 1}))
		}
		if err := s.UpsertPoints(t.Context(), m, pts); err != nil {
			t.Fatalf("UpsertPoints(%d) = %v", id, err)
		}
	}
	for id := range readers {
		write(id, 0, 1, 2)
	}
	df0, n0, err := s.SparseDocFreq(t.Context(), store.VectorBM25, []uint32{1, 10, 11, 12})
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, u := range users {
			var want []hs.FileID
			var wantIDs []string
			for id := hs.FileID(1); id <= 5; id++ {
				if slices.Contains(readers[id], u) {
					want = append(want, id)
					for no := range chunks {
						wantIDs = append(wantIDs, hs.PointID(id, no))
					}
				}
			}
			slices.Sort(wantIDs)
			legs := map[string][]hs.Hit{
				"dense":   mustDense(t, s, u, v(1, 2, 1), 100, hs.Filter{}),
				"bm25":    mustSparse(t, s, u, store.VectorBM25, map[uint32]float32{1: 1}, 100, hs.Filter{}),
				"trigram": mustSparse(t, s, u, store.VectorTrigram, map[uint32]float32{2: 1}, 100, hs.Filter{}),
			}
			for leg, hits := range legs {
				got := pointIDs(hits)
				slices.Sort(got)
				if !slices.Equal(got, wantIDs) {
					t.Errorf("%s: %s search by %s finds %d points %v, want the %d of files %v", when, leg, u, len(got), fileIDs(hits), len(wantIDs), want)
				}
			}
			sample, err := s.SamplePoints(t.Context(), u, store.MaxSample, hs.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range sample {
				got = append(got, p.ID)
			}
			if !slices.Equal(got, wantIDs) { // SamplePoints is in id order
				t.Errorf("%s: SamplePoints(%s) = %d points, want %d", when, u, len(got), len(wantIDs))
			}
			var all []string
			for id := hs.FileID(1); id <= 5; id++ {
				for no := range chunks {
					all = append(all, hs.PointID(id, no))
				}
			}
			byID, err := s.PointsByID(t.Context(), u, all)
			if err != nil {
				t.Fatal(err)
			}
			got = got[:0]
			for _, p := range byID {
				got = append(got, p.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, wantIDs) {
				t.Errorf("%s: PointsByID(%s) = %d points, want %d", when, u, len(got), len(wantIDs))
			}
			var ask []hs.Hit
			for id := hs.FileID(1); id <= 5; id++ {
				for no := range chunks {
					ask = append(ask, hs.Hit{Point: hs.Point{File: hs.FileMeta{ID: id}, Chunk: hs.Chunk{FileID: id, No: no}}})
				}
			}
			read, err := s.ReadChunks(t.Context(), u, ask)
			if err != nil {
				t.Fatal(err)
			}
			if len(read) != len(wantIDs) {
				t.Errorf("%s: ReadChunks(%s) = %d chunks, want %d", when, u, len(read), len(wantIDs))
			}
			if files := mustFiles(t, s, u); !slices.Equal(files, want) {
				t.Errorf("%s: Files(%s) = %v, want %v", when, u, files, want)
			}
		}
		df, n, err := s.SparseDocFreq(t.Context(), store.VectorBM25, []uint32{1, 10, 11, 12})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(df, df0) || n != n0 {
			t.Errorf("%s: document frequencies %v of %d, want %v of %d: moving points changed them", when, df, n, df0, n0)
		}
	}
	check("written")

	// Into a set another file has, and out again to a new one.
	readers[1] = []hs.UserID{"alice", "bob"}
	mustUpdate(t, s, fileMeta(1, "/r/1.md", readers[1]...))
	check("file 1 shared with bob")
	readers[1] = []hs.UserID{"carol"}
	mustUpdate(t, s, fileMeta(1, "/r/1.md", readers[1]...))
	check("file 1 given to carol")

	// Rewritten with new readers.
	readers[2] = []hs.UserID{"carol"}
	if err := s.DeleteFile(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	write(2, 0, 1, 2)
	check("file 2 rewritten for carol only")
	readers[4] = []hs.UserID{"bob"}
	write(4, 0, 1, 2)
	check("file 4 narrowed to bob")

	// Back and forth.
	for round := range 3 {
		readers[5] = [][]hs.UserID{{"alice", "bob", "carol"}, {"bob"}, {"alice"}}[round]
		mustUpdate(t, s, fileMeta(5, "/r/5.md", readers[5]...))
		check(fmt.Sprintf("file 5, round %d", round))
	}
}
