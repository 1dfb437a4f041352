package local

import (
	"math"
	"math/rand/v2"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// dotLengths are the vector lengths the kernels are checked on: every
// length up to 100 crosses each loop tail, the rest are real dimensions.
func dotLengths() []int {
	var ns []int
	for n := range 101 {
		ns = append(ns, n)
	}
	return append(ns, 767, 768, 769, 1024, 4096)
}

func randFloats(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = rng.Float32()*2 - 1
	}
	return v
}

// dot64 is the exact reference: a float64 sum of float64 products.
func dot64(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// checkDot fails unless got is within rounding of the float64 dot product
// of a and b. The bound scales with Σ|a_i·b_i|, the size of the terms that
// any float32 summation order rounds.
func checkDot(t *testing.T, name string, got float32, a, b []float32) {
	t.Helper()
	var mag float64
	for i := range a {
		mag += math.Abs(float64(a[i]) * float64(b[i]))
	}
	want := dot64(a, b)
	if d := math.Abs(float64(got) - want); d > 1e-5*max(mag, 1) {
		t.Errorf("%s(len %d) = %v, want %v (diff %g, Σ|ab| %g)", name, len(a), got, want, d, mag)
	}
}

// dot1 returns the dot product of a and b[:len(a)] through dotRows, as a
// slab of one row.
func dot1(a, b []float32) float32 {
	var out [1]float32
	dotRows(a, b, []int32{0}, out[:])
	return out[0]
}

// TestDotKernels checks dotRows (the assembly where the CPU allows it) and
// dotGeneric against float64 arithmetic for many lengths and for slices
// starting at every offset within a 32-byte line.
func TestDotKernels(t *testing.T) {
	t.Logf("AVX2+FMA kernel in use: %v", hasAVX2FMA)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range dotLengths() {
		for off := range 8 {
			a := randFloats(rng, n+off)[off:]
			b := randFloats(rng, n+off+3)[off:]
			checkDot(t, "dotRows", dot1(a, b), a, b)
			checkDot(t, "dotGeneric", dotGeneric(a, b), a, b)
		}
	}
}

// TestDotRows checks the batched kernel, and its pure-Go fallback, against
// dotGeneric on rows in random order, with repeats, at offsets that
// misalign the slab.
func TestDotRows(t *testing.T) {
	t.Run("default", testDotRows)
	t.Run("fallback", func(t *testing.T) {
		was := hasAVX2FMA
		hasAVX2FMA = false
		defer func() { hasAVX2FMA = was }()
		testDotRows(t)
	})
}

func testDotRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dim := range []int{1, 7, 8, 31, 32, 33, 100, 767, 768, 769} {
		for _, off := range []int{0, 1, 5} {
			const rows = 40
			slab := randFloats(rng, rows*dim+off)[off:]
			q := randFloats(rng, dim)
			slots := make([]int32, 70)
			for i := range slots {
				slots[i] = rng.Int32N(rows)
			}
			out := make([]float32, len(slots)+1)
			out[len(slots)] = 42
			dotRows(q, slab, slots, out)
			for i, s := range slots {
				row := slab[int(s)*dim : (int(s)+1)*dim]
				checkDot(t, "dotRows", out[i], q, row)
				if g := dotGeneric(q, row); math.Abs(float64(out[i]-g)) > 1e-5 {
					t.Errorf("dotRows(dim %d)[%d] = %v, dotGeneric = %v", dim, i, out[i], g)
				}
			}
			if out[len(slots)] != 42 {
				t.Errorf("dotRows(dim %d) wrote past len(slots)", dim)
			}
		}
	}
	dotRows(nil, nil, nil, nil) // no rows: no work, no panic
}

// TestDotRowsOutOfRange checks that a row past the slab panics instead of
// reading outside it.
func TestDotRowsOutOfRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("dotRows with a slot past the slab did not panic")
		}
	}()
	dotRows(make([]float32, 4), make([]float32, 8), []int32{2}, make([]float32, 1))
}

