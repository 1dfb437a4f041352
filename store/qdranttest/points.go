package qdranttest

//lint:file-ignore SA1019 older clients send the deprecated vector fields, which Qdrant still accepts

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"github.com/hybrid-search/hybridsearch/analysis"
	"maps"
	"slices"
	"strings"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/protobuf/proto"
)

// point is one stored point. Its vectors and payload values are never
// changed in place, so responses may share them.
type point struct {
	id      *qdrant.PointId
	key     string // idKey: orders points as Qdrant does, numbers before UUIDs
	payload map[string]*qdrant.Value
	dense   map[string][]float32
	sparse  map[string]sparseVector
}

// sparseVector is a stored sparse vector, sorted by index.
type sparseVector struct {
	indices []uint32
	values  []float32
}

// values returns the payload values at key, the elements of an array one
// by one, as Qdrant matches conditions against arrays.
func (p *point) values(key string) []*qdrant.Value {
	v := p.payload[key]
	if l, ok := v.GetKind().(*qdrant.Value_ListValue); ok {
		return l.ListValue.GetValues()
	}
	if v == nil {
		return nil
	}
	return []*qdrant.Value{v}
}

// pointsService serves the Points service.
type pointsService struct {
	qdrant.UnimplementedPointsServer
	s *Server
}

// Upsert inserts or replaces points. The whole batch is checked before
// any point is stored.
func (ps pointsService) Upsert(_ context.Context, req *qdrant.UpsertPoints) (*qdrant.PointsOperationResponse, error) {
	s := ps.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if req.UpdateFilter != nil || req.GetUpdateMode() != qdrant.UpdateMode_Upsert || req.ShardKeySelector != nil {
		return nil, unimplemented("conditional upsert, update modes and shard keys")
	}
	points := make([]*point, len(req.GetPoints()))
	for i, in := range req.GetPoints() {
		if points[i], err = c.newPoint(in); err != nil {
			return nil, err
		}
	}
	for _, p := range points {
		c.points[p.key] = p
	}
	return s.updated(), nil
}

// newPoint checks a point against the collection's vectors and copies it.
func (c *collection) newPoint(in *qdrant.PointStruct) (*point, error) {
	key, id, err := idKey(in.GetId())
	if err != nil {
		return nil, err
	}
	p := &point{id: id, key: key, payload: make(map[string]*qdrant.Value), dense: map[string][]float32{}, sparse: map[string]sparseVector{}}
	for k, v := range in.GetPayload() {
		p.payload[k] = proto.Clone(v).(*qdrant.Value)
	}
	named := map[string]*qdrant.Vector{}
	switch v := in.GetVectors().GetVectorsOptions().(type) {
	case *qdrant.Vectors_Vector:
		named[""] = v.Vector
	case *qdrant.Vectors_Vectors:
		named = v.Vectors.GetVectors()
	}
	for name, v := range named {
		if err := c.setVector(p, name, v); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// setVector checks one named vector and stores a copy in p: dense vectors
// normalised for Cosine, sparse vectors sorted.
func (c *collection) setVector(p *point, name string, v *qdrant.Vector) error {
	var dense []float32
	var sp *qdrant.SparseVector
	switch x := v.GetVector().(type) {
	case *qdrant.Vector_Dense:
		dense = x.Dense.GetData()
	case *qdrant.Vector_Sparse:
		sp = x.Sparse
	case nil: // the deprecated fields
		if v.GetIndices() != nil { //nolint:staticcheck // old clients send these
			sp = &qdrant.SparseVector{Indices: v.GetIndices().GetData(), Values: v.GetData()} //nolint:staticcheck // see above
		} else {
			dense = v.GetData() //nolint:staticcheck // see above
		}
	default:
		return unimplemented("vector kind %T", x)
	}
	if sp != nil {
		if c.sparse[name] == nil {
			return invalid("Not existing vector name error: %s", name)
		}
		sv, err := checkSparse(sp.GetIndices(), sp.GetValues())
		if err != nil {
			return err
		}
		p.sparse[name] = sv
		return nil
	}
	params := c.dense[name]
	if params == nil {
		return invalid("Not existing vector name error: %s", name)
	}
	if uint64(len(dense)) != params.GetSize() {
		return invalid("Vector dimension error: expected dim: %d, got %d", params.GetSize(), len(dense))
	}
	dense = slices.Clone(dense)
	if params.GetDistance() == qdrant.Distance_Cosine {
		analysis.Normalize(dense)
	}
	p.dense[name] = dense
	return nil
}

// checkSparse returns a sorted copy of a sparse vector, or Qdrant's error
// for mismatched lengths or a repeated index.
func checkSparse(indices []uint32, values []float32) (sparseVector, error) {
	if len(indices) != len(values) {
		return sparseVector{}, invalid("Sparse vector has %d indices and %d values", len(indices), len(values))
	}
	order := make([]int, len(indices))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(indices[a], indices[b]) })
	sv := sparseVector{indices: make([]uint32, len(order)), values: make([]float32, len(order))}
	for k, i := range order {
		sv.indices[k], sv.values[k] = indices[i], values[i]
		if k > 0 && sv.indices[k] == sv.indices[k-1] {
			return sparseVector{}, invalid("Sparse vector indices must be unique, %d repeats", sv.indices[k])
		}
	}
	return sv, nil
}

