package local

import (
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// PointsByID returns, with their vectors, the points named by ids that
// user may read, in the order of ids. Ids of absent points and of points
// the user may not read are left out; repeated ids are returned once. It
// returns an EINVALID error for the empty user.
func (l *Store) PointsByID(ctx context.Context, user hs.UserID, ids []string) ([]hs.Point, error) {
	if err := l.readable(ctx); err != nil {
		return nil, wrap(err, "store: points by id")
	}
	if err := store.CheckUser(user); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	want := make(map[pointID]int, len(ids))
	for i, id := range ids {
		if pid, ok := parsePointID(id); ok {
			if _, dup := want[pid]; !dup {
				want[pid] = i
			}
		}
	}
	x, err := l.rlock(ctx)
	if err != nil {
		return nil, wrap(err, "store: points by id")
	}
	defer l.mu.RUnlock()
	type found struct {
		at   int
		slot int32
	}
	var out []found
	for _, g := range x.userGroups[user] {
		for _, s := range g.slots {
			if at, ok := want[x.ids[s]]; ok {
				out = append(out, found{at, s})
			}
		}
	}
	slices.SortFunc(out, func(a, b found) int { return cmp.Compare(a.at, b.at) })
	points := make([]hs.Point, len(out))
	var buf []byte
	for i, f := range out {
		if points[i], err = x.point(f.slot, true, &buf); err != nil {
			return nil, wrap(err, "store: points by id")
		}
	}
	return points, nil
}

// SamplePoints returns, with their vectors, up to n of the points user may
// read that pass f: those with the smallest point ids, in id order. Point
// ids are hashes (hs.PointID), so this is an even spread over the
// user's files that stays the same between calls while the index does. n
// above store.MaxSample is capped; n ≤ 0 returns nothing. It returns an
// EINVALID error for the empty user.
func (l *Store) SamplePoints(ctx context.Context, user hs.UserID, n int, f hs.Filter) ([]hs.Point, error) {
	if err := l.readable(ctx); err != nil {
		return nil, wrap(err, "store: sample points")
	}
	if err := store.CheckUser(user); err != nil {
		return nil, err
	}
	n = min(n, store.MaxSample)
	if n <= 0 {
		return nil, nil
	}
	m := newMatcher(user, f)
	x, err := l.rlock(ctx)
	if err != nil {
		return nil, wrap(err, "store: sample points")
	}
	defer l.mu.RUnlock()
	// A max-heap by id of the n smallest ids seen so far.
	h := &idHeap{x: x}
	for _, g := range x.userGroups[user] {
		for _, s := range g.slots {
			if m.on && !m.match(&x.file[s].meta) {
				continue
			}
			switch {
			case h.Len() < n:
				heap.Push(h, s)
			case h.less(s, h.slots[0]):
				h.slots[0] = s
				heap.Fix(h, 0)
			}
		}
	}
	slices.SortFunc(h.slots, func(a, b int32) int { return bytes.Compare(x.ids[a][:], x.ids[b][:]) })
	out := make([]hs.Point, len(h.slots))
	var buf []byte
	for i, s := range h.slots {
		if out[i], err = x.point(s, true, &buf); err != nil {
			return nil, wrap(err, "store: sample points")
		}
	}
	return out, nil
}

// idHeap is a max-heap of slots by point id.
type idHeap struct {
	x     *index
	slots []int32
}

// less reports whether slot a's point id is below slot b's.
func (h *idHeap) less(a, b int32) bool { return bytes.Compare(h.x.ids[a][:], h.x.ids[b][:]) < 0 }

func (h *idHeap) Len() int           { return len(h.slots) }
func (h *idHeap) Less(i, j int) bool { return h.less(h.slots[j], h.slots[i]) }
func (h *idHeap) Swap(i, j int)      { h.slots[i], h.slots[j] = h.slots[j], h.slots[i] }
func (h *idHeap) Push(x any)         { h.slots = append(h.slots, x.(int32)) }
func (h *idHeap) Pop() any {
	s := h.slots[len(h.slots)-1]
	h.slots = h.slots[:len(h.slots)-1]
	return s
}
