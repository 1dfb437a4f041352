package local

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// graphFiles writes n files of 20 clustered 64-dimensional points each,
// readable by readers, from file id from; version changes the vectors.
func graphFiles(t *testing.T, s *Store, from, n, version int, readers ...hs.UserID) {
	t.Helper()
	for f := from; f < from+n; f++ {
		id := hs.FileID(f)
		rng := rand.New(rand.NewPCG(uint64(f), uint64(version)))
		center := graphCenter(f % 40)
		meta := hs.FileMeta{ID: id, Path: fmt.Sprintf("/g/%d.md", f), Readers: readers}
		var pts []hs.Point
		for no := range 20 {
			v := make([]float32, len(center))
			for j := range v {
				v[j] = center[j] + float32(rng.NormFloat64())*0.08
			}
			pts = append(pts, hs.Point{ID: hs.PointID(id, no), Chunk: hs.Chunk{FileID: id, No: no, Text: "t", Hash: fmt.Sprint(f, no, version)}, Dense: v})
		}
		if err := s.WriteFile(t.Context(), meta, pts); err != nil {
			t.Fatal(err)
		}
	}
}

func graphCenter(c int) []float32 {
	rng := rand.New(rand.NewPCG(uint64(c), 77))
	v := make([]float32, 64)
	for j := range v {
		v[j] = float32(rng.NormFloat64())
	}
	return store.Normalized(v)
}

// graphRecall returns the recall@10 of user's SearchDense against the
// exact scan over queries near the clusters, and fails on a hit the user
// may not read or a score that is not the row's exact one.
func graphRecall(t *testing.T, s *Store, user hs.UserID, queries int) float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	found, want := 0, 0
	for range queries {
		c := graphCenter(rng.IntN(40))
		q := make([]float32, len(c))
		for j := range q {
			q[j] = c[j] + float32(rng.NormFloat64())*0.1
		}
		hits, err := s.SearchDense(t.Context(), user, q, 10, hs.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		s.mu.RLock()
		m := newMatcher(user, hs.Filter{})
		exact := s.idx.searchDense(t.Context(), user, store.Normalized(q), 10, &m, true)
		var ids []string
		for _, e := range exact {
			ids = append(ids, s.idx.ids[e.slot].String())
		}
		s.mu.RUnlock()
		for _, h := range hits {
			if !slices.Contains(h.Point.File.Readers, user) {
				t.Fatalf("%s got a point of %v", user, h.Point.File.Readers)
			}
			if slices.Contains(ids, h.Point.ID) {
				found++
			}
		}
		want += len(ids)
	}
	return float64(found) / float64(max(want, 1))
}

