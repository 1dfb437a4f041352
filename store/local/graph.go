package local

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// A graph is a group's HNSW index (Malkov and Yashunin, "Efficient and
// robust approximate nearest neighbor search using Hierarchical Navigable
// Small World graphs", 2018) over the int8 copies of its dense rows: each
// node is a slot of the group, linked to graphM0 neighbours on level 0 and
// graphM on each of its upper levels, chosen by the paper's heuristic
// (Algorithm 4) so that links spread in every direction. A search walks
// down from the entry point greedily, then keeps the ef best nodes found on
// level 0 (Algorithm 2); SearchDense rescores them with the float32 rows,
// so every score it returns is exact and only which rows are candidates is
// approximate.
//
// Nodes are added by one goroutine, the indexer (indexer.go), while
// searches run: a node's data is written before it is published (the node
// count in state), links to it are added after, and every link and count
// is read and written atomically, so a search sees each list whole or in
// the middle of a change, which only changes where it walks. Searches
// ignore nodes at or past the count they loaded. The pages of nodes live
// outside the Go heap (offheap_unix.go) and are never moved: growing a
// graph publishes a longer table of pages.
//
// A node whose point is removed stays in the graph, a dead node that
// searches walk through but never return, until a purge (graph_purge.go)
// unlinks it; its slot is not reused before then, so a live slot with a
// node always holds that node's point.

const (
	graphM        = 16         // links per node on upper levels
	graphM0       = 2 * graphM // links per node on level 0
	graphEfBuild  = 100        // candidates a node is linked from
	graphMaxLevel = 16
	graphPageBits = 13
	graphPage     = 1 << graphPageBits // nodes per page
	graphUpPage   = 1 << 12            // upper-level lists per page
)

// graphNodes is a page of nodes. Links are node numbers.
type graphNodes struct {
	slot  [graphPage]int32  // atomic; -1 once purged
	level [graphPage]uint8  // written before the node is published
	up    [graphPage]uint32 // first of the node's upper lists (levels 1..level)
	links [graphPage * (graphM0 + 1)]uint32
}

// graphUps is a page of upper-level lists: a count, then graphM links.
type graphUps struct {
	links [graphUpPage * (graphM + 1)]uint32
}

// entryNone is graph.entry while the graph has no node.
const entryNone = math.MaxUint64

// graph is one group's graph.
type graph struct {
	nodes atomic.Pointer[[]*graphNodes]
	ups   atomic.Pointer[[]*graphUps]
	// state is the published node count (high half) and how many pending
	// slots the indexer has consumed (low half), stored together so that
	// a search sees every slot in exactly one of the two.
	state atomic.Uint64
	entry atomic.Uint64 // level<<32 | node, or entryNone
	ef    atomic.Int32  // the candidates walks keep, as measured (calibrate.go); 0 before, efScan

	// The indexer's (it holds Store.imu):
	nextUp uint32 // upper lists handed out
	rng    *rand.Rand
	mem    [][]byte // off-heap pages, freed by close
	skip   []int32  // pending slots found dead, freed by the next purge
	// calNodes is the node count when it was last measured, 0 if never;
	// calDropped the dead nodes purges dropped since.
	calNodes, calDropped int

	// Guarded by Store.mu: writers append under its write lock, the
	// indexer reads under its read lock.
	pending []int32 // slots to insert, in order; consumed from the front
	dead    []int32 // slots of nodes whose point was removed, unpurged
	closed  bool    // the group is gone; the indexer leaves the graph alone

	// Checkpoints' (they hold Store.imu and wmu):
	file       int  // the number of its last saved file, 0 if none
	savedNodes int  // nodes in that file
	purged     bool // nodes were dropped since: the next checkpoint must save it
}

func newGraph(seed uint64) *graph {
	g := &graph{rng: rand.New(rand.NewPCG(seed, 0x6a09e667))}
	g.entry.Store(entryNone)
	empty := []*graphNodes{}
	g.nodes.Store(&empty)
	emptyUps := []*graphUps{}
	g.ups.Store(&emptyUps)
	return g
}

// counts returns the published node count and the consumed pending count.
func (g *graph) counts() (nodes, done int) {
	st := g.state.Load()
	return int(st >> 32), int(uint32(st))
}

