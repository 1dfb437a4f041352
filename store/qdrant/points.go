package qdrant

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/protobuf/proto"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// Page sizes of the adapter's requests. Upserts and scroll pages are
// sized by bytes: a point with its text, a 768-dim dense vector and its
// sparse vectors is 10–20 KiB, so 512 of them (6 MiB and more) would break
// gRPC's default 4 MiB receive limit (on the client; Qdrant's own request
// limit is 32 MiB by default). pageBytes keeps every message well below
// that; the client's receive limit is raised to maxRecvBytes as a margin
// for single points that are larger than estimated.
const (
	upsertBatch  = 128     // at most this many points per upsert
	scrollPage   = 512     // at most this many points per scroll page
	hashBatch    = 256     // hashes per VectorsByHash filter
	pageBytes    = 2 << 20 // target size of one upsert or scroll page
	maxRecvBytes = 64 << 20
)

// pointBytes estimates the wire size of a point with all its vectors: the
// dense vector, up to about 1,000 sparse entries, up to 4 KiB of text and
// headings in the payload.
func (q *Store) pointBytes() int {
	return 4*q.dim + 8*1000 + 6<<10
}

// scrollLimit is the first page size of a scroll: by the estimate when
// vectors come along, else scrollPage (payloads alone are small).
func (q *Store) scrollLimit(withVectors bool) int {
	if !withVectors {
		return scrollPage
	}
	return min(scrollPage, max(1, pageBytes/q.pointBytes()))
}

// UpsertPoints stores points with File set to meta (waiting until Qdrant
// applied them), each replacing the file's point of the same chunk number
// (the point id is the file and chunk number), and leaves the file's other
// points; TrimFile removes those past the end. The metadata of those
// others is not changed. Checks are WriteFile's.
func (q *Store) UpsertPoints(ctx context.Context, meta hs.FileMeta, points []hs.Point) error {
	if err := store.CheckWrite(meta, points); err != nil {
		return err
	}
	for _, p := range points {
		if len(p.Dense) > 0 && len(p.Dense) != q.dim {
			return hs.Errorf(hs.EINVALID, "store: dense vector of file %d has dimension %d, the store has %d", meta.ID, len(p.Dense), q.dim)
		}
	}
	_, err := q.upsert(ctx, cleanFileMeta(meta), points)
	return err
}

// TrimFile removes the file's points whose chunk number is keep or more;
// keep 0 removes the file. An absent file is not an error.
func (q *Store) TrimFile(ctx context.Context, id hs.FileID, keep int) error {
	f := fileFilter(id)
	if keep > 0 {
		f.Must = append(f.Must, qc.NewRange("chunk_no", &qc.Range{Gte: qc.PtrOf(float64(keep))}))
	}
	return q.deletePoints(ctx, fmt.Sprintf("trim file %d", id), f)
}

// WriteFile makes the file's points exactly points: it upserts them with
// File set to meta (waiting until Qdrant applied them), then deletes the
// file's other points. The two steps are not atomic: a failure between
// them leaves old extra chunks until the next write. Dense vectors are
// stored normalised. It returns an EINVALID error when a point does not
// belong to meta (see CheckWrite) or its dense dimension is not the
// collection's. Writing no points deletes the file.
func (q *Store) WriteFile(ctx context.Context, meta hs.FileMeta, points []hs.Point) error {
	if err := store.CheckWrite(meta, points); err != nil {
		return err
	}
	for _, p := range points {
		if len(p.Dense) > 0 && len(p.Dense) != q.dim {
			return hs.Errorf(hs.EINVALID, "store: dense vector of file %d has dimension %d, the collection has %d", meta.ID, len(p.Dense), q.dim)
		}
	}
	ids, err := q.upsert(ctx, cleanFileMeta(meta), points)
	if err != nil {
		return err
	}
	// The file's points that were not just written: chunk numbers need not
	// be 0..n-1, so select them by id rather than by a chunk number range.
	f := fileFilter(meta.ID)
	if len(ids) > 0 {
		f.MustNot = []*qc.Condition{qc.NewHasID(ids...)}
	}
	return q.deletePoints(ctx, fmt.Sprintf("write file %d", meta.ID), f)
}

