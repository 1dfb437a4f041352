package local

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hybrid-search/hybridsearch/store"
)

func randCodes(rng *rand.Rand, n int) []int8 {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(rng.IntN(255) - 127)
	}
	return v
}

func widen(v []int8) []int16 {
	w := make([]int16, len(v))
	for i, c := range v {
		w[i] = int16(c)
	}
	return w
}

// dot8Ref is the reference: an int64 sum.
func dot8Ref(a []int16, b []int8) int64 {
	var s int64
	for i := range a {
		s += int64(a[i]) * int64(b[i])
	}
	return s
}

// TestDot8Rows checks the int8 kernel, and its pure-Go fallback, against
// int64 arithmetic for every length that crosses a loop tail, rows in
// random order at misaligned offsets, and the extreme codes ±127.
func TestDot8Rows(t *testing.T) {
	t.Run("default", testDot8Rows)
	t.Run("fallback", func(t *testing.T) {
		was := hasAVX2FMA
		hasAVX2FMA = false
		defer func() { hasAVX2FMA = was }()
		testDot8Rows(t)
	})
}

func testDot8Rows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, dim := range append(dotLengths(), 8191) {
		for _, off := range []int{0, 1, 7} {
			const rows = 9
			slab := randCodes(rng, rows*dim+off)[off:]
			q := widen(randCodes(rng, dim))
			if dim%3 == 0 { // the largest products, all of one sign
				for i := range q {
					q[i] = -127
				}
				for i := range slab[:dim] {
					slab[i] = -127
				}
			}
			slots := make([]int32, 20)
			for i := range slots {
				slots[i] = rng.Int32N(rows)
			}
			slots[0] = 0
			out := make([]int32, len(slots)+1)
			out[len(slots)] = 42
			dot8Rows(q, slab, slots, out)
			for i, s := range slots {
				row := slab[int(s)*dim : (int(s)+1)*dim]
				if want := dot8Ref(q, row); int64(out[i]) != want {
					t.Errorf("dot8Rows(dim %d, off %d)[%d] = %d, want %d", dim, off, i, out[i], want)
				}
			}
			if out[len(slots)] != 42 {
				t.Errorf("dot8Rows(dim %d) wrote past len(slots)", dim)
			}
			// The same with the query's int8 codes (dot8x8Rows): q is
			// within ±127 unless it was set to -127 above.
			q8 := make([]int8, dim)
			for i, c := range q {
				q8[i] = int8(c)
			}
			dot8x8Rows(q8, slab, slots, out)
			for i, s := range slots {
				row := slab[int(s)*dim : (int(s)+1)*dim]
				if want := dot8Ref(q, row); int64(out[i]) != want {
					t.Errorf("dot8x8Rows(dim %d, off %d)[%d] = %d, want %d", dim, off, i, out[i], want)
				}
			}
			if out[len(slots)] != 42 {
				t.Errorf("dot8x8Rows(dim %d) wrote past len(slots)", dim)
			}
		}
	}
	dot8Rows(nil, nil, nil, nil)
	dot8x8Rows(nil, nil, nil, nil)
}

// TestDot8RowsOutOfRange checks that a row past the int8 slab panics.
func TestDot8RowsOutOfRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("dot8Rows with a slot past the slab did not panic")
		}
	}()
	dot8Rows(make([]int16, 4), make([]int8, 8), []int32{2}, make([]int32, 1))
}

// TestDot8x8RowsOutOfRange checks that a row past the int8 slab panics.
func TestDot8x8RowsOutOfRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("dot8x8Rows with a slot past the slab did not panic")
		}
	}()
	dot8x8Rows(make([]int8, 4), make([]int8, 8), []int32{2}, make([]int32, 1))
}

// quantVectors returns unit vectors of shapes that stress the bound: dense
// random, sparse, one-hot, constant, one large value among small ones, a
// few levels (many equal codes), tiny and zero.
func quantVectors(rng *rand.Rand, dim int) [][]float32 {
	var vs [][]float32
	for shape := range 9 {
		v := make([]float32, dim)
		for j := range v {
			switch shape {
			case 0, 1:
				v[j] = float32(rng.NormFloat64())
			case 2:
				if rng.IntN(10) == 0 {
					v[j] = rng.Float32()*2 - 1
				}
			case 3:
				if j == dim/2 {
					v[j] = 1
				}
			case 4:
				v[j] = 0.5
			case 5:
				v[j] = float32(rng.NormFloat64()) * 1e-3
				if j == 0 {
					v[j] = 1
				}
			case 6:
				v[j] = float32(rng.IntN(3) - 1)
			case 7:
				v[j] = float32(rng.NormFloat64()) * 1e-30
			}
		}
		vs = append(vs, store.Normalized(v))
	}
	return vs
}

// TestQuantInterval checks the heart of the int8 scan: the float32 score of
// every pair, from both kernels, lies inside the interval computed from
// the int8 copies, and the codes reconstruct the vector.
func TestQuantInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	was := hasAVX2FMA
	defer func() { hasAVX2FMA = was }()
	worst := 0.0
	for _, dim := range []int{1, 2, 3, 15, 16, 17, 64, 100, 384, 768, 1024, 4096, quantMaxDim} {
		for range 6 {
			vs := quantVectors(rng, dim)
			for _, q := range vs {
				qq := newQuantQuery(q)
				for _, v := range vs {
					v8 := make([]int8, dim)
					row := quantize(v, v8)
					if got := row.scale * 127; got > 0 {
						for j, c := range v8 {
							if d := math.Abs(float64(v[j]) - row.scale*float64(c)); d > row.scale/2*(1+1e-9) {
								t.Fatalf("quantize(dim %d)[%d]: code %d is %g from %g, scale %g", dim, j, c, d, v[j], row.scale)
							}
						}
					}
					var dot [1]int32
					dot8Rows(qq.q16, v8, []int32{0}, dot[:])
					lo, hi := qq.interval(dot[0], &row)
					for _, asm := range []bool{false, was} {
						hasAVX2FMA = asm
						var out [1]float32
						dotRows(q, v, []int32{0}, out[:])
						if s := float64(out[0]); s < lo || s > hi {
							t.Errorf("dim %d: score %v outside [%v, %v] (asm %v)", dim, s, lo, hi, asm)
						}
					}
					hasAVX2FMA = was
					worst = max(worst, (hi-lo)/2)
				}
			}
		}
	}
	t.Logf("widest half-interval: %g", worst)
}
