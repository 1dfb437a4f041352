package local

import (
	"context"
	"math"
	"slices"
	"sync"
)

// quantMin is the number of a user's dense points from which SearchDense
// ranks through the int8 copy: below it the float32 slab (6 MB at 768
// dimensions) is small enough to scan and to stay in cache; above it the
// scan is bound by memory and reading a quarter of the bytes pays for the
// bookkeeping (at 10,000 768-dimensional points the float32 scan took twice
// the CPU time of the int8 one in BenchmarkHybridSearch).
const quantMin = 2_000

// scanQuant pushes into t what scanDense would push that can still reach
// the final top k, so t ends with the same k best candidates and scores.
//
// It scores the matching rows from their int8 copy first, which gives an
// interval [lo, hi] holding each row's float32 score (see dot8.go), and
// keeps the k largest lo in a min-heap. Once every row is scored, a row
// whose hi is below the smallest of those, or below the k-th exact score
// found so far, is strictly worse than k others, ties included, and is
// dropped; the rest are rescored with dotRows, the float32 kernel
// scanDense uses, and pushed. Taking the floor over all rows rather than
// the rows scanned so far keeps far fewer rows for the float32 pass. It
// stops early when ctx is done, checking every 8 blocks.
func (x *index) scanQuant(ctx context.Context, q []float32, qq *quantQuery, slots []int32, m *matcher, t *topK) {
	sc := quantScratches.Get().(*quantScratch)
	defer quantScratches.Put(sc)
	cand := slices.Grow(sc.cand[:0], len(slots))
	dots := slices.Grow(sc.dots[:0], len(slots))[:len(slots)]
	lows := minHeap{k: t.k, h: slices.Grow(sc.lows[:0], t.k)}
	defer func() { sc.cand, sc.dots, sc.lows = cand, dots, lows.h }()
	for b := 0; len(slots) > 0; b++ {
		if b%8 == 7 && ctx.Err() != nil {
			return
		}
		block := slots[:min(scanBlock, len(slots))]
		slots = slots[len(block):]
		from := len(cand)
		for _, s := range block {
			if x.dense[s] && (!m.on || m.match(&x.file[s].meta)) {
				cand = append(cand, s)
			}
		}
		dot8Rows(qq.q16, x.q8, cand[from:], dots[from:len(cand)])
		for i, s := range cand[from:] {
			lo, _ := qq.interval(dots[from+i], &x.qrow[s])
			lows.push(lo)
		}
	}
	floor := lows.floor()
	var keep [scanBlock]int32
	var scores [scanBlock]float32
	kept := 0
	flush := func() {
		dotRows(q, x.slab, keep[:kept], scores[:kept])
		t.pushAll(keep[:kept], scores[:kept])
		kept = 0
	}
	for i, s := range cand {
		if _, hi := qq.interval(dots[i], &x.qrow[s]); hi < floor || (len(t.h) == t.k && hi < float64(t.h[0].score)) {
			continue
		}
		keep[kept] = s
		if kept++; kept == scanBlock {
			flush()
		}
	}
	flush()
}

// quantScratch is scanQuant's reusable state: the matching slots, their
// int8 dot products and the heap of lower bounds.
type quantScratch struct {
	cand, dots []int32
	lows       []float64
}

var quantScratches = sync.Pool{New: func() any { return new(quantScratch) }}

// minHeap keeps the k largest values pushed; its root is the smallest.
type minHeap struct {
	k int
	h []float64
}

// floor returns the k-th largest value pushed, or -Inf before k pushes.
func (m *minHeap) floor() float64 {
	if len(m.h) < m.k {
		return math.Inf(-1)
	}
	return m.h[0]
}

func (m *minHeap) push(v float64) {
	h := m.h
	if len(h) < m.k {
		h = append(h, v)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if h[p] <= h[i] {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		m.h = h
		return
	}
	if v <= h[0] {
		return
	}
	h[0] = v
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1] < h[c] {
			c++
		}
		if h[i] <= h[c] {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
