package local

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/coder/hnsw"

	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
)

// BenchmarkHNSWReference builds the store's graph (graph.go) and
// github.com/coder/hnsw, a maintained pure-Go HNSW, over the same chunk
// vectors of the capacity data set (capdata_test.go) with the same M, and
// prints build rate, query latency and recall@10 against brute force side
// by side: the evidence for writing our own. CAPACITY_REF_N sets the
// number of vectors (default 20,000).
func BenchmarkHNSWReference(b *testing.B) {
	n := 20_000
	if v := capSizes(os.Getenv("CAPACITY_REF_N"), nil); len(v) > 0 {
		n = v[0]
	}
	n = benchsmoke.Size(n, 2_000)
	d := newCapData("mix", n)
	var vecs [][]float32
	for _, f := range d.files {
		for _, p := range d.points(f, 0) {
			vecs = append(vecs, p.Dense)
		}
	}
	n = len(vecs)
	queries := d.denseQueries(100)
	truth := make([][]int32, len(queries))
	for i, q := range queries {
		truth[i] = bruteTop(q, vecs, 10)
	}
	recall := func(got [][]int32) float64 {
		found := 0
		for i, t := range truth {
			for _, s := range got[i] {
				if slices.Contains(t, s) {
					found++
				}
			}
		}
		return float64(found) / float64(10*len(truth))
	}
	for b.Loop() {
		// Ours: int8 rows, a walk of ef candidates rescored with float32.
		x := &index{dim: capDim, q8: make([]int8, n*capDim), slab: make([]float32, n*capDim), qrow: make([]quantRow, n), file: make([]*fileRec, n)}
		fr := &fileRec{}
		for i, v := range vecs {
			copy(x.slab[i*capDim:], v)
			x.qrow[i] = quantize(v, x.q8[i*capDim:(i+1)*capDim])
			x.file[i] = fr
		}
		g := newGraph(1)
		sc := new(graphScratch)
		start := time.Now()
		for i := range n {
			if err := g.insert(x, int32(i), sc); err != nil {
				b.Fatal(err)
			}
		}
		oursBuild := time.Since(start)
		got := make([][]int32, len(queries))
		start = time.Now()
		for i, q := range queries {
			qq := newQuantQuery(q)
			gq := gquery{q16: qq.q16, scale: qq.scale}
			res := g.search(x, &gq, graphEf, uint32(n), func(int32) bool { return true }, sc)
			type sv struct {
				s int32
				v float32
			}
			var rs []sv
			for _, r := range res {
				rs = append(rs, sv{r.slot, dotGeneric(q, x.vector(r.slot))})
			}
			slices.SortFunc(rs, func(a, b sv) int { return cmp.Compare(b.v, a.v) })
			for _, r := range rs[:min(10, len(rs))] {
				got[i] = append(got[i], r.s)
			}
		}
		oursQuery := time.Since(start) / time.Duration(len(queries))
		oursRecall := recall(got)
		g.close()

		// coder/hnsw with the same M and its efSearch at our ef.
		h := hnsw.NewGraph[int32]()
		h.M, h.Ml, h.EfSearch, h.Distance = graphM, 1/math.Log(graphM), graphEf, hnsw.CosineDistance
		start = time.Now()
		for i, v := range vecs {
			h.Add(hnsw.MakeNode(int32(i), v))
		}
		refBuild := time.Since(start)
		start = time.Now()
		for i, q := range queries {
			got[i] = got[i][:0]
			for _, node := range h.Search(q, 10) {
				got[i] = append(got[i], node.Key)
			}
		}
		refQuery := time.Since(start) / time.Duration(len(queries))
		refRecall := recall(got)
		fmt.Printf("HNSW reference on %d capacity vectors (768 dims, M %d, ef %d; load %s)\n", n, graphM, graphEf, capLoad())
		fmt.Printf("%-34s %14s %14s\n", "", "store/local", "coder/hnsw")
		fmt.Printf("%-34s %14.0f %14.0f\n", "build, vectors/s", float64(n)/oursBuild.Seconds(), float64(n)/refBuild.Seconds())
		fmt.Printf("%-34s %14s %14s\n", "query (k 10), ms", ms(oursQuery), ms(refQuery))
		fmt.Printf("%-34s %14.4f %14.4f\n", "recall@10 against brute force", oursRecall, refRecall)
	}
}

// bruteTop returns the indices of the k vectors most similar to q.
func bruteTop(q []float32, vecs [][]float32, k int) []int32 {
	type sv struct {
		s int32
		v float32
	}
	all := make([]sv, len(vecs))
	for i, v := range vecs {
		all[i] = sv{int32(i), dotGeneric(q, v)}
	}
	slices.SortFunc(all, func(a, b sv) int { return cmp.Compare(b.v, a.v) })
	out := make([]int32, 0, k)
	for _, a := range all[:min(k, len(all))] {
		out = append(out, a.s)
	}
	return out
}
