package local

import (
	"encoding/binary"
	"log/slog"
	"os"
	"slices"
)

// Every checkpoint adds a segment, so segments are merged in the
// background, size-tiered as LSM stores do: when mergeWidth segments of
// about the same size (within a factor of mergeTier) exist, they become one
// segment, so a posting is rewritten about log₄ of the index's growth
// times and a search reads a few segments. A segment whose postings are
// mostly stale (their points were removed or rewritten) is rewritten on
// its own. Merging reads the inputs, which never change, and writes the
// output while writes and searches go on; installing it (the owners of
// the inputs' current postings become the output, the inputs leave the
// list) takes Store.wmu and mu's write lock for a moment. The inputs'
// files stay until a checkpoint no longer names them.
const (
	mergeWidth = 4
	mergeTier  = 4
	// mergeStale is the share of stale postings from which a segment is
	// rewritten alone.
	mergeStale = 0.3
)

// segSize returns a segment's size in bytes.
func (sg *segment) size() int { return len(sg.data) }

// pickMerge returns the segments to merge next, or none.
func (x *index) pickMerge() []*segment {
	for _, sg := range x.segs {
		if sg.docs > 0 && float64(sg.docs-sg.live) > mergeStale*float64(sg.docs) {
			return []*segment{sg}
		}
	}
	bySize := slices.Clone(x.segs)
	slices.SortFunc(bySize, func(a, b *segment) int { return a.size() - b.size() })
	for i := 0; i+mergeWidth <= len(bySize); i++ {
		if bySize[i+mergeWidth-1].size() <= mergeTier*max(bySize[i].size(), 1<<20) {
			return bySize[i : i+mergeWidth]
		}
	}
	return nil
}

// maybeMerge starts a background merge when one is due and none runs.
// Callers hold wmu.
func (l *Store) maybeMerge() {
	if l.closed.Load() || len(l.idx.pickMerge()) == 0 || !l.merging.CompareAndSwap(false, true) {
		return
	}
	l.bg.Go(func() {
		defer l.merging.Store(false)
		for {
			more, err := l.mergeOnce()
			if err != nil {
				l.log.Error("store: merging segments failed", slog.String("dir", l.dir), slog.Any("error", err))
				return
			}
			if !more {
				return
			}
		}
	})
}

// mergeOnce merges the segments pickMerge picks and reports whether it
// did.
func (l *Store) mergeOnce() (bool, error) {
	l.wmu.Lock()
	if l.closed.Load() {
		l.wmu.Unlock()
		return false, nil
	}
	x := l.idx
	in := x.pickMerge()
	if len(in) == 0 {
		l.wmu.Unlock()
		return false, nil
	}
	// Which postings of each input are current, as of now; those that go
	// stale while merging are written too and skipped like any stale one.
	valid := make([][]uint64, len(in))
	l.mu.RLock()
	for i, sg := range in {
		for s, o := range x.owner {
			if o == sg.id {
				valid[i] = setBit(valid[i], int32(s))
			}
		}
	}
	l.mu.RUnlock()
	x.nextFile++
	id := int32(x.nextFile)
	l.wmu.Unlock()

	out, slots, err := mergeSegments(x.dir, id, in, valid)
	if err != nil {
		return false, err
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if l.closed.Load() {
		out.close()
		os.Remove(out.path)
		return false, nil
	}
	l.mu.Lock()
	live := 0
	for _, s := range slots {
		if o := x.owner[s]; o != ownNone && slices.ContainsFunc(in, func(sg *segment) bool { return sg.id == o }) {
			x.owner[s] = id
			live++
		}
	}
	out.docs, out.live = len(slots), live
	x.segs = slices.DeleteFunc(x.segs, func(sg *segment) bool { return slices.Contains(in, sg) })
	x.segs = append(x.segs, out)
	l.mu.Unlock()
	for _, sg := range in {
		sg.close()
		x.dropAfterCkpt = append(x.dropAfterCkpt, segName(sg.id))
	}
	l.log.Debug("store: merged segments", slog.String("dir", l.dir), slog.Int("inputs", len(in)), slog.Int("bytes", out.size()))
	return true, nil
}

// mergeSegments writes segment id holding the valid postings of the
// inputs and returns it with the slots it holds.
func mergeSegments(dir string, id int32, in []*segment, valid [][]uint64) (*segment, []int32, error) {
	sw, err := newSegWriter(dir, id)
	if err != nil {
		return nil, nil, err
	}
	isValid := func(i int, s int32) bool {
		w := int(s >> 6)
		return w < len(valid[i]) && valid[i][w]&(1<<(s&63)) != 0
	}
	var slots []int32
	var seen []uint64
	var ps []segPosting
	var c cursor
	for v := range 2 {
		// The groups of every input, in order.
		var groups []uint32
		for _, sg := range in {
			dir := sg.vecs[v].groups
			for k := 0; k < len(dir)/segGroupW; k++ {
				groups = append(groups, binary.LittleEndian.Uint32(dir[k*segGroupW:]))
			}
		}
		slices.Sort(groups)
		groups = slices.Compact(groups)
		for _, g := range groups {
			type src struct {
				i     int
				terms []byte
				base  int
			}
			var srcs []src
			var terms []uint32
			for i, sg := range in {
				t, base := sg.terms(v, g)
				if len(t) == 0 {
					continue
				}
				srcs = append(srcs, src{i, t, base})
				for k := 0; k < len(t)/segTermW; k++ {
					terms = append(terms, binary.LittleEndian.Uint32(t[k*segTermW:]))
				}
			}
			slices.Sort(terms)
			terms = slices.Compact(terms)
			started := false
			for _, term := range terms {
				ps = ps[:0]
				for _, sr := range srcs {
					st, ok := in[sr.i].term(sr.terms, sr.base, term)
					if !ok {
						continue
					}
					c.reset(st, in[sr.i].vecs[v].weights)
					for ; c.doc != endDoc; c.next() {
						if isValid(sr.i, c.doc) {
							ps = append(ps, segPosting{c.doc, c.weight()})
						}
					}
				}
				if len(ps) == 0 {
					continue
				}
				if !started {
					sw.startGroup(v, g)
					started = true
				}
				sortSegPostings(ps)
				sw.addTerm(term, ps)
				for _, p := range ps {
					if w := int(p.slot >> 6); w >= len(seen) || seen[w]&(1<<(p.slot&63)) == 0 {
						seen = setBit(seen, p.slot)
						slots = append(slots, p.slot)
					}
				}
			}
		}
		sw.endGroup()
	}
	out, err := sw.finish(dir)
	if err != nil {
		return nil, nil, err
	}
	return out, slots, nil
}
