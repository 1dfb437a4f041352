package local

import (
	"cmp"
	"container/heap"
	"context"
	"slices"

	"github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// PointsByID returns, with their vectors, the points named by ids that
// user may read, in the order of ids. Ids of absent points and of points
// the user may not read are left out; repeated ids are returned once. It
// returns an EINVALID error for the empty user.
func (l *Store) PointsByID(ctx context.Context, user hybridsearch.UserID, ids []string) ([]hybridsearch.Point, error) {
	if err := l.readable(ctx); err != nil {
		return nil, wrap(err, "store: points by id")
	}
	if err := store.CheckUser(user); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	want := make(map[string]int, len(ids))
	for i, id := range ids {
		if _, dup := want[id]; !dup {
			want[id] = i
		}
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	type found struct {
		at int
		p  hybridsearch.Point
	}
	var out []found
	for _, s := range l.idx.users[user] {
		r := l.idx.slots[s]
		if at, ok := want[r.id]; ok {
			out = append(out, found{at, l.idx.point(r, true)})
		}
	}
	slices.SortFunc(out, func(a, b found) int { return cmp.Compare(a.at, b.at) })
	points := make([]hybridsearch.Point, len(out))
	for i, f := range out {
		points[i] = f.p
	}
	return points, nil
}

// SamplePoints returns, with their vectors, up to n of the points user may
// read that pass f: those with the smallest point ids, in id order. Point
// ids are hashes (hybridsearch.PointID), so this is an even spread over the
// user's files that stays the same between calls while the index does. n
// above MaxSample is capped; n ≤ 0 returns nothing. It returns an EINVALID
// error for the empty user.
func (l *Store) SamplePoints(ctx context.Context, user hybridsearch.UserID, n int, f hybridsearch.Filter) ([]hybridsearch.Point, error) {
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
	l.mu.RLock()
	defer l.mu.RUnlock()
	x := l.idx
	// A max-heap by id of the n smallest ids seen so far.
	h := &idHeap{}
	for _, s := range x.users[user] {
		r := x.slots[s]
		if m.on && !m.match(&x.file[s].meta) {
			continue
		}
		switch {
		case h.Len() < n:
			heap.Push(h, r)
		case r.id < (*h)[0].id:
			(*h)[0] = r
			heap.Fix(h, 0)
		}
	}
	recs := []*pointRec(*h)
	slices.SortFunc(recs, func(a, b *pointRec) int { return cmp.Compare(a.id, b.id) })
	out := make([]hybridsearch.Point, len(recs))
	for i, r := range recs {
		out[i] = x.point(r, true)
	}
	return out, nil
}

// idHeap is a max-heap of points by id.
type idHeap []*pointRec

func (h idHeap) Len() int           { return len(h) }
func (h idHeap) Less(i, j int) bool { return h[i].id > h[j].id }
func (h idHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *idHeap) Push(x any)        { *h = append(*h, x.(*pointRec)) }
func (h *idHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}
