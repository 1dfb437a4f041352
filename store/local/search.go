package local

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// parallelMin is the number of a user's dense points from which SearchDense
// splits the scan across GOMAXPROCS goroutines.
const parallelMin = 4096

// SearchDense returns the user's k points most similar to vec by cosine
// similarity, best first, ties broken by point id. Points without a dense
// vector are skipped. It returns an EINVALID error for an empty user, k ≤ 0
// (k above MaxK is capped) or a vector whose dimension differs from the
// store's; a store without dense vectors yet returns no hits.
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
	slots := x.users[user]
	parts := 1
	if p := runtime.GOMAXPROCS(0); p > 1 && len(slots) >= parallelMin {
		parts = min(p, len(slots)/(parallelMin/2))
	}
	quant := len(slots) >= quantMin && x.dim <= quantMaxDim
	top := x.searchDense(ctx, q, slots, k, &m, parts, quant)
	if err := ctx.Err(); err != nil {
		return nil, wrap(err, "store: search dense")
	}
	hits, err := x.hits(top, f.OmitText)
	if err != nil {
		return nil, wrap(err, "store: search dense")
	}
	return hits, nil
}

// searchDense returns the k best of slots for the unit query q, best first,
// scanning parts slices of slots in parallel, through the int8 copy when
// quant is set. Both ways give the same hits and scores. When ctx is done
// the result is partial.
func (x *index) searchDense(ctx context.Context, q []float32, slots []int32, k int, m *matcher, parts int, quant bool) []scored {
	tops := make([]topK, parts)
	part := func(i int) []int32 { return slots[i*len(slots)/parts : (i+1)*len(slots)/parts] }
	for i := range tops {
		tops[i] = topK{k: k, h: make([]scored, 0, min(k, len(part(i)))), x: x}
	}
	if quant {
		// Every part scores its rows from the int8 copy first; the
		// floor for the float32 pass is taken over all of them.
		qq := newQuantQuery(q)
		scs := make([]*quantScratch, parts)
		inParallel(parts, func(i int) { scs[i] = x.quantDots(ctx, &qq, part(i), m, k) })
		x.rescore(q, &qq, scs, quantFloor(scs, k), &tops[0])
		for _, sc := range scs {
			quantScratches.Put(sc)
		}
	} else {
		inParallel(parts, func(i int) { x.scanDense(ctx, q, part(i), m, &tops[i]) })
	}
	top := tops[0]
	for _, t := range tops[1:] {
		for _, s := range t.h {
			top.push(s)
		}
	}
	return top.sorted()
}

// inParallel calls f(0), …, f(n-1), concurrently when n > 1, and waits.
func inParallel(n int, f func(i int)) {
	if n == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(i) })
	}
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
		if b%8 == 7 && ctx.Err() != nil {
			return
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
	ix := x.sparseIndex(vector)
	slots := x.users[user]
	if len(slots) == 0 || len(q.Indices) == 0 {
		return nil, nil
	}
	sc := l.scratch.Get().(*scratch)
	defer l.scratch.Put(sc)
	sc.reset(len(x.file))
	for _, s := range slots {
		sc.user[s>>6] |= 1 << (s & 63)
	}
	for j, i := range q.Indices {
		pl := ix.postings[i]
		if pl == nil {
			continue
		}
		w := q.Values[j] * float32(store.IDF(int(pl.live), ix.docs))
		sc.score(pl.buf, ix.weights, w)
	}
	m := newMatcher(user, f)
	top := topK{k: k, x: x}
	for _, s := range sc.touched {
		if !m.on || m.match(&x.file[s].meta) {
			top.push(scored{score: sc.scores[s], slot: s})
		}
	}
	hits, err := x.hits(top.sorted(), f.OmitText)
	if err != nil {
		return nil, wrap(err, "store: search sparse")
	}
	return hits, nil
}

// score adds w times each posting's weight to the score of its slot, for
// the postings (see postings.go) of the user's slots. It is
// invIndex.each unrolled, as the hot loop of a sparse search.
func (sc *scratch) score(buf []byte, weights []float32, w float32) {
	var s int32
	for i := 0; i < len(buf); {
		h := uint64(buf[i])
		i++
		if h >= 0x80 {
			v, n := binary.Uvarint(buf[i-1:])
			if n <= 0 {
				return
			}
			h, i = v, i-1+n
		}
		pw := float32(1)
		switch h & 3 {
		case kindRebase:
			s = 0
			continue
		case kindTable:
			id, n := binary.Uvarint(buf[i:])
			if n <= 0 || id >= uint64(len(weights)) {
				return
			}
			i += n
			pw = weights[id]
		case kindRaw:
			if i+4 > len(buf) {
				return
			}
			pw = math.Float32frombits(binary.LittleEndian.Uint32(buf[i:]))
			i += 4
		}
		s += int32(h >> 2)
		word, bit := s>>6, uint64(1)<<(s&63)
		if sc.user[word]&bit == 0 {
			continue
		}
		if sc.seen[word]&bit == 0 {
			sc.seen[word] |= bit
			sc.touched = append(sc.touched, s)
		}
		sc.scores[s] += w * pw
	}
}

// scratch is the reusable per-query state of a sparse search.
type scratch struct {
	scores  []float32 // by slot, zero outside touched
	seen    []uint64  // bitmap of touched slots
	user    []uint64  // bitmap of the user's slots
	touched []int32
}

// reset readies the scratch for n slots; every buffer is zero or empty.
func (sc *scratch) reset(n int) {
	for _, s := range sc.touched {
		sc.scores[s] = 0
	}
	sc.touched = sc.touched[:0]
	clear(sc.seen)
	clear(sc.user)
	if len(sc.scores) < n {
		sc.scores = make([]float32, n)
	}
	if words := (n + 63) / 64; len(sc.seen) < words {
		sc.seen = make([]uint64, words)
		sc.user = make([]uint64, words)
	}
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
func (x *index) hits(top []scored, omitText bool) ([]hs.Hit, error) {
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
	in, err := decodeRecord(rec, f.meta.ID)
	if err != nil {
		return hs.Point{}, fmt.Errorf("store: record of file %d chunk %d: %w", f.meta.ID, x.nos[s], err)
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