// node returns the page and index of node n.
func (g *graph) node(n uint32) (*graphNodes, uint32) {
	return (*g.nodes.Load())[n>>graphPageBits], n & (graphPage - 1)
}

// slotOf returns node n's slot, -1 once purged.
func (g *graph) slotOf(n uint32) int32 {
	p, i := g.node(n)
	return atomic.LoadInt32(&p.slot[i])
}

// list returns node n's links on level l: the count first, then the
// links, to be read atomically.
func (g *graph) list(n uint32, l int) []uint32 {
	p, i := g.node(n)
	if l == 0 {
		return p.links[i*(graphM0+1) : (i+1)*(graphM0+1)]
	}
	u := p.up[i] + uint32(l-1)
	up := (*g.ups.Load())[u/graphUpPage]
	j := u % graphUpPage
	return up.links[j*(graphM+1) : (j+1)*(graphM+1)]
}

// levelOf returns node n's level.
func (g *graph) levelOf(n uint32) int {
	p, i := g.node(n)
	return int(p.level[i])
}

// close frees the graph's pages; nothing may read it after.
func (g *graph) close() {
	empty := []*graphNodes{}
	g.nodes.Store(&empty)
	emptyUps := []*graphUps{}
	g.ups.Store(&emptyUps)
	for _, b := range g.mem {
		freeOffHeap(b)
	}
	g.mem = nil
}

// grow makes room for node n and, with level > 0, its upper lists, and
// returns the first of those lists.
func (g *graph) grow(n uint32, level int) (uint32, error) {
	pages := *g.nodes.Load()
	if int(n>>graphPageBits) >= len(pages) {
		b, err := allocOffHeap(int(unsafe.Sizeof(graphNodes{})))
		if err != nil {
			return 0, err
		}
		g.mem = append(g.mem, b)
		grown := append(slices.Clip(pages), (*graphNodes)(unsafe.Pointer(unsafe.SliceData(b))))
		g.nodes.Store(&grown)
	}
	if level == 0 {
		return 0, nil
	}
	first := g.nextUp
	g.nextUp += uint32(level)
	ups := *g.ups.Load()
	for int((g.nextUp-1)/graphUpPage) >= len(ups) {
		b, err := allocOffHeap(int(unsafe.Sizeof(graphUps{})))
		if err != nil {
			return 0, err
		}
		g.mem = append(g.mem, b)
		ups = append(slices.Clip(ups), (*graphUps)(unsafe.Pointer(unsafe.SliceData(b))))
		g.ups.Store(&ups)
	}
	return first, nil
}

// randomLevel draws a new node's top level: level l with probability
// proportional to graphM^-l.
func (g *graph) randomLevel() int {
	l := int(-math.Log(1-g.rng.Float64()) / math.Log(graphM))
	return min(l, graphMaxLevel)
}

// gquery is what a graph walk compares rows with: a search query (int16
// codes, as the int8 scan quantizes it) or a node's own int8 row.
type gquery struct {
	q16   []int16
	q8    []int8
	scale float64 // the codes' scale
}

// dots sets out[i] to the codes' dot product with slots[i]'s int8 row.
func (q *gquery) dots(x *index, slots []int32, out []int32) {
	if q.q16 != nil {
		dot8Rows(q.q16, x.q8, slots, out)
	} else {
		dot8x8Rows(q.q8, x.q8, slots, out)
	}
}

// sim returns the approximate cosine of a dot product with slot s's row.
func (q *gquery) sim(x *index, dot int32, s int32) float32 {
	return float32(float64(dot) * q.scale * x.qrow[s].scale)
}

// rowQuery returns slot s's int8 row as a gquery.
func rowQuery(x *index, s int32) gquery {
	return gquery{q8: x.q8[int(s)*x.dim : (int(s)+1)*x.dim : (int(s)+1)*x.dim], scale: x.qrow[s].scale}
}

// gcand is a node with its approximate similarity to the query and, for
// search results, its slot and int8 dot product.
type gcand struct {
	sim  float32
	node uint32
	slot int32
	dot  int32
}

