package local

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// parallelMin is the number of rows from which SearchDense splits its
// scan across GOMAXPROCS goroutines.
const parallelMin = 4096

// Searches yield the processor (runtime.Gosched) every fraction of a
// millisecond of work: a large user's searches, split across goroutines,
// can keep every core busy, and Go preempts a running goroutine only
// after 10 ms, so without it a small user's search would wait for them.
// The yields cost a few hundred nanoseconds each.

// graphEf is the fewest candidates a graph walk keeps (its ef): a search
// for k keeps max(k, graphEf), and more under a filter.
const graphEf = 256

// graphScanFactor: a group of at most graphScanFactor·ef points is scanned
// even when it has a graph.
const graphScanFactor = 8

// SearchDense returns the user's k points most similar to vec by cosine
// similarity, best first, ties broken by point id. Points without a dense
// vector are skipped. It returns an EINVALID error for an empty user, k ≤ 0
// (k above MaxK is capped) or a vector whose dimension differs from the
// store's; a store without dense vectors yet returns no hits.
//
// It looks at the user's groups only (group.go). A group without a graph
// is scanned, so a user whose groups are all below Options.GraphMin gets
// exact results; a group with one is walked (graph.go), and the points
// not in the graph yet are scanned. Every candidate is rescored with its
// float32 row, so scores are exact whichever way it was found.
func (l *Store) SearchDense(ctx context.Context, user hs.UserID, vec []float32, k int, f hs.Filter) ([]hs.Hit, error) {
	k, err := l.checkSearch(ctx, user, k)
	if err != nil {
		return nil, wrap(err, "store: search dense")
	}
	for _, x := range vec {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, hs.Errorf(hs.EINVALID, "store: search dense: non-finite query value")
		}
	}
	q := store.Normalized(vec)
	x, err := l.rlock(ctx)
	if err != nil {
		return nil, wrap(err, "store: search dense")
	}
	defer l.mu.RUnlock()
	if x.dim == 0 {
		return nil, nil
	}
	if len(q) != x.dim {
		return nil, hs.Errorf(hs.EINVALID, "store: search dense: query has dimension %d, the store has %d", len(q), x.dim)
	}
	m := newMatcher(user, f)
	top := x.searchDense(ctx, user, q, k, &m, false)
	if err := ctx.Err(); err != nil {
		return nil, wrap(err, "store: search dense")
	}
	hits, err := x.hits(top, user, f.OmitText)
	if err != nil {
		return nil, wrap(err, "store: search dense")
	}
	return hits, nil
}

// graphWalk is a graph search that is part of a dense search.
type graphWalk struct {
	g     *group
	limit uint32 // the nodes published when the search began
	ef    int
}

// searchDense returns the user's k best rows for the unit query q, best
// first; with exact set it scans every row, graphs or not. When ctx is
// done the result is partial.
func (x *index) searchDense(ctx context.Context, user hs.UserID, q []float32, k int, m *matcher, exact bool) []scored {
	var scan [][]int32 // lists of rows to scan
	var walks []graphWalk
	rows := 0
	for _, g := range x.userGroups[user] {
		if g.dense == 0 {
			continue
		}
		gr := g.graph
		ef, walk := max(k, graphEf), gr != nil
		if walk {
			ef, walk = gr.searchEf(k)
		}
		if !walk || exact || g.dense <= graphScanFactor*ef {
			// A walk that keeps a good part of the group is no cheaper
			// than a scan, and a scan is exact; so is a scan of a group
			// whose graph finds too little (calibrate.go).
			scan = append(scan, g.slots)
			rows += len(g.slots)
			continue
		}
		nodes, done := gr.counts()
		if m.on {
			// A selective filter is met by scanning what passes it; a
			// graph walk would pass through too many rows that do not.
			var match []int32
			for _, f := range g.files {
				if m.match(&f.meta) {
					match = append(match, f.points...)
				}
			}
			if len(match)*10 < g.dense || len(match) < x.graphMin {
				scan = append(scan, match)
				rows += len(match)
				continue
			}
			ef = min(ef*g.dense/max(len(match), 1), 4*ef)
		}
		if nodes > 0 {
			walks = append(walks, graphWalk{g: g, limit: uint32(nodes), ef: ef})
		}
		if pend := gr.pending[done:]; len(pend) > 0 {
			scan = append(scan, pend)
			rows += len(pend)
		}
	}
	parts := 1
	if p := runtime.GOMAXPROCS(0); p > 1 && rows >= parallelMin {
		parts = min(p, rows/(parallelMin/2))
	}
	return x.rankRows(ctx, q, scan, rows, walks, k, m, parts, len(walks) > 0 || rows >= quantMin)
}

