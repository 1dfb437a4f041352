package local

import (
	"cmp"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
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
	meta   hs.FileMeta
	points []pointIn // opWrite and opUpsert, in chunk order
	keep   int       // opTrim: chunks numbered below it stay
	pos    []recPos  // where each point's record lies in the op's frame, once encoded or decoded
}

// pointIn is a point on its way into the index (or read back from its
// record): dense already normalised, sparse vectors sorted.
type pointIn struct {
	id      string
	chunk   hs.Chunk
	dense   []float32 // nil when the point has no dense vector
	bm25    hs.SparseVector
	trigram hs.SparseVector
}

// encode appends the op, tagged with its sequence number, to a frame that
// e holds from its start (header included), and records in o.pos where
// each point's record lies in it.
func (o *op) encode(e *encoder, seq uint64) {
	e.uvarint(seq)
	e.byte(o.kind)
	switch o.kind {
	case opWrite, opUpsert:
		e.meta(o.meta)
		e.uvarint(uint64(len(o.points)))
		o.pos = o.pos[:0]
		for _, p := range o.points {
			start := len(e.b)
			head := e.point(p.id, p.chunk, p.dense, p.bm25, p.trigram)
			o.pos = append(o.pos, recPos{uint32(start), uint32(start + head), uint32(len(e.b))})
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

// decodeOp reads what op.encode wrote: a frame's payload. It records in
// o.pos where each point's record lies in the frame.
func decodeOp(b []byte) (uint64, *op, error) {
	d := decoder{b: b}
	seq := d.uvarint()
	o := &op{kind: d.byte()}
	switch o.kind {
	case opWrite, opUpsert:
		o.meta = d.meta()
		n := d.count(1)
		o.points = make([]pointIn, n)
		o.pos = make([]recPos, n)
		at := func() uint32 { return uint32(frameHeader + len(b) - len(d.b)) }
		for i := range o.points {
			start := at()
			o.points[i].id, o.points[i].chunk = d.pointHead(o.meta.ID)
			head := at()
			p := &o.points[i]
			p.dense, p.bm25, p.trigram = d.floats(), d.sparse(), d.sparse()
			o.pos[i] = recPos{start, head, at()}
		}
	case opMeta:
		o.meta = d.meta()
	case opDelete:
		o.meta.ID = hs.FileID(d.varint())
	case opTrim:
		o.meta.ID = hs.FileID(d.varint())
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
func prepareWrite(meta hs.FileMeta, points []hs.Point) (*op, error) {
	if err := store.CheckWrite(meta, points); err != nil {
		return nil, err
	}
	o := &op{kind: opWrite, meta: store.CleanMeta(meta), points: make([]pointIn, len(points))}
	for i, p := range points {
		c := p.Chunk
		c.Headings = slices.Clone(c.Headings)
		o.points[i] = pointIn{
			id:      p.ID,
			chunk:   c,
			dense:   store.Normalized(p.Dense),
			bm25:    store.SortedSparse(p.BM25),
			trigram: store.SortedSparse(p.Trigram),
		}
	}
	slices.SortFunc(o.points, func(a, b pointIn) int { return cmp.Compare(a.chunk.No, b.chunk.No) })
	return o, nil
}