// TestDotUnitVectors checks the kernels on normalised vectors, the store's
// case: every score agrees with float64 within 1e-5.
func TestDotUnitVectors(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		a, b := store.Normalized(randFloats(rng, 768)), store.Normalized(randFloats(rng, 768))
		got, want := dot1(a, b), dot64(a, b)
		if math.Abs(float64(got)-want) > 1e-5 {
			t.Errorf("dotRows(unit 768) = %v, want %v", got, want)
		}
	}
}

// TestSearchDenseFallback checks that the assembly and the pure-Go path
// rank the same points with the same scores, filtered and not, across the
// split into parallel parts.
func TestSearchDenseFallback(t *testing.T) {
	if !hasAVX2FMA {
		t.Skip("no assembly kernel on this CPU: the pure-Go path is the only path")
	}
	const dim, n = 96, 3 * parallelMin
	rng := rand.New(rand.NewPCG(7, 8))
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for f := range n / 40 {
		id := hs.FileID(f + 1)
		meta := hs.FileMeta{ID: id, Path: "/d" + string(rune('0'+f%3)) + "/x.md", Readers: []hs.UserID{"alice"}}
		points := make([]hs.Point, 40)
		for no := range points {
			points[no] = hs.Point{ID: hs.PointID(id, no), Chunk: hs.Chunk{FileID: id, No: no}, Dense: randFloats(rng, dim)}
			if no%7 == 3 {
				points[no].Dense = nil
			}
		}
		if err := s.WriteFile(t.Context(), meta, points); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []hs.Filter{{}, {PathPrefix: "/d1"}} {
		for range 5 {
			q := randFloats(rng, dim)
			asm, err := s.SearchDense(t.Context(), "alice", q, 50, f)
			if err != nil {
				t.Fatal(err)
			}
			hasAVX2FMA = false
			pure, err := s.SearchDense(t.Context(), "alice", q, 50, f)
			hasAVX2FMA = true
			if err != nil {
				t.Fatal(err)
			}
			if len(asm) != 50 || len(pure) != len(asm) {
				t.Fatalf("SearchDense found %d hits with assembly, %d without, want 50", len(asm), len(pure))
			}
			for i := range asm {
				if asm[i].Point.ID != pure[i].Point.ID || math.Abs(float64(asm[i].Score-pure[i].Score)) > 1e-5 {
					t.Errorf("filter %+v hit %d = %s %v with assembly, %s %v without", f, i, asm[i].Point.ID, asm[i].Score, pure[i].Point.ID, pure[i].Score)
				}
			}
		}
	}
}

// BenchmarkDot compares the kernels on one 768-dim row and on a block of
// scanBlock rows of a 10k-row slab (30 MB, past the L2 cache).
func BenchmarkDot(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	const dim, rows = 768, 10_000
	slab := randFloats(rng, rows*dim)
	q := randFloats(rng, dim)
	slots := make([]int32, scanBlock)
	out := make([]float32, scanBlock)
	for _, k := range []struct {
		name string
		asm  bool
	}{{"generic", false}, {"avx2", true}} {
		if k.asm && !hasAVX2FMA {
			continue
		}
		b.Run(k.name+"/row", func(b *testing.B) {
			defer func(was bool) { hasAVX2FMA = was }(hasAVX2FMA)
			hasAVX2FMA = k.asm
			var sink float32
			for b.Loop() {
				sink += dot1(q, slab[:dim])
			}
		})
		b.Run(k.name+"/block", func(b *testing.B) {
			defer func(was bool) { hasAVX2FMA = was }(hasAVX2FMA)
			hasAVX2FMA = k.asm
			next := int32(0)
			b.SetBytes(scanBlock * dim * 4)
			for b.Loop() {
				for i := range slots {
					slots[i] = next
					next = (next + 1) % rows
				}
				dotRows(q, slab, slots, out)
			}
		})
	}
}
