package local

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// wandCorpus writes n random files whose sparse vectors draw indices from
// Zipf distributions (so some lists span many blocks) with weights from a
// few levels, as BM25 weights are, or from many (every posting its own),
// and trigram-like vectors of weight 1. Readers are random subsets of
// users, so lists are cut into groups.
func wandCorpus(t *testing.T, s *Store, rng *rand.Rand, from, n int, users []hs.UserID) {
	t.Helper()
	zb := rand.NewZipf(rng, 1.1, 3, 3000)
	zt := rand.NewZipf(rng, 1.05, 2, 2000)
	for f := from; f < from+n; f++ {
		id := hs.FileID(f)
		var readers []hs.UserID
		for _, u := range users {
			if rng.IntN(2) == 0 {
				readers = append(readers, u)
			}
		}
		if len(readers) == 0 {
			readers = users[:1]
		}
		meta := hs.FileMeta{ID: id, Path: fmt.Sprintf("/d%d/f%d.md", f%4, f), Readers: readers}
		var pts []hs.Point
		for no := range 1 + rng.IntN(25) {
			p := hs.Point{ID: hs.PointID(id, no), Chunk: hs.Chunk{FileID: id, No: no, Text: "x"}}
			seen := map[uint32]bool{}
			for range 3 + rng.IntN(30) {
				i := uint32(zb.Uint64())
				if seen[i] {
					continue
				}
				seen[i] = true
				w := float32(1+rng.IntN(8)) / 4
				if f%3 == 0 {
					w = rng.Float32() * 3
				}
				p.BM25.Indices, p.BM25.Values = append(p.BM25.Indices, i), append(p.BM25.Values, w)
			}
			p.BM25 = store.SortedSparse(p.BM25)
			seen = map[uint32]bool{}
			for range rng.IntN(40) {
				i := uint32(zt.Uint64())
				if !seen[i] {
					seen[i] = true
					p.Trigram.Indices, p.Trigram.Values = append(p.Trigram.Indices, i), append(p.Trigram.Values, 1)
				}
			}
			p.Trigram = store.SortedSparse(p.Trigram)
			pts = append(pts, p)
		}
		if err := s.WriteFile(t.Context(), meta, pts); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWANDExhaustive checks that block-max WAND over segments returns the
// same top k (points and scores, to the bit) as scoring every posting,
// and as the tail's scorer did before a checkpoint moved the postings to
// segments: for many queries, k, users and filters, over several
// segments, with deletes, rewrites and reader changes leaving stale
// postings behind.
func TestWANDExhaustive(t *testing.T) {
	users := []hs.UserID{"alice", "bob", "carol"}
	for seed := range 4 {
		rng := rand.New(rand.NewPCG(uint64(seed), 26))
		s, err := Open(t.TempDir(), Options{GraphMin: -1, CompactBytes: 1 << 40})
		if err != nil {
			t.Fatal(err)
		}
		type query struct {
			v int
			q hs.SparseVector
		}
		var queries []query
		for range 40 {
			v := rng.IntN(2)
			var q hs.SparseVector
			seen := map[uint32]bool{}
			for range 1 + rng.IntN(6) {
				i := uint32(rng.IntN(40)) // common indices: long lists
				if rng.IntN(3) == 0 {
					i = uint32(rng.IntN(2000))
				}
				if !seen[i] {
					seen[i] = true
					q.Indices = append(q.Indices, i)
					q.Values = append(q.Values, float32(1+rng.IntN(5))/2)
				}
			}
			queries = append(queries, query{v, q})
		}
		sc := new(scratch)
		run := func(exhaustive bool) [][]scored {
			s.mu.RLock()
			defer s.mu.RUnlock()
			var out [][]scored
			for _, u := range users {
				for _, f := range []hs.Filter{{}, {PathPrefix: "/d1"}} {
					m := newMatcher(u, f)
					for _, qq := range queries {
						for _, k := range []int{1, 3, 10, 100} {
							out = append(out, slices.Clone(s.idx.searchSparse(u, qq.v, qq.q, k, &m, exhaustive, sc)))
						}
					}
				}
			}
			return out
		}
		checkpoint := func() {
			s.wmu.Lock()
			defer s.wmu.Unlock()
			if err := s.checkpoint(false); err != nil {
				t.Fatal(err)
			}
		}
		compare := func(when string, got, want [][]scored) {
			t.Helper()
			for i := range want {
				if !slices.Equal(got[i], want[i]) {
					t.Fatalf("seed %d, %s: case %d differs\n got %v\nwant %v", seed, when, i, got[i], want[i])
				}
			}
		}
		wandCorpus(t, s, rng, 1, 150, users)
		checkpoint()
		wandCorpus(t, s, rng, 151, 150, users)
		tail := run(true) // the second half is in the tail
		checkpoint()
		compare("tail then segment", run(false), tail)
		compare("two segments", run(false), run(true))
		// Stale postings: deletes, rewrites and reader changes.
		for range 60 {
			id := hs.FileID(1 + rng.IntN(300))
			switch rng.IntN(3) {
			case 0:
				if err := s.DeleteFile(t.Context(), id); err != nil {
					t.Fatal(err)
				}
			case 1:
				wandCorpus(t, s, rng, int(id), 1, users)
			default:
				err := s.UpdateFileMeta(t.Context(), hs.FileMeta{ID: id, Path: "/d1/moved.md", Readers: users[rng.IntN(3):]})
				if err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
					t.Fatal(err)
				}
			}
		}
		compare("stale postings, tail", run(false), run(true))
		checkpoint()
		compare("stale postings, three segments", run(false), run(true))
		if err := s.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
}

// TestMergeSegments checks that merging keeps every current posting and
// drops stale ones: searches give the same results before and after, and
// the invariants hold (each live point's postings are where its owner
// says).
func TestMergeSegments(t *testing.T) {
	users := []hs.UserID{"alice", "bob", "carol"}
	rng := rand.New(rand.NewPCG(7, 26))
	s, err := Open(t.TempDir(), Options{GraphMin: -1, CompactBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkpoint := func() {
		s.wmu.Lock()
		defer s.wmu.Unlock()
		if err := s.checkpoint(true); err != nil { // no merge started
			t.Fatal(err)
		}
	}
	for i := range 6 {
		wandCorpus(t, s, rng, 1+40*i, 40, users)
		for range 10 {
			if err := s.DeleteFile(t.Context(), hs.FileID(1+rng.IntN(40*(i+1)))); err != nil {
				t.Fatal(err)
			}
		}
		checkpoint()
	}
	search := func() [][]scored {
		s.mu.RLock()
		defer s.mu.RUnlock()
		sc := new(scratch)
		var out [][]scored
		for _, u := range users {
			m := newMatcher(u, hs.Filter{})
			for i := range uint32(30) {
				q := hs.SparseVector{Indices: []uint32{i, i + 7}, Values: []float32{1, 0.5}}
				out = append(out, slices.Clone(s.idx.searchSparse(u, int(i%2), q, 20, &m, false, sc)))
			}
		}
		return out
	}
	before := search()
	if n := len(s.idx.segs); n != 6 {
		t.Fatalf("%d segments, want 6", n)
	}
	merges := 0
	for {
		more, err := s.mergeOnce()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
		merges++
	}
	if merges == 0 || len(s.idx.segs) >= 6 {
		t.Errorf("%d merges, %d segments left", merges, len(s.idx.segs))
	}
	if err := s.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	after := search()
	for i := range before {
		if !slices.Equal(before[i], after[i]) {
			t.Fatalf("search %d differs after merging:\n got %v\nwant %v", i, after[i], before[i])
		}
	}
	if sg := s.idx.segs[len(s.idx.segs)-1]; sg.live != sg.docs {
		t.Errorf("merged segment %d: %d live of %d: it kept stale postings", sg.id, sg.live, sg.docs)
	}
}