// Delete deletes the points a selector picks.
func (ps pointsService) Delete(_ context.Context, req *qdrant.DeletePoints) (*qdrant.PointsOperationResponse, error) {
	s := ps.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	picked, err := c.selectPoints(req.GetPoints())
	if err != nil {
		return nil, err
	}
	for _, p := range picked {
		delete(c.points, p.key)
	}
	return s.updated(), nil
}

// SetPayload sets payload keys on the points a selector picks, keeping
// their other keys.
func (ps pointsService) SetPayload(_ context.Context, req *qdrant.SetPayloadPoints) (*qdrant.PointsOperationResponse, error) {
	s := ps.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if req.Key != nil {
		return nil, unimplemented("set payload by nested key")
	}
	picked, err := c.selectPoints(req.GetPointsSelector())
	if err != nil {
		return nil, err
	}
	for _, p := range picked {
		for k, v := range req.GetPayload() {
			p.payload[k] = proto.Clone(v).(*qdrant.Value)
		}
	}
	return s.updated(), nil
}

// selectPoints returns the existing points a selector picks, by ids or by
// filter.
func (c *collection) selectPoints(sel *qdrant.PointsSelector) ([]*point, error) {
	switch x := sel.GetPointsSelectorOneOf().(type) {
	case *qdrant.PointsSelector_Points:
		var out []*point
		for _, id := range x.Points.GetIds() {
			key, _, err := idKey(id)
			if err != nil {
				return nil, err
			}
			if p := c.points[key]; p != nil {
				out = append(out, p)
			}
		}
		return out, nil
	case *qdrant.PointsSelector_Filter:
		return c.matching(x.Filter)
	}
	return nil, invalid("points selector is required")
}