// TestGraphSearch builds graphs for two groups, checks recall against the
// exact scan and isolation, then rewrites and deletes a third of the
// files so that purges drop dead nodes and free their slots, and reopens
// the store so the saved graphs are loaded.
func TestGraphSearch(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{GraphMin: 500, CompactBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	graphFiles(t, s, 1, 200, 0, "alice")          // 4,000 points of alice's
	graphFiles(t, s, 1001, 60, 0, "alice", "bob") // 1,200 shared
	graphFiles(t, s, 2001, 60, 0, "carol")        // 1,200 of carol's
	s.waitIndexed()
	if err := s.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	graphs := 0
	for _, g := range s.idx.groups {
		if g.graph != nil {
			graphs++
			if nodes, _ := g.graph.counts(); nodes != g.dense {
				t.Errorf("group %v: %d nodes for %d points", g.readers, nodes, g.dense)
			}
		}
	}
	if graphs != 3 {
		t.Fatalf("%d graphs, want 3", graphs)
	}
	for _, u := range []hs.UserID{"alice", "bob", "carol"} {
		if r := graphRecall(t, s, u, 40); r < 0.95 {
			t.Errorf("%s: recall@10 %.3f, want ≥ 0.95", u, r)
		}
	}
	slots := len(s.idx.file)
	for f := 1; f <= 200; f += 3 {
		if f%2 == 0 {
			if err := s.DeleteFile(t.Context(), hs.FileID(f)); err != nil {
				t.Fatal(err)
			}
		} else {
			graphFiles(t, s, f, 1, 1, "alice")
		}
	}
	s.waitIndexed()
	if err := s.checkInvariants(); err != nil {
		t.Fatalf("after rewrites: %v", err)
	}
	for _, g := range s.idx.groups {
		if gr := g.graph; gr != nil && len(gr.dead)+len(gr.skip) > 0 && gr.needsPurge() {
			t.Errorf("group %v: %d dead nodes left unpurged", g.readers, len(gr.dead))
		}
	}
	if r := graphRecall(t, s, "alice", 40); r < 0.95 {
		t.Errorf("after rewrites: recall@10 %.3f, want ≥ 0.95", r)
	}
	s.wmu.Lock()
	if err := s.checkpoint(false); err != nil { // freed slots become reusable
		t.Fatal(err)
	}
	s.wmu.Unlock()
	graphFiles(t, s, 3001, 40, 0, "alice")
	if n := len(s.idx.file); n > slots+200*20 {
		t.Errorf("slots grew from %d to %d: purged slots are not reused", slots, n)
	}
	s.waitIndexed()
	before := graphRecall(t, s, "alice", 40)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{GraphMin: 500})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, g := range s.idx.groups {
		if gr := g.graph; gr != nil {
			if _, done := gr.counts(); len(gr.pending) != done {
				t.Errorf("group %v: %d points to re-insert after a clean reopen", g.readers, len(gr.pending)-done)
			}
		}
	}
	if err := s.checkInvariants(); err != nil {
		t.Fatalf("reopened: %v", err)
	}
	if after := graphRecall(t, s, "alice", 40); after != before {
		t.Errorf("recall %.3f after reopening, %.3f before: the graph changed", after, before)
	}
}