// upsert writes points in chunk order with File set to meta, in requests of
// at most upsertBatch points and about pageBytes, each waited for, and
// returns their ids.
func (q *Store) upsert(ctx context.Context, meta hs.FileMeta, points []hs.Point) ([]*qc.PointId, error) {
	points = slices.SortedFunc(slices.Values(points), func(a, b hs.Point) int { return cmp.Compare(a.Chunk.No, b.Chunk.No) })
	ids := make([]*qc.PointId, len(points))
	var structs []*qc.PointStruct
	size := 0
	flush := func() error {
		if len(structs) == 0 {
			return nil
		}
		req := &qc.UpsertPoints{CollectionName: q.collection, Wait: qc.PtrOf(true), Points: structs}
		structs, size = nil, 0
		return q.call(ctx, fmt.Sprintf("write file %d", meta.ID), func(ctx context.Context, c *qc.Client) error {
			_, err := c.Upsert(ctx, req)
			return err
		})
	}
	for i, p := range points {
		ids[i] = qc.NewID(p.ID)
		ps := &qc.PointStruct{Id: ids[i], Vectors: pointVectors(p), Payload: pointPayload(meta, p.Chunk)}
		n := proto.Size(ps)
		if len(structs) > 0 && (len(structs) >= upsertBatch || size+n > pageBytes) {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		structs = append(structs, ps)
		size += n
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return ids, nil
}

// UpdateFileMeta sets the metadata payload of every point of the file to
// meta without touching vectors or text. It returns an ENOTFOUND error
// when the file has no points.
func (q *Store) UpdateFileMeta(ctx context.Context, meta hs.FileMeta) error {
	op := fmt.Sprintf("update file %d", meta.ID)
	var n uint64
	err := q.call(ctx, op, func(ctx context.Context, c *qc.Client) (err error) {
		n, err = c.Count(ctx, &qc.CountPoints{CollectionName: q.collection, Filter: fileFilter(meta.ID), Exact: qc.PtrOf(true)})
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return hs.Errorf(hs.ENOTFOUND, "store: file %d is not in the index", meta.ID)
	}
	req := &qc.SetPayloadPoints{
		CollectionName: q.collection,
		Wait:           qc.PtrOf(true),
		Payload:        metaPayload(cleanFileMeta(meta)),
		PointsSelector: qc.NewPointsSelectorFilter(fileFilter(meta.ID)),
	}
	return q.call(ctx, op, func(ctx context.Context, c *qc.Client) error {
		_, err := c.SetPayload(ctx, req)
		return err
	})
}

// DeleteFile removes the file's points; an absent file is not an error.
func (q *Store) DeleteFile(ctx context.Context, id hs.FileID) error {
	return q.deletePoints(ctx, fmt.Sprintf("delete file %d", id), fileFilter(id))
}

// deletePoints deletes the points f selects and waits until Qdrant
// applied it.
func (q *Store) deletePoints(ctx context.Context, op string, f *qc.Filter) error {
	req := &qc.DeletePoints{CollectionName: q.collection, Wait: qc.PtrOf(true), Points: qc.NewPointsSelectorFilter(f)}
	return q.call(ctx, op, func(ctx context.Context, c *qc.Client) error {
		_, err := c.Delete(ctx, req)
		return err
	})
}

// FilePoints returns the file's points in chunk order, with their
// (normalised) dense and sparse vectors when withVectors is set; none for
// an absent file.
func (q *Store) FilePoints(ctx context.Context, id hs.FileID, withVectors bool) ([]hs.Point, error) {
	var out []hs.Point
	err := q.scroll(ctx, fmt.Sprintf("file points %d", id), q.scrollLimit(withVectors), &qc.ScrollPoints{
		Filter:      fileFilter(id),
		WithPayload: qc.NewWithPayloadInclude(pointFields...),
		WithVectors: qc.NewWithVectors(withVectors),
	}, func(p *qc.RetrievedPoint) bool {
		out = append(out, pointOf(p.GetId(), p.GetPayload(), p.GetVectors()))
		return true
	})
	slices.SortFunc(out, func(a, b hs.Point) int { return cmp.Compare(a.Chunk.No, b.Chunk.No) })
	return out, err
}

// VectorsByHash returns the (normalised) dense vector of a point whose
// Chunk.Hash is h, for every h in hashes that some point with a dense
// vector has, in any file, so unchanged text is not embedded twice.
func (q *Store) VectorsByHash(ctx context.Context, hashes []string) (map[string][]float32, error) {
	out := make(map[string][]float32)
	hashes = slices.Compact(slices.Sorted(slices.Values(hashes)))
	for start := 0; start < len(hashes); start += hashBatch {
		batch := hashes[start:min(start+hashBatch, len(hashes))]
		missing := len(batch)
		err := q.scroll(ctx, "vectors by hash", min(scrollPage, max(1, pageBytes/(4*q.dim+1024))), &qc.ScrollPoints{
			Filter:      &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeywords("hash", batch...)}},
			WithPayload: qc.NewWithPayloadInclude("hash"),
			WithVectors: qc.NewWithVectorsInclude(store.VectorDense),
		}, func(p *qc.RetrievedPoint) bool {
			h := p.GetPayload()["hash"].GetStringValue()
			v := p.GetVectors().GetVectors().GetVectors()[store.VectorDense]
			if _, seen := out[h]; !seen && v != nil && len(denseOf(v)) > 0 {
				out[h] = denseOf(v)
				missing--
			}
			return missing > 0 // the same text in many files: stop once every hash has a vector
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Files returns the metadata of every file whose readers include user,
// ordered by file id. It returns an EINVALID error for the empty user.
func (q *Store) Files(ctx context.Context, user hs.UserID) ([]hs.FileMeta, error) {
	if err := store.CheckUser(user); err != nil {
		return nil, err
	}
	seen := make(map[hs.FileID]bool)
	var out []hs.FileMeta
	err := q.scroll(ctx, "files of "+string(user), scrollPage, &qc.ScrollPoints{
		Filter:      &qc.Filter{Must: []*qc.Condition{readersCondition(user)}},
		WithPayload: qc.NewWithPayloadInclude(metaFields...),
		WithVectors: qc.NewWithVectors(false),
	}, func(p *qc.RetrievedPoint) bool {
		m := metaOf(p.GetPayload())
		if !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, m)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b hs.FileMeta) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// scroll pages through the points req selects, calling fn for each until
// it returns false. It fills in the collection, the page size and the
// offsets. Pages start at limit points and are resized after each one so
// that a page carries about pageBytes; a page the client could not
// receive (over its message limit) is asked for again at half the size.
func (q *Store) scroll(ctx context.Context, op string, limit int, req *qc.ScrollPoints, fn func(*qc.RetrievedPoint) bool) error {
	req.CollectionName = q.collection
	for {
		req.Limit = qc.PtrOf(uint32(limit))
		var page []*qc.RetrievedPoint
		var next *qc.PointId
		err := q.call(ctx, op, func(ctx context.Context, c *qc.Client) (err error) {
			page, next, err = c.ScrollAndOffset(ctx, req)
			return err
		})
		if isTooLarge(err) && limit > 1 {
			limit = max(1, limit/2)
			continue
		}
		if err != nil {
			return err
		}
		largest := 0
		for _, p := range page {
			largest = max(largest, proto.Size(p))
			if !fn(p) {
				return nil
			}
		}
		if next == nil {
			return nil
		}
		if largest > 0 {
			limit = min(scrollPage, max(1, pageBytes/(largest+largest/4)))
		}
		req.Offset = next
	}
}

// fileFilter selects a file's points.
func fileFilter(id hs.FileID) *qc.Filter {
	return &qc.Filter{Must: []*qc.Condition{qc.NewMatchInt("file_id", int64(id))}}
}

// readersCondition selects the points user may read: the security filter
// of every search and listing.
func readersCondition(user hs.UserID) *qc.Condition {
	return qc.NewMatchKeyword("readers", string(user))
}