// matching returns the points f matches, ordered by id.
func (c *collection) matching(f *qdrant.Filter) ([]*point, error) {
	if err := checkFilter(f); err != nil {
		return nil, err
	}
	var out []*point
	ids := compileIDs(f)
	for _, key := range slices.Sorted(maps.Keys(c.points)) {
		if p := c.points[key]; matchFilter(f, p, ids) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Scroll returns a page of the points a filter matches, ordered by id,
// from the offset id on, and the id that starts the next page.
func (ps pointsService) Scroll(_ context.Context, req *qdrant.ScrollPoints) (*qdrant.ScrollResponse, error) {
	s := ps.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if req.OrderBy != nil || req.ShardKeySelector != nil {
		return nil, unimplemented("scroll with order_by or shard keys")
	}
	pts, err := c.matching(req.GetFilter())
	if err != nil {
		return nil, err
	}
	if req.Offset != nil {
		key, _, err := idKey(req.Offset)
		if err != nil {
			return nil, err
		}
		i, _ := slices.BinarySearchFunc(pts, key, func(p *point, k string) int { return strings.Compare(p.key, k) })
		pts = pts[i:]
	}
	limit := int(cmp.Or(req.GetLimit(), 10))
	resp := &qdrant.ScrollResponse{}
	if len(pts) > limit {
		resp.NextPageOffset = pts[limit].id
		pts = pts[:limit]
	}
	for _, p := range pts {
		resp.Result = append(resp.Result, &qdrant.RetrievedPoint{
			Id:      p.id,
			Payload: p.selectPayload(req.GetWithPayload(), true),
			Vectors: p.selectVectors(req.GetWithVectors()),
		})
	}
	return resp, nil
}

// Count counts the points a filter matches.
func (ps pointsService) Count(_ context.Context, req *qdrant.CountPoints) (*qdrant.CountResponse, error) {
	s := ps.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	pts, err := c.matching(req.GetFilter())
	if err != nil {
		return nil, err
	}
	return &qdrant.CountResponse{Result: &qdrant.CountResult{Count: uint64(len(pts))}}, nil
}

// CreateFieldIndex creates or replaces a payload index.
func (ps pointsService) CreateFieldIndex(_ context.Context, req *qdrant.CreateFieldIndexCollection) (*qdrant.PointsOperationResponse, error) {
	s := ps.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if req.GetFieldName() == "" || req.FieldType == nil {
		return nil, invalid("field name and field type are required")
	}
	typ, ok := schemaType(req.GetFieldType())
	if !ok {
		return nil, invalid("unknown field type %v", req.GetFieldType())
	}
	info := &qdrant.PayloadSchemaInfo{DataType: typ}
	if req.FieldIndexParams != nil {
		info.Params = proto.Clone(req.FieldIndexParams).(*qdrant.PayloadIndexParams)
	}
	c.indexes[req.GetFieldName()] = info
	return s.updated(), nil
}

// Facet counts the points per value of a payload field among the points a
// filter matches, most frequent first. Like Qdrant it needs a keyword,
// integer or bool index on the field.
func (ps pointsService) Facet(_ context.Context, req *qdrant.FacetCounts) (*qdrant.FacetResponse, error) {
	s := ps.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	key := req.GetKey()
	switch c.indexes[key].GetDataType() {
	case qdrant.PayloadSchemaType_Keyword, qdrant.PayloadSchemaType_Integer, qdrant.PayloadSchemaType_Bool:
	default:
		return nil, invalid("Index required but not found for %q of one of the following types: [keyword, integer, bool]", key)
	}
	pts, err := c.matching(req.GetFilter())
	if err != nil {
		return nil, err
	}
	counts := map[string]*qdrant.FacetHit{}
	for _, p := range pts {
		seen := map[string]bool{}
		for _, v := range p.values(key) {
			fv, k := facetValue(v)
			if fv == nil || seen[k] {
				continue
			}
			seen[k] = true
			if counts[k] == nil {
				counts[k] = &qdrant.FacetHit{Value: fv}
			}
			counts[k].Count++
		}
	}
	keys := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b].Count, counts[a].Count), cmp.Compare(a, b))
	})
	resp := &qdrant.FacetResponse{}
	for _, k := range keys[:min(len(keys), int(cmp.Or(req.GetLimit(), 10)))] {
		resp.Hits = append(resp.Hits, counts[k])
	}
	return resp, nil
}