// rankRows returns the k best of the rows in the lists (rows of them in
// all) and of the graph walks' candidates, best first. The rows are
// scanned in parts of about equal size, in parallel with the walks: from
// the float32 rows, or with quant from the int8 copy first, the floor for
// the float32 pass taken over every part and walk (quant.go). Both ways
// give the same hits and scores. Walks need quant.
func (x *index) rankRows(ctx context.Context, q []float32, lists [][]int32, rows int, walks []graphWalk, k int, m *matcher, parts int, quant bool) []scored {
	if rows == 0 {
		parts = 0
	}
	t := topK{k: k, h: make([]scored, 0, min(k, rows+len(walks)*k)), x: x}
	if !quant {
		tops := make([]topK, parts)
		inParallel(parts, func(i int) {
			tops[i] = topK{k: k, x: x}
			for _, l := range cutLists(lists, i*rows/parts, (i+1)*rows/parts) {
				x.scanDense(ctx, q, l, m, &tops[i])
			}
		})
		for _, tp := range tops {
			for _, s := range tp.h {
				t.push(s)
			}
		}
		return t.sorted()
	}
	qq := newQuantQuery(q)
	scs := make([]*quantScratch, parts+len(walks))
	inParallel(len(scs), func(i int) {
		if i < parts {
			scs[i] = x.quantDots(ctx, &qq, cutLists(lists, i*rows/parts, (i+1)*rows/parts), m, k)
			return
		}
		scs[i] = x.walkGraph(&qq, walks[i-parts], m, k)
	})
	x.rescore(q, &qq, scs, quantFloor(scs, k), &t)
	for _, sc := range scs {
		quantScratches.Put(sc)
	}
	return t.sorted()
}

// cutLists returns the rows from to to of the lists concatenated.
func cutLists(lists [][]int32, from, to int) [][]int32 {
	var part [][]int32
	at := 0
	for _, l := range lists {
		lo, hi := max(from-at, 0), min(to-at, len(l))
		if lo < hi {
			part = append(part, l[lo:hi])
		}
		at += len(l)
	}
	return part
}

// walkGraph searches w's graph for the query and returns its candidates as
// the int8 scan does.
func (x *index) walkGraph(qq *quantQuery, w graphWalk, m *matcher, k int) *quantScratch {
	g := w.g
	keep := func(s int32) bool {
		f := x.file[s]
		return f != nil && f.group == g && x.dense[s] && (!m.on || m.match(&f.meta))
	}
	gs := graphScratches.Get().(*graphScratch)
	defer graphScratches.Put(gs)
	gq := gquery{q16: qq.q16, scale: qq.scale}
	res := g.graph.search(x, &gq, w.ef, w.limit, keep, gs)
	sc := quantScratches.Get().(*quantScratch)
	sc.cand, sc.dots = sc.cand[:0], sc.dots[:0]
	lows := minHeap{k: k, h: sc.lows[:0]}
	for _, r := range res {
		sc.cand = append(sc.cand, r.slot)
		sc.dots = append(sc.dots, r.dot)
		lo, _ := qq.interval(r.dot, &x.qrow[r.slot])
		lows.push(lo)
	}
	sc.lows = lows.h
	return sc
}