// TestUpsertMovesFile: UpsertPoints with new readers moves the file's
// other points too (the local store sets every point's metadata), out of
// the old readers' reach in every leg, graphs included, and the moved
// points keep their vectors and postings.
func TestUpsertMovesFile(t *testing.T) {
	s, err := Open(t.TempDir(), Options{GraphMin: 1, CompactBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	graphFiles(t, s, 1, 30, 0, "alice", "bob") // a group big enough for a graph
	s.waitIndexed()
	meta := hs.FileMeta{ID: 7, Path: "/g/7.md", Readers: []hs.UserID{"carol"}}
	p := hs.Point{ID: hs.PointID(7, 3), Chunk: hs.Chunk{FileID: 7, No: 3, Text: "new"}, Dense: graphCenter(7)}
	if err := s.UpsertPoints(t.Context(), meta, []hs.Point{p}); err != nil {
		t.Fatal(err)
	}
	s.waitIndexed()
	if err := s.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	for _, u := range []hs.UserID{"alice", "bob", "carol"} {
		hits, err := s.SearchDense(t.Context(), u, graphCenter(7), 1000, hs.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, h := range hits {
			if h.Point.File.ID == 7 {
				n++
				if !slices.Contains(h.Point.File.Readers, u) {
					t.Errorf("%s finds a point of file 7, read by %v", u, h.Point.File.Readers)
				}
			}
		}
		if want := map[hs.UserID]int{"carol": 20}[u]; n != want {
			t.Errorf("%s finds %d points of file 7, want %d", u, n, want)
		}
	}
	pts, err := s.FilePoints(t.Context(), 7, true)
	if err != nil || len(pts) != 20 {
		t.Fatalf("FilePoints(7) = %d points, %v", len(pts), err)
	}
	for _, p := range pts {
		if !slices.Equal(p.File.Readers, []hs.UserID{"carol"}) || len(p.Dense) != 64 {
			t.Errorf("point %d: readers %v, %d dense values", p.Chunk.No, p.File.Readers, len(p.Dense))
		}
	}
}

// TestGraphCalibration: the indexer measures a graph once it has caught
// up and again once it has grown by half; walks keep the measured number
// of candidates, and a group whose graph cannot reach the recall asked is
// scanned, with exactly the scan's results. A reopened store measures its
// graphs again.
func TestGraphCalibration(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{GraphMin: 500, CompactBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	// Walks of these small graphs are slower than scans of their groups,
	// which measuring would choose (checked last): calWalk keeps them.
	setCal := func(min int, need float64) {
		s.imu.Lock()
		s.mu.Lock()
		s.idx.calMin, s.idx.calNeed, s.idx.calWalk = min, need, true
		s.mu.Unlock()
		s.imu.Unlock()
	}
	graphOf := func() *graph {
		t.Helper()
		s.mu.RLock()
		defer s.mu.RUnlock()
		for _, g := range s.idx.groups {
			if g.graph != nil {
				return g.graph
			}
		}
		t.Fatal("no graph")
		return nil
	}
	// Measuring waits for the writes: a graph that has caught up is
	// measured at once, which between two writes would be at any size.
	measure := func(need float64) {
		setCal(1000, need)
		s.kickIndexer()
		s.waitIndexed()
	}
	setCal(1<<30, 0)
	graphFiles(t, s, 1, 200, 0, "alice") // 4,000 points
	measure(0)
	gr := graphOf()
	if ef := gr.ef.Load(); !slices.Contains(efLadder, int(ef)) || gr.calNodes != 4000 {
		t.Fatalf("after 4,000 points: ef %d measured at %d nodes, want one of %v at 4,000", ef, gr.calNodes, efLadder)
	}
	if r := graphRecall(t, s, "alice", 40); r < 0.95 {
		t.Errorf("recall@10 %.3f at the measured ef, want ≥ 0.95", r)
	}
	setCal(1<<30, 0)
	graphFiles(t, s, 201, 50, 0, "alice") // 5,000: not grown by half
	measure(0)
	if gr.calNodes != 4000 {
		t.Errorf("measured again at %d nodes, before growing by half", gr.calNodes)
	}

	setCal(1<<30, 0)
	graphFiles(t, s, 251, 50, 0, "alice") // 6,000
	measure(1.01)                         // no walk can reach it: the group is scanned
	if ef := gr.ef.Load(); ef != efScan || gr.calNodes != 6000 {
		t.Fatalf("asked for more than any walk finds: ef %d at %d nodes, want %d (scan) at 6,000", ef, gr.calNodes, efScan)
	}
	if r := graphRecall(t, s, "alice", 40); r != 1 {
		t.Errorf("a scanned group's recall@10 is %.3f, want 1", r)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir, Options{GraphMin: 500}); err != nil {
		t.Fatal(err)
	}
	gr = graphOf()
	measure(0)
	if ef := gr.ef.Load(); !slices.Contains(efLadder, int(ef)) || gr.calNodes != 6000 {
		t.Errorf("reopened: ef %d measured at %d nodes, want one of %v at 6,000", ef, gr.calNodes, efLadder)
	}

	// Deleting a fifth of the files: the purges drop a tenth of the nodes
	// or more, and the graph is measured again.
	gr.ef.Store(1) // not a measured value: a new measurement replaces it
	for f := 1; f <= 300; f += 5 {
		if err := s.DeleteFile(t.Context(), hs.FileID(f)); err != nil {
			t.Fatal(err)
		}
	}
	s.kickIndexer()
	s.waitIndexed()
	if ef := gr.ef.Load(); !slices.Contains(efLadder, int(ef)) || gr.calDropped != 0 {
		t.Errorf("after purging a fifth of the nodes: ef %d, %d dropped since measured; want it measured again", ef, gr.calDropped)
	}

	// Without calWalk: scanning 4,800 rows of 64 dimensions is faster
	// than walking them, so the group is scanned.
	s.imu.Lock()
	s.mu.Lock()
	s.idx.calWalk, gr.calNodes = false, 0
	s.mu.Unlock()
	s.imu.Unlock()
	s.kickIndexer()
	s.waitIndexed()
	if ef := gr.ef.Load(); ef != efScan {
		t.Errorf("a walk slower than the scan: ef %d, want %d (scan)", ef, efScan)
	}
}