// graphScratch is the reusable state of one graph walk.
type graphScratch struct {
	visited []uint64 // bitset of nodes seen
	seen    []uint32 // nodes whose bit is set, to clear
	cand    []gcand  // max-heap by sim: nodes to expand
	res     []gcand  // min-heap by sim: the best found
	nodes   []uint32
	slots   []int32
	dots    []int32
	sel     []gcand // selectNeighbours' output
	keptS   []int32
}

var graphScratches = sync.Pool{New: func() any { return new(graphScratch) }}

// visit marks node n seen and reports whether it was new.
func (sc *graphScratch) visit(n uint32) bool {
	w := int(n >> 6)
	if w >= len(sc.visited) {
		n := max(w+1, 2*len(sc.visited))
		sc.visited = slices.Grow(sc.visited, n-len(sc.visited))[:n]
	}
	bit := uint64(1) << (n & 63)
	if sc.visited[w]&bit != 0 {
		return false
	}
	sc.visited[w] |= bit
	sc.seen = append(sc.seen, n)
	return true
}

// reset clears the visited set.
func (sc *graphScratch) reset() {
	for _, n := range sc.seen {
		sc.visited[n>>6] = 0
	}
	sc.seen = sc.seen[:0]
}

// neighbours loads node n's links on level l that lie below limit into
// sc.nodes and their slots into sc.slots, skipping visited and purged
// nodes when visit is set.
func (g *graph) neighbours(n uint32, l int, limit uint32, visit bool, sc *graphScratch) {
	sc.nodes, sc.slots = sc.nodes[:0], sc.slots[:0]
	list := g.list(n, l)
	cnt := min(atomic.LoadUint32(&list[0]), uint32(len(list)-1))
	for j := uint32(1); j <= cnt; j++ {
		m := atomic.LoadUint32(&list[j])
		if m >= limit || visit && !sc.visit(m) {
			continue
		}
		if s := g.slotOf(m); s >= 0 {
			sc.nodes = append(sc.nodes, m)
			sc.slots = append(sc.slots, s)
		}
	}
	sc.dots = slices.Grow(sc.dots[:0], len(sc.slots))[:len(sc.slots)]
}

// greedy walks level l from cur to the node nearest q it can reach by
// always moving to a nearer neighbour.
func (g *graph) greedy(x *index, q *gquery, cur gcand, l int, limit uint32, sc *graphScratch) gcand {
	for moved := true; moved; {
		moved = false
		g.neighbours(cur.node, l, limit, false, sc)
		q.dots(x, sc.slots, sc.dots)
		for i, s := range sc.slots {
			if sim := q.sim(x, sc.dots[i], s); sim > cur.sim {
				cur, moved = gcand{sim: sim, node: sc.nodes[i], slot: s, dot: sc.dots[i]}, true
			}
		}
	}
	return cur
}

// searchLevel is Algorithm 2: from entry, it keeps the ef nodes nearest q
// found on level l among those keep accepts (all live nodes are walked
// through), in sc.res.
func (g *graph) searchLevel(x *index, q *gquery, entry gcand, ef, l int, limit uint32, keep func(s int32) bool, sc *graphScratch) {
	sc.reset()
	sc.cand, sc.res = sc.cand[:0], sc.res[:0]
	sc.visit(entry.node)
	sc.cand = pushMax(sc.cand, entry)
	if keep(entry.slot) {
		sc.res = pushMin(sc.res, entry)
	}
	for steps := 1; len(sc.cand) > 0; steps++ {
		if steps%64 == 0 {
			runtime.Gosched() // see search.go
		}
		var c gcand
		c, sc.cand = popMax(sc.cand)
		if len(sc.res) >= ef && c.sim < sc.res[0].sim {
			break
		}
		g.neighbours(c.node, l, limit, true, sc)
		q.dots(x, sc.slots, sc.dots)
		for i, s := range sc.slots {
			n := gcand{sim: q.sim(x, sc.dots[i], s), node: sc.nodes[i], slot: s, dot: sc.dots[i]}
			if len(sc.res) >= ef && n.sim <= sc.res[0].sim {
				continue
			}
			sc.cand = pushMax(sc.cand, n)
			if keep(s) {
				sc.res = pushMin(sc.res, n)
				if len(sc.res) > ef {
					_, sc.res = popMin(sc.res)
				}
			}
		}
	}
}