// inParallel calls f(0), …, f(n-1) on at most GOMAXPROCS goroutines, the
// calling one among them, and waits. More would not finish sooner, and
// every runnable goroutine of a large user's search is one more that
// another user's search queues behind (a dense search walks one graph per
// group: 13 for the large user of the capacity benchmark).
func inParallel(n int, f func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int32
	work := func() {
		for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
			f(i)
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// scanBlock is the number of slots scanDense filters and then scores in one
// kernel call; its buffers stay on the stack.
const scanBlock = 256

// scanDense pushes the cosine score of every matching slot with a dense
// vector into t. It stops early when ctx is done, checking every 8 blocks.
func (x *index) scanDense(ctx context.Context, q []float32, slots []int32, m *matcher, t *topK) {
	var cand [scanBlock]int32
	var scores [scanBlock]float32
	dense := x.dense
	for b := 0; len(slots) > 0; b++ {
		if b%8 == 7 {
			if ctx.Err() != nil {
				return
			}
			runtime.Gosched() // see yield
		}
		block := slots[:min(scanBlock, len(slots))]
		slots = slots[len(block):]
		n := 0
		for _, s := range block {
			if dense[s] && (!m.on || m.match(&x.file[s].meta)) {
				cand[n] = s
				n++
			}
		}
		dotRows(q, x.slab, cand[:n], scores[:n])
		t.pushAll(cand[:n], scores[:n])
	}
}

// SearchSparse returns the user's k best points for the sparse query q on
// the named vector (VectorBM25 or VectorTrigram), best first, ties broken by
// point id. A point's score is Σ_i q_i · d_i · IDF(n_i, N) over the indices
// it shares with q (see IDF; N and n_i count all users' points); points
// sharing no index are not returned. It returns an EINVALID error for an
// empty user, an unknown vector name, k ≤ 0 (k above MaxK is capped) or a
// malformed q.
func (l *Store) SearchSparse(ctx context.Context, user hs.UserID, vector string, q hs.SparseVector, k int, f hs.Filter) ([]hs.Hit, error) {
	k, err := l.checkSearch(ctx, user, k)
	if err == nil {
		err = store.CheckSparseName(vector)
	}
	if err == nil {
		err = store.CheckSparse(vector, q)
	}
	if err != nil {
		return nil, wrap(err, "store: search sparse")
	}
	x, err := l.rlock(ctx)
	if err != nil {
		return nil, wrap(err, "store: search sparse")
	}
	defer l.mu.RUnlock()
	if len(x.userGroups[user]) == 0 || len(q.Indices) == 0 {
		return nil, nil
	}
	sc := l.scratch.Get().(*scratch)
	defer l.scratch.Put(sc)
	m := newMatcher(user, f)
	top := x.searchSparse(user, vectorNo(vector), q, k, &m, false, sc)
	hits, err := x.hits(top, user, f.OmitText)
	if err != nil {
		return nil, wrap(err, "store: search sparse")
	}
	return hits, nil
}

// searchSparse returns the user's k best points for the sparse query q on
// vector v, best first: the tail's points scored one by one, the
// segments' by block-max WAND (wand.go), or one by one too with
// exhaustive set.
func (x *index) searchSparse(user hs.UserID, v int, q hs.SparseVector, k int, m *matcher, exhaustive bool, sc *scratch) []scored {
	groups := x.userGroups[user]
	df := &x.df[v]
	qs := sc.qs[:0]
	for j, i := range q.Indices {
		n := df.n[i]
		if n == 0 {
			continue
		}
		w := q.Values[j] * float32(store.IDF(int(n), df.docs))
		qs = append(qs, qterm{j: j, i: i, w: w})
		exhaustive = exhaustive || w < 0
	}
	sc.qs = qs
	top := topK{k: k, x: x}
	// The tail's points are few: score each against the query. Each
	// product is rounded to float32 before it is added (no fused
	// multiply-add) and the products are added in query order, as the
	// segments' scorer does, so the two agree to the bit.
	for _, g := range groups {
		for n, pos := range g.tail {
			if n%1024 == 1023 {
				runtime.Gosched()
			}
			td := &x.tail[pos]
			if x.owner[td.slot] != tailOwner(int(pos)) {
				continue
			}
			vec := &td.vecs[v]
			var score float32
			hit := false
			for _, qt := range qs {
				if at, ok := slices.BinarySearch(vec.Indices, qt.i); ok {
					score += float32(qt.w * vec.Values[at])
					hit = true
				}
			}
			if hit && (!m.on || m.match(&x.file[td.slot].meta)) {
				top.push(scored{score: score, slot: td.slot})
			}
		}
	}
	for _, sg := range x.segs {
		for _, g := range groups {
			x.searchSegment(sg, v, g, qs, &top, m, exhaustive, &sc.curs)
		}
	}
	return top.sorted()
}

// scratch is the reusable state of a sparse search.
type scratch struct {
	qs   []qterm
	curs []cursor
}

// scored is a candidate hit.
type scored struct {
	score float32
	slot  int32
}

// topK keeps the k best candidates in a min-heap whose root is the worst.
type topK struct {
	k int
	h []scored
	x *index
}

// worse reports whether a ranks below b: a lower score, or the same score
// and a larger point id.
func (t *topK) worse(a, b scored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return bytes.Compare(t.x.ids[a.slot][:], t.x.ids[b.slot][:]) > 0
}

// pushAll offers each slot with its score.
func (t *topK) pushAll(slots []int32, scores []float32) {
	for i, score := range scores {
		// A candidate below the current k-th score cannot enter the
		// heap; one equal to it still may, on the point-id tie-break.
		if len(t.h) == t.k && score < t.h[0].score {
			continue
		}
		t.push(scored{score: score, slot: slots[i]})
	}
}

func (t *topK) push(s scored) {
	if len(t.h) < t.k {
		t.h = append(t.h, s)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !t.worse(t.h[i], t.h[p]) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return
	}
	if !t.worse(t.h[0], s) {
		return
	}
	t.h[0] = s
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(t.h) {
			break
		}
		if c+1 < len(t.h) && t.worse(t.h[c+1], t.h[c]) {
			c++
		}
		if !t.worse(t.h[c], t.h[i]) {
			break
		}
		t.h[i], t.h[c] = t.h[c], t.h[i]
		i = c
	}
}

// sorted returns the candidates best first.
func (t *topK) sorted() []scored {
	slices.SortFunc(t.h, func(a, b scored) int {
		if t.worse(a, b) {
			return 1
		}
		if t.worse(b, a) {
			return -1
		}
		return 0
	})
	return t.h
}

// hits turns ranked candidates into hits carrying their point without
// vectors, read back from their records; hits of one file share one copy
// of its metadata. With omitText their Chunk holds FileID and No alone and
// nothing is read, and they share the index's own metadata, which is
// replaced, never changed, when a file's metadata changes (the caller
// reads it only: see hs.Filter.OmitText).
func (x *index) hits(top []scored, user hs.UserID, omitText bool) ([]hs.Hit, error) {
	// Every candidate comes from one of the user's groups; this is the
	// last line of isolation, should a bug put a point in the wrong one.
	top = slices.DeleteFunc(top, func(s scored) bool {
		f := x.file[s.slot]
		return f == nil || !f.group.readable(user)
	})
	if len(top) == 0 {
		return nil, nil
	}
	out := make([]hs.Hit, len(top))
	var metas map[*fileRec]hs.FileMeta
	if !omitText {
		metas = make(map[*fileRec]hs.FileMeta, len(top))
	}
	var buf []byte
	for i, s := range top {
		f := x.file[s.slot]
		if omitText {
			out[i] = hs.Hit{Point: hs.Point{ID: x.ids[s.slot].String(),
				Chunk: hs.Chunk{FileID: f.meta.ID, No: int(x.nos[s.slot])}, File: f.meta}, Score: s.score}
			continue
		}
		meta, ok := metas[f]
		if !ok {
			meta = cloneMeta(f.meta)
			metas[f] = meta
		}
		id, c, err := x.head(s.slot, &buf)
		if err != nil {
			return nil, err
		}
		out[i] = hs.Hit{Point: hs.Point{ID: id, Chunk: c, File: meta}, Score: s.score}
	}
	return out, nil
}

// ReadChunks returns hits with their chunks read in full (as SearchDense
// and SearchSparse return them without Filter.OmitText), in their order,
// leaving out hits whose point is gone or that user may not read. A hit
// names its point by Point.File.ID and Point.Chunk.No; the rest of it is
// kept as given. It returns an EINVALID error for the empty user.
func (l *Store) ReadChunks(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error) {
	return l.readHits(ctx, user, hits, "store: read chunks", func(x *index, s int32, h *hs.Hit, buf *[]byte) (err error) {
		h.Point.ID, h.Point.Chunk, err = x.head(s, buf)
		return err
	})
}

// ReadTerms returns hits with their chunks and bm25 vectors read (Point.BM25
// as written; the dense and trigram vectors stay empty), in their order,
// leaving out hits whose point is gone or that user may not read. A hit
// names its point by Point.File.ID and Point.Chunk.No; the rest of it is
// kept as given. Pseudo-relevance feedback reads the terms of its chunks
// with it instead of analysing their text again. It returns an EINVALID
// error for the empty user.
func (l *Store) ReadTerms(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error) {
	return l.readHits(ctx, user, hits, "store: read terms", func(x *index, s int32, h *hs.Hit, buf *[]byte) error {
		pt, err := x.point(s, true, buf)
		if err != nil {
			return err
		}
		h.Point.ID, h.Point.Chunk, h.Point.BM25 = pt.ID, pt.Chunk, pt.BM25
		return nil
	})
}

// readHits returns the hits whose points exist and user may read, in
// order, each completed by read from its slot's record (buf is scratch
// space); op names the operation in errors.
func (l *Store) readHits(ctx context.Context, user hs.UserID, hits []hs.Hit, op string, read func(x *index, s int32, h *hs.Hit, buf *[]byte) error) ([]hs.Hit, error) {
	if err := store.CheckUser(user); err != nil {
		return nil, err
	}
	x, err := l.rlock(ctx)
	if err != nil {
		return nil, wrap(err, op)
	}
	defer l.mu.RUnlock()
	out := make([]hs.Hit, 0, len(hits))
	var buf []byte
	for _, h := range hits {
		s, ok := x.slotOf(h.Point.File.ID, h.Point.Chunk.No, user)
		if !ok {
			continue
		}
		if err := read(x, s, &h, &buf); err != nil {
			return nil, wrap(err, op)
		}
		out = append(out, h)
	}
	return out, nil
}

// slotOf returns the slot of chunk no of file id if user may read it.
func (x *index) slotOf(id hs.FileID, no int, user hs.UserID) (int32, bool) {
	f := x.files[id]
	if f == nil {
		return 0, false
	}
	if _, ok := slices.BinarySearch(f.meta.Readers, user); !ok {
		return 0, false
	}
	// f.points is in chunk order.
	i, ok := slices.BinarySearchFunc(f.points, no, func(s int32, no int) int { return cmp.Compare(int(x.nos[s]), no) })
	if !ok {
		return 0, false
	}
	return f.points[i], true
}

// head reads slot s's point id and chunk back from its record. buf is
// scratch space.
func (x *index) head(s int32, buf *[]byte) (string, hs.Chunk, error) {
	f := x.file[s]
	rec, err := x.recs.read(x.locs[s], false, *buf)
	if err != nil {
		return "", hs.Chunk{}, err
	}
	*buf = rec
	id, c, err := decodeHead(rec, f.meta.ID)
	if err != nil {
		return "", hs.Chunk{}, fmt.Errorf("store: record of file %d chunk %d: %w", f.meta.ID, x.nos[s], err)
	}
	return id, c, nil
}

// point reads slot s's point back from its record, as a caller-owned
// Point: with its vectors when withVectors is set. buf is scratch space.
func (x *index) point(s int32, withVectors bool, buf *[]byte) (hs.Point, error) {
	f := x.file[s]
	if !withVectors {
		id, c, err := x.head(s, buf)
		if err != nil {
			return hs.Point{}, err
		}
		return hs.Point{ID: id, Chunk: c, File: cloneMeta(f.meta)}, nil
	}
	rec, err := x.recs.read(x.locs[s], true, *buf)
	if err != nil {
		return hs.Point{}, err
	}
	*buf = rec
	in, err := decodeRecord(rec, f.meta.ID, x.recs.compact(x.locs[s]))
	if err != nil {
		return hs.Point{}, fmt.Errorf("store: record of file %d chunk %d: %w", f.meta.ID, x.nos[s], err)
	}
	if x.dense[s] && in.dense == nil {
		// A checkpoint's records leave the dense vector to the rows.
		in.dense = slices.Clone(x.vector(s))
	}
	return hs.Point{ID: in.id, Chunk: in.chunk, Dense: in.dense, BM25: in.bm25, Trigram: in.trigram, File: cloneMeta(f.meta)}, nil
}

func cloneMeta(m hs.FileMeta) hs.FileMeta {
	m.Readers = slices.Clone(m.Readers)
	m.Paths = maps.Clone(m.Paths)
	return m
}

// matcher evaluates a Filter against file metadata, for the searching
// user: a path prefix applies to the path user sees.
type matcher struct {
	user   hs.UserID
	f      hs.Filter
	prefix string // cleaned PathPrefix, "" when unset
	on     bool   // whether the filter filters at all
}

func newMatcher(user hs.UserID, f hs.Filter) matcher {
	m := matcher{user: user, f: f}
	if f.PathPrefix != "" {
		m.prefix = store.CleanPath(f.PathPrefix)
	}
	m.on = len(f.Types) > 0 || len(f.MIMEs) > 0 || m.prefix != "" ||
		!f.ModifiedAfter.IsZero() || !f.ModifiedBefore.IsZero()
	return m
}

// match reports whether the file passes every set field of the filter:
// type in Types, MIME in MIMEs, the user's path to it (FileMeta.PathOf)
// under PathPrefix (see HasPathPrefix), modified strictly after
// ModifiedAfter and strictly before ModifiedBefore.
func (m *matcher) match(meta *hs.FileMeta) bool {
	f := &m.f
	switch {
	case len(f.Types) > 0 && !slices.Contains(f.Types, meta.Type):
		return false
	case len(f.MIMEs) > 0 && !slices.Contains(f.MIMEs, meta.MIME):
		return false
	case m.prefix != "" && !store.HasPathPrefix(meta.PathOf(m.user), m.prefix):
		return false
	case !f.ModifiedAfter.IsZero() && !meta.Modified.After(f.ModifiedAfter):
		return false
	case !f.ModifiedBefore.IsZero() && !meta.Modified.Before(f.ModifiedBefore):
		return false
	}
	return true
}

// cmpFileID orders file metadata by id.
func cmpFileID(a, b hs.FileMeta) int { return cmp.Compare(a.ID, b.ID) }
