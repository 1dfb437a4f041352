package qdrant

//lint:file-ignore SA1019 Qdrant servers before 1.14 fill only the deprecated vector fields (denseOf, sparseOf)

import (
	"strings"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// metaFields are the payload fields a file's metadata is read back from;
// UpdateFileMeta sets them (and reader_prefixes) on every point of the
// file. mtime is the modification time in unix seconds. (path_prefixes,
// the owner's folders, is no longer written: a filter must use the
// searching user's folders.)
var metaFields = []string{"file_id", "path", "title", "mime", "type", "mtime", "etag", "size", "readers", "reader_paths"}

// readerKey joins a reader and a path of theirs into one keyword,
// "<uid>:<path>": reader_paths holds each reader's path, reader_prefixes
// (ReaderPrefixes) serves Filter.PathPrefix as the searching user sees
// the file. A uid has no "/" and a path starts with one, so the pair is
// unambiguous.
func readerKey(user hs.UserID, p string) string { return string(user) + ":" + p }

// ReaderPrefixes returns the reader_prefixes keywords of meta: for every
// reader with a known path, readerKey of each of PathPrefixes(path).
func ReaderPrefixes(meta hs.FileMeta) []string {
	var out []string
	for _, u := range meta.Readers {
		if p := meta.PathOf(u); p != "" {
			for _, pre := range store.PathPrefixes(p) {
				out = append(out, readerKey(u, pre))
			}
		}
	}
	return out
}

// pointFields are the payload fields a point is read back from.
var pointFields = append([]string{"chunk_no", "text", "start", "end", "headings", "page", "hash", "ocr"}, metaFields...)

// cleanFileMeta returns meta with sorted, unique, non-empty readers of its
// own and the modification time in UTC, cut to whole seconds as Qdrant
// keeps it.
func cleanFileMeta(meta hs.FileMeta) hs.FileMeta {
	meta = store.CleanMeta(meta)
	meta.Modified = time.Unix(meta.Modified.Unix(), 0).UTC()
	return meta
}

// metaPayload returns the payload of a file's metadata.
func metaPayload(meta hs.FileMeta) map[string]*qc.Value {
	readers := make([]string, len(meta.Readers))
	var paths []string
	for i, u := range meta.Readers {
		readers[i] = string(u)
		if p := meta.Paths[u]; p != "" {
			paths = append(paths, readerKey(u, p))
		}
	}
	return map[string]*qc.Value{
		"reader_paths":    stringList(paths),
		"reader_prefixes": stringList(ReaderPrefixes(meta)),
		"file_id":         qc.NewValueInt(int64(meta.ID)),
		"path":            qc.NewValueString(meta.Path),
		"title":           qc.NewValueString(meta.Title),
		"mime":            qc.NewValueString(meta.MIME),
		"type":            qc.NewValueString(string(meta.Type)),
		"mtime":           qc.NewValueInt(meta.Modified.Unix()),
		"etag":            qc.NewValueString(meta.ETag),
		"size":            qc.NewValueInt(meta.Size),
		"readers":         stringList(readers),
	}
}

// pointPayload returns the whole payload of a point: its chunk and its
// file's metadata.
func pointPayload(meta hs.FileMeta, c hs.Chunk) map[string]*qc.Value {
	p := metaPayload(meta)
	p["chunk_no"] = qc.NewValueInt(int64(c.No))
	p["text"] = qc.NewValueString(c.Text)
	p["start"] = qc.NewValueInt(int64(c.Start))
	p["end"] = qc.NewValueInt(int64(c.End))
	p["headings"] = stringList(c.Headings)
	p["page"] = qc.NewValueInt(int64(c.Page))
	p["hash"] = qc.NewValueString(c.Hash)
	if c.OCR {
		p["ocr"] = qc.NewValueBool(true) // absent on text that was not recognised
	}
	return p
}

// pointVectors returns the named vectors of a point: the dense vector
// normalised, the sparse ones sorted; empty vectors are left out, as a
// point without them.
func pointVectors(p hs.Point) *qc.Vectors {
	m := make(map[string]*qc.Vector, 3)
	if len(p.Dense) > 0 {
		m[store.VectorDense] = qc.NewVectorDense(store.Normalized(p.Dense))
	}
	for name, v := range map[string]hs.SparseVector{store.VectorBM25: p.BM25, store.VectorTrigram: p.Trigram} {
		if len(v.Indices) > 0 {
			v = store.SortedSparse(v)
			m[name] = qc.NewVectorSparse(v.Indices, v.Values)
		}
	}
	return qc.NewVectorsMap(m)
}

// pointOf reads a point back from its id, payload and, if present, its
// vectors.
func pointOf(id *qc.PointId, payload map[string]*qc.Value, vectors *qc.VectorsOutput) hs.Point {
	meta := metaOf(payload)
	p := hs.Point{
		ID: id.GetUuid(),
		Chunk: hs.Chunk{
			FileID:   meta.ID,
			No:       int(intValue(payload["chunk_no"])),
			Text:     payload["text"].GetStringValue(),
			Start:    int(intValue(payload["start"])),
			End:      int(intValue(payload["end"])),
			Headings: stringsOf(payload["headings"]),
			Page:     int(intValue(payload["page"])),
			Hash:     payload["hash"].GetStringValue(),
			OCR:      payload["ocr"].GetBoolValue(),
		},
		File: meta,
	}
	named := vectors.GetVectors().GetVectors()
	if v := named[store.VectorDense]; v != nil {
		p.Dense = denseOf(v)
	}
	p.BM25 = sparseOf(named[store.VectorBM25])
	p.Trigram = sparseOf(named[store.VectorTrigram])
	return p
}

// metaOf reads a file's metadata from a payload.
func metaOf(payload map[string]*qc.Value) hs.FileMeta {
	var readers []hs.UserID
	for _, u := range stringsOf(payload["readers"]) {
		readers = append(readers, hs.UserID(u))
	}
	var paths map[hs.UserID]string
	for _, kv := range stringsOf(payload["reader_paths"]) {
		if i := strings.Index(kv, ":/"); i > 0 {
			if paths == nil {
				paths = map[hs.UserID]string{}
			}
			paths[hs.UserID(kv[:i])] = kv[i+1:]
		}
	}
	return hs.FileMeta{
		Paths:    paths,
		ID:       hs.FileID(intValue(payload["file_id"])),
		Path:     payload["path"].GetStringValue(),
		Title:    payload["title"].GetStringValue(),
		MIME:     payload["mime"].GetStringValue(),
		Type:     hs.DocType(payload["type"].GetStringValue()),
		Modified: time.Unix(intValue(payload["mtime"]), 0).UTC(),
		ETag:     payload["etag"].GetStringValue(),
		Size:     intValue(payload["size"]),
		Readers:  readers,
	}
}

// denseOf returns a dense vector as Qdrant returns it, in the current or
// the deprecated field.
func denseOf(v *qc.VectorOutput) []float32 {
	if d := v.GetDense(); d != nil {
		return d.GetData()
	}
	return v.GetData() //nolint:staticcheck // servers before 1.14 fill only the deprecated field
}

// sparseOf returns a sparse vector as Qdrant returns it, in the current or
// the deprecated fields; nil slices when v is nil or empty.
func sparseOf(v *qc.VectorOutput) hs.SparseVector {
	var out hs.SparseVector
	if s := v.GetSparse(); s != nil {
		out = hs.SparseVector{Indices: s.GetIndices(), Values: s.GetValues()}
	} else if ix := v.GetIndices(); ix != nil { //nolint:staticcheck // see denseOf
		out = hs.SparseVector{Indices: ix.GetData(), Values: v.GetData()} //nolint:staticcheck // see denseOf
	}
	if len(out.Indices) == 0 {
		return hs.SparseVector{}
	}
	return store.SortedSparse(out)
}

// stringList returns a list value of strings.
func stringList(ss []string) *qc.Value {
	vs := make([]*qc.Value, len(ss))
	for i, s := range ss {
		vs[i] = qc.NewValueString(s)
	}
	return qc.NewValueFromList(vs...)
}

// stringsOf returns the strings of a list value, nil for an empty one.
func stringsOf(v *qc.Value) []string {
	var out []string
	for _, x := range v.GetListValue().GetValues() {
		out = append(out, x.GetStringValue())
	}
	return out
}

// intValue returns an integer payload value, also when it arrives as a
// double (a payload written through REST by another client).
func intValue(v *qc.Value) int64 {
	if d, ok := v.GetKind().(*qc.Value_DoubleValue); ok {
		return int64(d.DoubleValue)
	}
	return v.GetIntegerValue()
}