// search returns the (up to) ef nodes below limit nearest q that keep
// accepts, in no order, aliased into sc.
func (g *graph) search(x *index, q *gquery, ef int, limit uint32, keep func(s int32) bool, sc *graphScratch) []gcand {
	e := g.entry.Load()
	if e == entryNone || limit == 0 {
		return nil
	}
	cur := gcand{node: uint32(e)}
	cur.slot = g.slotOf(cur.node)
	if cur.slot < 0 {
		return nil
	}
	sc.dots = slices.Grow(sc.dots[:0], 1)[:1]
	q.dots(x, []int32{cur.slot}, sc.dots)
	cur.dot, cur.sim = sc.dots[0], q.sim(x, sc.dots[0], cur.slot)
	for l := int(e >> 32); l > 0; l-- {
		cur = g.greedy(x, q, cur, l, limit, sc)
	}
	// The entry may have been published after limit was read: the walk
	// may pass through it but the search must not return it (the caller
	// scans it as pending).
	g.searchLevel(x, q, cur, ef, 0, limit, func(s int32) bool { return keep(s) }, sc)
	if cur.node >= limit {
		sc.res = slices.DeleteFunc(sc.res, func(c gcand) bool { return c.node >= limit })
	}
	return sc.res
}

// insert adds slot s as the next node, linked to its nearest nodes (the
// live ones among them). Only the indexer calls it, holding Store.mu's
// read lock.
func (g *graph) insert(x *index, s int32, sc *graphScratch) error {
	nodes, done := g.counts()
	n := uint32(nodes)
	level := g.randomLevel()
	up, err := g.grow(n, level)
	if err != nil {
		return err
	}
	p, i := g.node(n)
	atomic.StoreInt32(&p.slot[i], s)
	p.level[i], p.up[i] = uint8(level), up
	q := rowQuery(x, s)
	e := g.entry.Load()
	publish := func() { g.state.Store(uint64(n+1)<<32 | uint64(done+1)) }
	if e == entryNone {
		publish()
		g.entry.Store(uint64(level)<<32 | uint64(n))
		return nil
	}
	top := int(e >> 32)
	cur := gcand{node: uint32(e), slot: g.slotOf(uint32(e))}
	sc.dots = slices.Grow(sc.dots[:0], 1)[:1]
	q.dots(x, []int32{cur.slot}, sc.dots)
	cur.sim = q.sim(x, sc.dots[0], cur.slot)
	for l := top; l > level; l-- {
		cur = g.greedy(x, &q, cur, l, n, sc)
	}
	live := func(s int32) bool { return x.file[s] != nil }
	for l := min(level, top); l >= 0; l-- {
		g.searchLevel(x, &q, cur, graphEfBuild, l, n, live, sc)
		if len(sc.res) == 0 {
			continue
		}
		cands := slices.Clone(sc.res)
		slices.SortFunc(cands, func(a, b gcand) int { return cmpSim(b, a) })
		cur = cands[0]
		kept := g.selectNeighbours(x, cands, maxLinks(l), sc)
		list := g.list(n, l)
		for j, c := range kept {
			atomic.StoreUint32(&list[1+j], c.node)
		}
		atomic.StoreUint32(&list[0], uint32(len(kept)))
	}
	publish()
	for l := min(level, top); l >= 0; l-- {
		list := g.list(n, l)
		cnt := atomic.LoadUint32(&list[0])
		for j := uint32(1); j <= cnt; j++ {
			g.link(x, atomic.LoadUint32(&list[j]), n, s, l, sc)
		}
	}
	if level > top {
		g.entry.Store(uint64(level)<<32 | uint64(n))
	}
	return nil
}

func maxLinks(l int) int {
	if l == 0 {
		return graphM0
	}
	return graphM
}

func cmpSim(a, b gcand) int {
	switch {
	case a.sim < b.sim:
		return -1
	case a.sim > b.sim:
		return 1
	}
	return int(int64(b.node) - int64(a.node))
}

