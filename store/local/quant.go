package local

import (
	"cmp"
	"context"
	"math"
	"runtime"
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

// The int8 scan: quantDots scores the matching rows from their int8 copy,
// which gives an interval [lo, hi] holding each row's float32 score (see
// dot8.go), and keeps the k largest lo in a min-heap. Once every row of
// every part is scored, quantFloor takes the k-th largest lo over all of
// them: a row whose hi is below it is strictly worse than k others, ties
// included. rescore takes the other rows by decreasing hi, rescores them
// with dotRows, the float32 kernel scanDense uses, and pushes them, until
// the next hi is below the k-th exact score found: every row left is
// strictly worse too. So t ends with the same k best candidates and
// scores scanDense finds. Taking the floor over all rows rather than the
// rows scanned so far, or one part's, and the rows by decreasing hi, keeps
// far fewer rows for the float32 pass.

// quantDots scores the matching rows of the lists from their int8 copy,
// into a scratch the caller puts back in quantScratches after rescore. It
// stops early when ctx is done, checking every 8 blocks.
func (x *index) quantDots(ctx context.Context, qq *quantQuery, lists [][]int32, m *matcher, k int) *quantScratch {
	sc := quantScratches.Get().(*quantScratch)
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	cand := slices.Grow(sc.cand[:0], n)
	dots := slices.Grow(sc.dots[:0], n)[:n]
	lows := minHeap{k: k, h: slices.Grow(sc.lows[:0], k)}
	defer func() { sc.cand, sc.dots, sc.lows = cand, dots[:len(cand)], lows.h }()
	b := 0
	for _, slots := range lists {
		for ; len(slots) > 0; b++ {
			if b%8 == 7 {
				if ctx.Err() != nil {
					return sc
				}
				runtime.Gosched() // see yield
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
	}
	return sc
}

// quantFloor returns the k-th largest lower bound of all the parts' rows:
// the k-th largest of their k largest.
func quantFloor(scs []*quantScratch, k int) float64 {
	if len(scs) == 1 {
		return (&minHeap{k: k, h: scs[0].lows}).floor()
	}
	all := minHeap{k: k, h: make([]float64, 0, k)}
	for _, sc := range scs {
		for _, lo := range sc.lows {
			all.push(lo)
		}
	}
	return all.floor()
}

// rescoreBlock is how many rows rescore scores per kernel call: the
// k-th exact score rises as rows are pushed, so small blocks stop sooner.
const rescoreBlock = 32

// rescore pushes into t the rows of scs that can still reach the top k
// above floor, with their float32 scores, by decreasing upper bound.
func (x *index) rescore(q []float32, qq *quantQuery, scs []*quantScratch, floor float64, t *topK) {
	rows := scs[0].rows[:0]
	for _, sc := range scs {
		for i, s := range sc.cand {
			if _, hi := qq.interval(sc.dots[i], &x.qrow[s]); hi >= floor {
				rows = append(rows, bounded{hi, s})
			}
		}
	}
	slices.SortFunc(rows, func(a, b bounded) int { return cmp.Compare(b.hi, a.hi) })
	scs[0].rows = rows[:0] // rows is sliced forward below
	var keep [rescoreBlock]int32
	var scores [rescoreBlock]float32
	for done := false; !done && len(rows) > 0; {
		n := 0
		for ; n < len(keep) && n < len(rows); n++ {
			if len(t.h) == t.k && rows[n].hi < float64(t.h[0].score) {
				done = true // this row and every row after it are below the k-th score
				break
			}
			keep[n] = rows[n].slot
		}
		rows = rows[n:]
		dotRows(q, x.slab, keep[:n], scores[:n])
		t.pushAll(keep[:n], scores[:n])
	}
}

// quantScratch is the int8 scan's reusable state: the matching slots,
// their int8 dot products, the heap of their k largest lower bounds and
// the rows left to rescore.
type quantScratch struct {
	cand, dots []int32
	lows       []float64
	rows       []bounded // rescore's, in the first part's scratch
}

// bounded is a row with the upper bound of its score.
type bounded struct {
	hi   float64
	slot int32
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
