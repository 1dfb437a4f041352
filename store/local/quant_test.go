package local

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// quantInvariants returns an error unless the int8 copy matches the slab:
// rows for every slot, and every dense slot's row as quantize makes it.
func (x *index) quantInvariants() error {
	if x.dim == 0 {
		return nil
	}
	if len(x.q8) != len(x.slab) || len(x.slab) < len(x.file)*x.dim {
		return fmt.Errorf("int8 copy: %d codes for %d floats, %d slots", len(x.q8), len(x.slab), len(x.file))
	}
	want := make([]int8, x.dim)
	for s, dense := range x.dense {
		if !dense {
			continue
		}
		row := quantize(x.vector(int32(s)), want)
		if row != x.qrow[s] || !slices.Equal(want, x.q8[s*x.dim:(s+1)*x.dim]) {
			return fmt.Errorf("slot %d: int8 copy differs from its vector", s)
		}
	}
	return nil
}

// applyOp logs o to a WAL-like file of x's, as Store.mutate does, and
// applies it.
func applyOp(tb testing.TB, x *index, o *op) {
	tb.Helper()
	if x.recs.wal == nil {
		f, err := os.Create(filepath.Join(x.dir, walName))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { f.Close() })
		x.recs.wal = f
	}
	p, err := x.prepare(o, nil)
	if err != nil {
		tb.Fatal(err)
	}
	frame := encodeFrame(nil, func(e *encoder) { o.encode(e, 1) })
	st, err := x.recs.wal.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := x.recs.wal.WriteAt(frame, st.Size()); err != nil {
		tb.Fatal(err)
	}
	x.apply(o, p, st.Size(), 0)
}

// quantCorpus builds an index of n points in files of up to 40 with ties
// by construction: some vectors repeat, some take three levels so many
// share codes and scores, a few are zero, some points have none. Readers
// and paths vary so filters and user lists cut the corpus unevenly.
func quantCorpus(tb testing.TB, rng *rand.Rand, dim, n int) *index {
	x := newIndex(tb.TempDir())
	tb.Cleanup(func() { x.close() })
	var pool [][]float32
	for f := 0; n > 0; f++ {
		id := hs.FileID(f + 1)
		meta := hs.FileMeta{ID: id, Path: fmt.Sprintf("/d%d/%d.md", f%3, f), Readers: []hs.UserID{"alice"}}
		if f%4 == 1 {
			meta.Readers = append(meta.Readers, "bob")
		}
		o := &op{kind: opWrite, meta: meta}
		for no := range min(n, 1+rng.IntN(40)) {
			v := make([]float32, dim)
			switch r := rng.IntN(20); {
			case r < 3 && len(pool) > 0:
				v = pool[rng.IntN(len(pool))]
			case r < 8:
				for j := range v {
					v[j] = float32(rng.IntN(3) - 1)
				}
			case r == 8:
			case r == 9:
				v = nil
			default:
				for j := range v {
					v[j] = float32(rng.NormFloat64())
				}
			}
			if v != nil {
				v = store.Normalized(v)
				pool = append(pool, v)
			}
			o.points = append(o.points, pointIn{id: hs.PointID(id, no), chunk: hs.Chunk{FileID: id, No: no}, dense: v})
		}
		n -= len(o.points)
		applyOp(tb, x, o)
	}
	return x
}

