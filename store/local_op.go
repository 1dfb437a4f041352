package store

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/hybrid-search/hybridsearch"
)

// Kinds of logged operations.
const (
	opWrite  byte = 1 // WriteFile: meta and the file's complete point set
	opMeta   byte = 2 // UpdateFileMeta
	opDelete byte = 3 // DeleteFile: meta.ID only
	opUpsert byte = 4 // UpsertPoints: meta and some of the file's points
	opTrim   byte = 5 // TrimFile: meta.ID and the chunk count to keep
)

// op is one logged change: what a WAL record holds and what index.apply
// performs, on the live path and on replay alike.
type op struct {
	kind   byte
	meta   hybridsearch.FileMeta
	points []pointIn // opWrite and opUpsert, in chunk order
	keep   int       // opTrim: chunks numbered below it stay
}

// pointIn is a point on its way into the index: dense already normalised,
// sparse vectors sorted copies owned by the index once applied.
type pointIn struct {
	id      string
	chunk   hybridsearch.Chunk
	dense   []float32 // nil when the point has no dense vector
	bm25    hybridsearch.SparseVector
	trigram hybridsearch.SparseVector
}

// encode appends the op, tagged with its sequence number.
func (o *op) encode(e *encoder, seq uint64) {
	e.uvarint(seq)
	e.byte(o.kind)
	switch o.kind {
	case opWrite, opUpsert:
		e.meta(o.meta)
		e.uvarint(uint64(len(o.points)))
		for _, p := range o.points {
			e.point(p.id, p.chunk, p.dense, p.bm25, p.trigram)
		}
	case opMeta:
		e.meta(o.meta)
	case opDelete:
		e.varint(int64(o.meta.ID))
	case opTrim:
		e.varint(int64(o.meta.ID))
		e.int(o.keep)
	}
}

// decodeOp reads what op.encode wrote.
func decodeOp(b []byte) (uint64, *op, error) {
	d := decoder{b: b}
	seq := d.uvarint()
	o := &op{kind: d.byte()}
	switch o.kind {
	case opWrite, opUpsert:
		o.meta = d.meta()
		n := d.count(1)
		o.points = make([]pointIn, n)
		for i := range o.points {
			o.points[i] = d.point(o.meta.ID)
		}
	case opMeta:
		o.meta = d.meta()
	case opDelete:
		o.meta.ID = hybridsearch.FileID(d.varint())
	case opTrim:
		o.meta.ID = hybridsearch.FileID(d.varint())
		o.keep = d.int()
	default:
		d.fail()
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	return seq, o, d.err
}

// prepareWrite validates a WriteFile call and turns its points into an op:
// metadata cleaned, points in chunk order, dense vectors normalised copies,
// sparse vectors sorted copies.
func prepareWrite(meta hybridsearch.FileMeta, points []hybridsearch.Point) (*op, error) {
	if err := CheckWrite(meta, points); err != nil {
		return nil, err
	}
	o := &op{kind: opWrite, meta: cleanMeta(meta), points: make([]pointIn, len(points))}
	for i, p := range points {
		c := p.Chunk
		c.Headings = slices.Clone(c.Headings)
		o.points[i] = pointIn{
			id:      p.ID,
			chunk:   c,
			dense:   normalized(p.Dense),
			bm25:    sortedSparse(p.BM25),
			trigram: sortedSparse(p.Trigram),
		}
	}
	slices.SortFunc(o.points, func(a, b pointIn) int { return cmp.Compare(a.chunk.No, b.chunk.No) })
	return o, nil
}

// cleanMeta returns meta with sorted, unique, non-empty readers of its own,
// paths of its own for readers only, and the modification time in UTC
// without a monotonic reading.
func cleanMeta(meta hybridsearch.FileMeta) hybridsearch.FileMeta {
	r := make([]hybridsearch.UserID, 0, len(meta.Readers))
	for _, u := range meta.Readers {
		if u != "" {
			r = append(r, u)
		}
	}
	slices.Sort(r)
	meta.Readers = slices.Compact(r)
	meta.Paths = cleanPaths(meta)
	if meta.Modified.IsZero() {
		meta.Modified = time.Time{}
	} else {
		meta.Modified = meta.Modified.UTC()
	}
	return meta
}

// normalized returns a unit-length copy of v (all zeros stay zeros), or nil
// for an empty v.
func normalized(v []float32) []float32 {
	if len(v) == 0 {
		return nil
	}
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if ss == 0 {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// sortedSparse returns a copy of v sorted by index, nil slices when empty.
func sortedSparse(v hybridsearch.SparseVector) hybridsearch.SparseVector {
	if len(v.Indices) == 0 {
		return hybridsearch.SparseVector{}
	}
	out := hybridsearch.SparseVector{Indices: slices.Clone(v.Indices), Values: slices.Clone(v.Values)}
	if !slices.IsSorted(out.Indices) {
		perm := make([]int, len(out.Indices))
		for i := range perm {
			perm[i] = i
		}
		slices.SortFunc(perm, func(a, b int) int { return cmp.Compare(v.Indices[a], v.Indices[b]) })
		for k, i := range perm {
			out.Indices[k], out.Values[k] = v.Indices[i], v.Values[i]
		}
	}
	return out
}

// cleanPaths returns a copy of meta's paths for its (clean) readers, each
// path cleaned; nil when it has none.
func cleanPaths(meta hybridsearch.FileMeta) map[hybridsearch.UserID]string {
	var out map[hybridsearch.UserID]string
	for _, u := range meta.Readers {
		if p := meta.Paths[u]; p != "" {
			if out == nil {
				out = make(map[hybridsearch.UserID]string, len(meta.Readers))
			}
			out[u] = CleanPath(p)
		}
	}
	return out
}
