package local

import (
	"slices"
	"sync/atomic"
)

// A removed point's node stays in its graph, dead: searches walk through
// it but never return it, so the graph stays connected. Once dead nodes
// (and pending points removed before they were inserted) make up
// purgeShare of a graph, the indexer purges them: every live node that
// links to a dead one loses the link, and a node left with fewer than half
// its links gets new ones, chosen by the heuristic among its live
// neighbours and the live neighbours of the dead ones it linked to (as
// hnswlib and Lucene repair deletions); the dead nodes are dropped and
// their slots freed. Purging walks the graph once and repairs only what
// it must, so rewrites of a tenth of a graph keep recall and latency
// where they were (the capacity benchmark measures it).
const (
	purgeShare = 0.05
	purgeMin   = 256
)

// needsPurge reports whether gr has enough dead nodes to purge.
func (gr *graph) needsPurge() bool {
	nodes, _ := gr.counts()
	dead := len(gr.dead) + len(gr.skip)
	return dead >= purgeMin && float64(dead) >= purgeShare*float64(nodes) || dead > 0 && nodes < purgeMin
}

// purgeGraph purges g's graph of the dead nodes it has now. The caller
// holds imu (it is the indexer, or a checkpoint); it takes l.mu's read
// lock for the walk and its write lock to free the slots.
func (l *Store) purgeGraph(g *group, sc *graphScratch) {
	l.mu.RLock()
	gr := g.graph
	if l.shut || gr == nil || gr.closed {
		l.mu.RUnlock()
		return
	}
	x := l.idx
	nodes, _ := gr.counts()
	dead := make([]bool, nodes)
	nDead := len(gr.dead)
	for _, s := range gr.dead {
		dead[x.gnode[s]] = true
	}
	isDead := func(n uint32) bool { return int(n) < len(dead) && dead[n] }
	var cands []gcand
	var slots []int32
	for n := range uint32(nodes) {
		s := gr.slotOf(n)
		if s < 0 || dead[n] {
			continue
		}
		for lv := range gr.levelOf(n) + 1 {
			list := gr.list(n, lv)
			cnt := atomic.LoadUint32(&list[0])
			hit := false
			for j := uint32(1); j <= cnt; j++ {
				if isDead(atomic.LoadUint32(&list[j])) {
					hit = true
					break
				}
			}
			if !hit {
				continue
			}
			// The live links, and the live links of the dead ones.
			cands, slots = cands[:0], slots[:0]
			add := func(m uint32) {
				if m == n || isDead(m) || slices.ContainsFunc(cands, func(c gcand) bool { return c.node == m }) {
					return
				}
				if ms := gr.slotOf(m); ms >= 0 {
					cands = append(cands, gcand{node: m, slot: ms})
					slots = append(slots, ms)
				}
			}
			live := 0
			for j := uint32(1); j <= cnt; j++ {
				if m := atomic.LoadUint32(&list[j]); !isDead(m) {
					add(m)
					live++
				}
			}
			if live < maxLinks(lv)/2 {
				for j := uint32(1); j <= cnt; j++ {
					m := atomic.LoadUint32(&list[j])
					if !isDead(m) || gr.levelOf(m) < lv {
						continue
					}
					ml := gr.list(m, lv)
					mc := atomic.LoadUint32(&ml[0])
					for k := uint32(1); k <= mc; k++ {
						add(atomic.LoadUint32(&ml[k]))
					}
				}
			}
			kept := cands
			if len(cands) > live {
				q := rowQuery(x, s)
				dots := make([]int32, len(slots))
				q.dots(x, slots, dots)
				for i := range cands {
					cands[i].sim = q.sim(x, dots[i], cands[i].slot)
				}
				slices.SortFunc(cands, func(a, b gcand) int { return cmpSim(b, a) })
				kept = gr.selectNeighbours(x, cands, maxLinks(lv), sc)
			}
			for j, c := range kept {
				atomic.StoreUint32(&list[1+j], c.node)
			}
			atomic.StoreUint32(&list[0], uint32(len(kept)))
		}
	}
	l.mu.RUnlock()

	l.mu.Lock()
	defer l.mu.Unlock()
	if gr.closed {
		return
	}
	for _, s := range gr.dead[:nDead] {
		gr.drop(uint32(x.gnode[s]))
		x.release(s)
	}
	for _, s := range gr.skip {
		x.release(s)
	}
	gr.dead = slices.Clone(gr.dead[nDead:])
	gr.skip = gr.skip[:0]
	gr.purged = true
	gr.calDropped += nDead
	if e := gr.entry.Load(); e != entryNone && gr.slotOf(uint32(e)) < 0 {
		gr.newEntry()
	}
}

// newEntry makes a live node of the highest level the entry point, or
// empties the graph's entry when it has none.
func (gr *graph) newEntry() {
	nodes, _ := gr.counts()
	best, level := int64(-1), -1
	for n := range uint32(nodes) {
		if gr.slotOf(n) >= 0 && gr.levelOf(n) > level {
			best, level = int64(n), gr.levelOf(n)
		}
	}
	if best < 0 {
		gr.entry.Store(entryNone)
		return
	}
	gr.entry.Store(uint64(level)<<32 | uint64(best))
}