// TestScanQuantExact checks over many seeds that the int8 path returns
// exactly the float32 scan's top k, ids and scores, for many k, with and
// without filters, split into several parallel parts, with both kernels.
func TestScanQuantExact(t *testing.T) {
	was := hasAVX2FMA
	defer func() { hasAVX2FMA = was }()
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 99))
		dim := []int{3, 16, 33, 96, 768}[seed%5]
		n := 50 + rng.IntN(3000)
		if seed%5 == 4 {
			n = 1500
		}
		x := quantCorpus(t, rng, dim, n)
		if err := x.invariants(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		hasAVX2FMA = was && seed%2 == 0
		for _, user := range []hs.UserID{"alice", "bob"} {
			for _, f := range []hs.Filter{{}, {PathPrefix: "/d1"}} {
				m := newMatcher("alice", f)
				var slots []int32
				for _, g := range x.userGroups[user] {
					slots = append(slots, g.slots...)
				}
				var q []float32
				switch rng.IntN(4) {
				case 0: // a stored vector: ties with its copies at the top
					q = slices.Clone(x.vector(slots[rng.IntN(len(slots))]))
				case 1:
					q = make([]float32, dim)
					for j := range q {
						q[j] = float32(rng.IntN(3) - 1)
					}
				default:
					q = randFloats(rng, dim)
				}
				q = store.Normalized(q)
				for _, k := range []int{1, 2, 7, 30, 100, store.MaxK} {
					parts := 1 + rng.IntN(3)
					want := x.rankRows(context.Background(), q, [][]int32{slots}, len(slots), nil, k, &m, parts, false)
					got := x.rankRows(context.Background(), q, [][]int32{slots}, len(slots), nil, k, &m, 1+rng.IntN(3), true)
					if !slices.Equal(got, want) {
						t.Fatalf("seed %d dim %d user %s filter %+v k %d: int8 path differs\n got %v\nwant %v", seed, dim, user, f, k, got, want)
					}
				}
			}
		}
	}
}

// TestSearchDenseQuant runs SearchDense on a user above quantMin, so it
// takes the int8 path, and checks it against the float32 scan through
// writes, rewrites, deletes, a reopen (snapshot plus WAL replay) and
// compaction, and that the int8 copy stays in step with the slab.
func TestSearchDenseQuant(t *testing.T) {
	if testing.Short() {
		t.Skip("writes more than quantMin points")
	}
	const dim = 24
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(21, 22))
	write := func(s *Store, id hs.FileID, n int) {
		t.Helper()
		meta := hs.FileMeta{ID: id, Path: fmt.Sprintf("/d%d/x.md", id%3), Readers: []hs.UserID{"alice"}}
		points := make([]hs.Point, n)
		for no := range points {
			points[no] = hs.Point{ID: hs.PointID(id, no), Chunk: hs.Chunk{FileID: id, No: no}, Dense: randFloats(rng, dim)}
			if no%9 == 4 {
				for j := range points[no].Dense {
					points[no].Dense[j] = float32(rng.IntN(3) - 1)
				}
			}
		}
		if err := s.WriteFile(t.Context(), meta, points); err != nil {
			t.Fatal(err)
		}
	}
	check := func(s *Store, when string) {
		t.Helper()
		if err := s.checkInvariants(); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if n := len(s.idx.userGroups["alice"][0].slots); n < quantMin {
			t.Fatalf("%s: alice sees %d points, want ≥ %d for the int8 path", when, n, quantMin)
		}
		for _, f := range []hs.Filter{{}, {PathPrefix: "/d2"}} {
			for _, k := range []int{1, 10, store.MaxK} {
				q := randFloats(rng, dim)
				got, err := s.SearchDense(t.Context(), "alice", q, k, f)
				if err != nil {
					t.Fatal(err)
				}
				m := newMatcher("alice", f)
				slots := s.idx.userGroups["alice"][0].slots
				want, err := s.idx.hits(s.idx.rankRows(t.Context(), store.Normalized(q), [][]int32{slots}, len(slots), nil, k, &m, 1, false), "alice", false)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%s: SearchDense(k %d) found %d hits, want %d", when, k, len(got), len(want))
				}
				for i := range got {
					if got[i].Point.ID != want[i].Point.ID || got[i].Score != want[i].Score {
						t.Fatalf("%s: SearchDense(k %d) hit %d = %s %v, want %s %v", when, k, i, got[i].Point.ID, got[i].Score, want[i].Point.ID, want[i].Score)
					}
				}
			}
		}
	}
	s, err := Open(dir, Options{CompactBytes: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	const files = quantMin/200 + 20
	for id := range hs.FileID(files) {
		write(s, id+1, 200)
	}
	check(s, "after writes")
	for id := hs.FileID(1); id <= files; id += 7 {
		if err := s.DeleteFile(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		write(s, id+3, 150) // frees slots, then reuses them
	}
	for id := hs.FileID(1); id <= files; id += 7 {
		write(s, id, 200)
	}
	check(s, "after rewrites")
	s.wmu.Lock()
	err = s.checkpoint(false)
	s.wmu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	for id := hs.FileID(2); id <= files; id += 11 {
		write(s, id, 180) // in the WAL after the snapshot
	}
	check(s, "after compaction")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check(s, "after reopen")
}
