package local

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

// TestCompactRecord checks that compactRecord's bytes decode, in compact
// form, to the record without its dense vector, from either form, and
// that its head is the record's.
func TestCompactRecord(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		c := hs.Chunk{FileID: 9, No: i, Text: "some text", Start: i, End: 2 * i, Headings: []string{"A", "B"}, Page: 1 + i%3, OCR: i%5 == 0, Hash: "h"}
		var dense []float32
		if i%2 == 0 {
			dense = []float32{1, 2, 3}
		}
		var bm, tri hs.SparseVector
		for j := range rng.IntN(6) {
			bm.Indices = append(bm.Indices, uint32(10*j+rng.IntN(10)))
			bm.Values = append(bm.Values, rng.Float32())
		}
		for j := range rng.IntN(6) {
			tri.Indices = append(tri.Indices, uint32(10*j+rng.IntN(10)))
			tri.Values = append(tri.Values, 1)
		}
		if i%7 == 0 && len(tri.Values) > 0 {
			tri.Values[0] = 2 // not all ones
		}
		for _, compact := range []bool{false, true} {
			e := encoder{compact: compact}
			e.point("id", c, dense, bm, tri)
			out, head, err := compactRecord(nil, e.b, compact)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeRecord(out, 9, true)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			want, _ := decodeRecord(e.b, 9, compact)
			want.dense = nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d (compact %v): got %+v, want %+v", i, compact, got, want)
			}
			if id, hc, err := decodeHead(out[:head], 9); err != nil || id != "id" || !reflect.DeepEqual(hc, c) {
				t.Fatalf("case %d: head %q %+v %v", i, id, hc, err)
			}
		}
	}
}

// TestRadixSortTerms checks radixSortTerms against a stable comparison
// sort.
func TestRadixSortTerms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 255, 256, 5000} {
		ps := make([]termPosting, n)
		for i := range ps {
			ps[i] = termPosting{rng.Uint32N(50) << uint(rng.IntN(25)), int32(i), float32(i)}
		}
		want := slices.Clone(ps)
		slices.SortStableFunc(want, func(a, b termPosting) int { return cmp.Compare(a.term, b.term) })
		got, _ := radixSortTerms(ps, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("n %d: radixSortTerms differs from a stable sort", n)
		}
	}
}
