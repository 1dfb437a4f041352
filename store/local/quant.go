package local

import (
	"context"
	"math"
)

// quantMin is the number of a user's dense points from which SearchDense
// ranks through the int8 copy: below it the float32 slab is small enough to
// scan (and to stay in cache), above it the scan is bound by memory and
// reading a quarter of the bytes pays for the bookkeeping.
const quantMin = 20_000

// scanQuant pushes into t what scanDense would push that can still reach
// the final top k, so t ends with the same k best candidates and scores.
//
// For each block it scores the matching rows from their int8 copy, which
// gives an interval [lo, hi] holding each row's float32 score (see
// dot8.go), and keeps the k largest lo seen in a min-heap. A row whose hi is
// below the smallest of those, or below the k-th exact score found so far,
// is strictly worse than k others, ties included, and is dropped; the rest
// are rescored with dotRows, the float32 kernel scanDense uses, and pushed.
// It stops early when ctx is done, checking every 8 blocks.
func (x *index) scanQuant(ctx context.Context, q []float32, qq *quantQuery, slots []int32, m *matcher, t *topK) {
	var cand, keep [scanBlock]int32
	var dots [scanBlock]int32
	var los, his [scanBlock]float64
	var scores [scanBlock]float32
	lows := minHeap{k: t.k, h: make([]float64, 0, t.k)}
	for b := 0; len(slots) > 0; b++ {
		if b%8 == 7 && ctx.Err() != nil {
			return
		}
		block := slots[:min(scanBlock, len(slots))]
		slots = slots[len(block):]
		n := 0
		for _, s := range block {
			if x.dense[s] && (!m.on || m.match(&x.file[s].meta)) {
				cand[n] = s
				n++
			}
		}
		dot8Rows(qq.q16, x.q8, cand[:n], dots[:n])
		for i, s := range cand[:n] {
			los[i], his[i] = qq.interval(dots[i], &x.qrow[s])
			lows.push(los[i])
		}
		floor := lows.floor()
		if len(t.h) == t.k {
			floor = max(floor, float64(t.h[0].score))
		}
		kept := 0
		for i, s := range cand[:n] {
			if his[i] >= floor {
				keep[kept] = s
				kept++
			}
		}
		dotRows(q, x.slab, keep[:kept], scores[:kept])
		t.pushAll(keep[:kept], scores[:kept])
	}
}

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