// facetValue returns the facet value of a payload value and a key that
// tells values apart, or nil for a value that is not a string, integer or
// bool.
func facetValue(v *qdrant.Value) (*qdrant.FacetValue, string) {
	switch x := v.GetKind().(type) {
	case *qdrant.Value_StringValue:
		return &qdrant.FacetValue{Variant: &qdrant.FacetValue_StringValue{StringValue: x.StringValue}}, "s" + x.StringValue
	case *qdrant.Value_IntegerValue:
		return &qdrant.FacetValue{Variant: &qdrant.FacetValue_IntegerValue{IntegerValue: x.IntegerValue}}, fmt.Sprintf("i%d", x.IntegerValue)
	case *qdrant.Value_BoolValue:
		return &qdrant.FacetValue{Variant: &qdrant.FacetValue_BoolValue{BoolValue: x.BoolValue}}, fmt.Sprintf("b%t", x.BoolValue)
	}
	return nil, ""
}

// selectPayload returns the payload a selector asks for; def applies when
// sel is nil.
func (p *point) selectPayload(sel *qdrant.WithPayloadSelector, def bool) map[string]*qdrant.Value {
	out := map[string]*qdrant.Value{}
	switch x := sel.GetSelectorOptions().(type) {
	case *qdrant.WithPayloadSelector_Enable:
		def = x.Enable
	case *qdrant.WithPayloadSelector_Include:
		for _, k := range x.Include.GetFields() {
			if v, ok := p.payload[k]; ok {
				out[k] = v
			}
		}
		return out
	case *qdrant.WithPayloadSelector_Exclude:
		maps.Copy(out, p.payload)
		for _, k := range x.Exclude.GetFields() {
			delete(out, k)
		}
		return out
	}
	if def {
		maps.Copy(out, p.payload)
	}
	return out
}

// selectVectors returns the vectors a selector asks for, nil for none.
func (p *point) selectVectors(sel *qdrant.WithVectorsSelector) *qdrant.VectorsOutput {
	want := func(string) bool { return false }
	switch x := sel.GetSelectorOptions().(type) {
	case *qdrant.WithVectorsSelector_Enable:
		want = func(string) bool { return x.Enable }
	case *qdrant.WithVectorsSelector_Include:
		want = func(name string) bool { return slices.Contains(x.Include.GetNames(), name) }
	}
	m := map[string]*qdrant.VectorOutput{}
	for name, v := range p.dense {
		if want(name) {
			m[name] = &qdrant.VectorOutput{Vector: &qdrant.VectorOutput_Dense{Dense: &qdrant.DenseVector{Data: v}}}
		}
	}
	for name, v := range p.sparse {
		if want(name) {
			m[name] = &qdrant.VectorOutput{Vector: &qdrant.VectorOutput_Sparse{Sparse: &qdrant.SparseVector{Indices: v.indices, Values: v.values}}}
		}
	}
	if len(m) == 0 {
		return nil
	}
	if v, ok := m[""]; ok && len(m) == 1 {
		return &qdrant.VectorsOutput{VectorsOptions: &qdrant.VectorsOutput_Vector{Vector: v}}
	}
	return &qdrant.VectorsOutput{VectorsOptions: &qdrant.VectorsOutput_Vectors{Vectors: &qdrant.NamedVectorsOutput{Vectors: m}}}
}

// idKey returns the sort key and canonical form of a point id: numbers
// first, in numeric order, then UUIDs in lowercase hyphenated form.
func idKey(id *qdrant.PointId) (string, *qdrant.PointId, error) {
	switch x := id.GetPointIdOptions().(type) {
	case *qdrant.PointId_Num:
		return fmt.Sprintf("n%020d", x.Num), qdrant.NewIDNum(x.Num), nil
	case *qdrant.PointId_Uuid:
		u, ok := canonicalUUID(x.Uuid)
		if !ok {
			return "", nil, invalid("Unable to parse UUID: %s", x.Uuid)
		}
		return "u" + u, qdrant.NewIDUUID(u), nil
	}
	return "", nil, invalid("point id is required")
}

// canonicalUUID returns s, a UUID in hyphenated or simple form, in
// lowercase hyphenated form.
func canonicalUUID(s string) (string, bool) {
	if len(s) == 36 {
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return "", false
		}
		s = strings.ReplaceAll(s, "-", "")
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 16 {
		return "", false
	}
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32], true
}