// selectNeighbours is the paper's heuristic (Algorithm 4): of cands,
// sorted by similarity to the base node, it keeps each that is nearer
// the base than to every candidate kept before it, up to m.
func (g *graph) selectNeighbours(x *index, cands []gcand, m int, sc *graphScratch) []gcand {
	kept := sc.sel[:0]
	keptS := sc.keptS[:0]
	var dot [1]int32
	for _, c := range cands {
		if len(kept) == m {
			break
		}
		// The nearest kept candidates are the likeliest to be nearer c
		// than the base is: compare with them first, one at a time.
		ok := true
		cq := rowQuery(x, c.slot)
		for j := range keptS {
			cq.dots(x, keptS[j:j+1], dot[:])
			if cq.sim(x, dot[0], keptS[j]) > c.sim {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, c)
			keptS = append(keptS, c.slot)
		}
	}
	sc.sel, sc.keptS = kept, keptS
	return kept
}

// link adds a link from node m to node n (slot s) on level l. When m has
// all the links it may have, one of them and n goes: the worst-ranked one
// that is nearer to a better-ranked neighbour than to m (the heuristic's
// test), or the least similar if every one passes it. Dropping one link at
// a time, as Lucene does, keeps lists full; re-running the heuristic over
// the whole list, as the paper does, drops several, and at 3M a walk of
// one graph missed 2 % of the true top 10 whatever its candidates, as if
// nodes in tight clusters (a file's chunks) had lost every link to them.
func (g *graph) link(x *index, m, n uint32, s int32, l int, sc *graphScratch) {
	list := g.list(m, l)
	cnt := atomic.LoadUint32(&list[0])
	if int(cnt) < maxLinks(l) {
		atomic.StoreUint32(&list[1+cnt], n)
		atomic.StoreUint32(&list[0], cnt+1)
		return
	}
	ms := g.slotOf(m)
	if ms < 0 {
		return
	}
	cands := make([]gcand, 0, cnt+1)
	slots := make([]int32, 0, cnt+1)
	for j := uint32(1); j <= cnt; j++ {
		o := atomic.LoadUint32(&list[j])
		if os := g.slotOf(o); os >= 0 && x.file[os] != nil {
			cands = append(cands, gcand{node: o, slot: os})
			slots = append(slots, os)
		}
	}
	cands = append(cands, gcand{node: n, slot: s})
	slots = append(slots, s)
	if len(cands) > maxLinks(l) {
		mq := rowQuery(x, ms)
		dots := make([]int32, len(slots))
		mq.dots(x, slots, dots)
		for j := range cands {
			cands[j].sim = mq.sim(x, dots[j], cands[j].slot)
		}
		slices.SortFunc(cands, func(a, b gcand) int { return cmpSim(b, a) })
		w := worstNonDiverse(x, cands, slots[:0])
		cands = slices.Delete(cands, w, w+1)
	}
	for j, c := range cands {
		atomic.StoreUint32(&list[1+j], c.node)
	}
	atomic.StoreUint32(&list[0], uint32(len(cands)))
}

// worstNonDiverse returns the index in cands, sorted by similarity to
// their base node, of the last one nearer to an earlier one than to the
// base, or of the last one if none is. buf is room for the slots.
func worstNonDiverse(x *index, cands []gcand, buf []int32) int {
	slots := buf[:0]
	for _, c := range cands {
		slots = append(slots, c.slot)
	}
	dots := make([]int32, len(cands))
	for j := len(cands) - 1; j > 0; j-- {
		cq := rowQuery(x, cands[j].slot)
		cq.dots(x, slots[:j], dots[:j])
		for i := range j {
			if cq.sim(x, dots[i], slots[i]) > cands[j].sim {
				return j
			}
		}
	}
	return len(cands) - 1
}

// Binary heaps of candidates: pushMax/popMax keep the largest sim at [0],
// pushMin/popMin the smallest.

func pushMax(h []gcand, c gcand) []gcand {
	h = append(h, c)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].sim >= h[i].sim {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	return h
}

func popMax(h []gcand) (gcand, []gcand) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1].sim > h[c].sim {
			c++
		}
		if h[i].sim >= h[c].sim {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return top, h
}

func pushMin(h []gcand, c gcand) []gcand {
	h = append(h, c)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].sim <= h[i].sim {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	return h
}

func popMin(h []gcand) (gcand, []gcand) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1].sim < h[c].sim {
			c++
		}
		if h[i].sim <= h[c].sim {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return top, h
}
