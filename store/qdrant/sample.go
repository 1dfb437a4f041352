package qdrant

import (
	"cmp"
	"context"
	"slices"
	"strings"

	qc "github.com/qdrant/go-client/qdrant"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// samplePage is the number of points with vectors per scroll request of
// PointsByID and SamplePoints: a 768-dim point with its text and sparse
// vectors is about 6 KiB, so a page stays far below gRPC's 4 MiB.
const samplePage = 128

// PointsByID returns, with their vectors, the points named by ids that
// user may read, in the order of ids. Ids of absent points and of points
// the user may not read are left out; repeated ids are returned once. It
// returns an EINVALID error for the empty user or an id that is not a
// UUID, before sending anything.
func (q *Store) PointsByID(ctx context.Context, user hs.UserID, ids []string) ([]hs.Point, error) {
	if err := store.CheckUser(user); err != nil {
		return nil, err
	}
	at := make(map[string]int, len(ids))
	var pids []*qc.PointId
	for i, id := range ids {
		id = strings.ToLower(id) // Qdrant answers with lowercase UUIDs
		if _, dup := at[id]; dup {
			continue
		}
		if !isUUID(id) {
			return nil, hs.Errorf(hs.EINVALID, "store: points by id: %q is not a point id", id)
		}
		at[id] = i
		pids = append(pids, qc.NewID(id))
	}
	var out []hs.Point
	for start := 0; start < len(pids); start += samplePage {
		batch := pids[start:min(start+samplePage, len(pids))]
		f := &qc.Filter{Must: []*qc.Condition{readersCondition(user), qc.NewHasID(batch...)}}
		err := q.scrollN(ctx, "points by id", f, len(batch), qc.NewWithVectors(true), func(p hs.Point) { out = append(out, p) })
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b hs.Point) int { return cmp.Compare(at[a.ID], at[b.ID]) })
	return out, nil
}

// SamplePoints returns, with their vectors, up to n of the points user may
// read that pass f: those with the smallest point ids, in id order (Qdrant
// scrolls in id order). Point ids are hashes (hs.PointID), so
// this is an even spread over the user's files that stays the same between
// calls while the index does. n above MaxSample is capped; n ≤ 0 returns
// nothing. It returns an EINVALID error for the empty user.
func (q *Store) SamplePoints(ctx context.Context, user hs.UserID, n int, f hs.Filter) ([]hs.Point, error) {
	if err := store.CheckUser(user); err != nil {
		return nil, err
	}
	n = min(n, store.MaxSample)
	if n <= 0 {
		return nil, nil
	}
	out := make([]hs.Point, 0, n)
	err := q.scrollN(ctx, "sample points", searchFilter(user, f), n, qc.NewWithVectors(true), func(p hs.Point) { out = append(out, p) })
	return out, err
}

// scrollN calls fn for up to n points that f selects, with the vectors
// vectors selects, in id order, in pages of at most samplePage points.
func (q *Store) scrollN(ctx context.Context, op string, f *qc.Filter, n int, vectors *qc.WithVectorsSelector, fn func(hs.Point)) error {
	req := &qc.ScrollPoints{
		CollectionName: q.collection,
		Filter:         f,
		WithPayload:    qc.NewWithPayloadInclude(pointFields...),
		WithVectors:    vectors,
	}
	for n > 0 {
		req.Limit = qc.PtrOf(uint32(min(n, samplePage)))
		var page []*qc.RetrievedPoint
		var next *qc.PointId
		err := q.call(ctx, op, func(ctx context.Context, c *qc.Client) (err error) {
			page, next, err = c.ScrollAndOffset(ctx, req)
			return err
		})
		if err != nil {
			return err
		}
		for _, p := range page[:min(len(page), n)] {
			fn(pointOf(p.GetId(), p.GetPayload(), p.GetVectors()))
		}
		n -= len(page)
		if next == nil {
			return nil
		}
		req.Offset = next
	}
	return nil
}

// isUUID reports whether s is a UUID in hyphenated form, as PointID
// writes them.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
