package local

import (
	"math"
	"runtime"
)

// The keyword and fuzzy legs over segments use block-max WAND (Ding and
// Suel, "Faster top-k document retrieval using block-max indexes", SIGIR
// 2011), as Lucene and Tantivy do: a document's score Σ_j w_j·d_j is
// bounded by the sum of its lists' largest weights (times w_j), and more
// tightly by the largest weights of the blocks it would be in; documents
// whose bound is below the k-th best score found so far are skipped
// without being decoded, whole blocks at a time. The bound is only used
// to skip; every document that may enter the top k is scored exactly as
// the exhaustive scorer scores it (the same float32 products, added in
// query order), so both give the same top k and the same scores.
// TestWANDExhaustive checks it.

// wandSlack returns u nudged up by far more than the rounding of a sum of
// a few float32 bounds in another order, so that a document is skipped
// only when its bound is surely below the threshold.
func wandSlack(u float64) float64 { return u + math.Abs(u)*1e-5 + 1e-30 }

// threshold returns the score a candidate must reach to enter t: the k-th
// best so far, or -Inf while t has fewer than k.
func (t *topK) threshold() float64 {
	if len(t.h) < t.k {
		return math.Inf(-1)
	}
	return float64(t.h[0].score)
}

// qterm is a query index with its weight times IDF.
type qterm struct {
	j int // place in the query
	i uint32
	w float32
}

// searchSegment adds to t the top scores of group g's lists of the query
// terms qs in segment sg's vector v: block-max WAND, or every posting when
// exhaustive is set (a negative weight voids the bounds). Only current
// postings (owner[s] == sg.id) of points that pass m are pushed.
func (x *index) searchSegment(sg *segment, v int, g *group, qs []qterm, t *topK, m *matcher, exhaustive bool, buf *[]cursor) {
	terms, base := sg.terms(v, g.id)
	if len(terms) == 0 {
		return
	}
	if cap(*buf) < len(qs) {
		*buf = make([]cursor, len(qs))
	}
	curs := (*buf)[:len(qs)]
	n := 0
	for _, q := range qs {
		st, ok := sg.term(terms, base, q.i)
		if !ok {
			continue
		}
		c := &curs[n]
		n++
		c.j, c.w = q.j, q.w
		c.ub = q.w * st.maxW
		c.reset(st, sg.vecs[v].weights)
	}
	curs = curs[:n]
	if n == 0 {
		return
	}
	var ord [64]*cursor
	order := ord[:0]
	for i := range curs {
		order = append(order, &curs[i])
	}
	x.wand(sg.id, curs, order, t, m, exhaustive)
}

// wand runs block-max WAND over the cursors (in query order); order is
// the same cursors, to be kept sorted by doc.
func (x *index) wand(id int32, curs []cursor, order []*cursor, t *topK, m *matcher, exhaustive bool) {
	for steps := 1; ; steps++ {
		if steps%4096 == 0 {
			runtime.Gosched() // see search.go
		}
		// Insertion sort: few cursors, mostly in order already.
		for i := 1; i < len(order); i++ {
			for k := i; k > 0 && order[k].doc < order[k-1].doc; k-- {
				order[k], order[k-1] = order[k-1], order[k]
			}
		}
		theta := t.threshold()
		// The pivot: the first cursor at which the lists' bounds so far
		// could reach the threshold; every document before its doc is
		// short of it.
		p := -1
		var acc float64
		for i, c := range order {
			if c.doc == endDoc {
				break
			}
			acc += float64(c.ub)
			if exhaustive || wandSlack(acc) >= theta {
				p = i
				break
			}
		}
		if p < 0 {
			return
		}
		d := order[p].doc
		for p+1 < len(order) && order[p+1].doc == d {
			p++
		}
		if !exhaustive {
			// The blocks that hold d: their maxima bound every document
			// up to the first block end, and the next list's doc.
			var bsum float64
			next := int32(endDoc)
			for _, c := range order[:p+1] {
				last, ub := c.shallow(d)
				bsum += float64(ub)
				if last < endDoc {
					next = min(next, last+1)
				}
			}
			if wandSlack(bsum) < theta {
				if p+1 < len(order) {
					next = min(next, order[p+1].doc)
				}
				best := order[0]
				for _, c := range order[1 : p+1] {
					if c.ub > best.ub {
						best = c
					}
				}
				best.advance(next)
				continue
			}
		}
		if order[0].doc != d {
			// Bring a list short of d to it: the one with the largest
			// bound, which skips the most.
			var best *cursor
			for _, c := range order[:p] {
				if c.doc < d && (best == nil || c.ub > best.ub) {
					best = c
				}
			}
			best.advance(d)
			continue
		}
		var score float32
		for i := range curs {
			if c := &curs[i]; c.doc == d {
				score += float32(c.w * c.weight())
			}
		}
		if x.owner[d] == id {
			if f := x.file[d]; f != nil && (!m.on || m.match(&f.meta)) {
				t.push(scored{score: score, slot: d})
			}
		}
		for _, c := range order[:p+1] {
			c.next()
		}
	}
}
