package qdranttest

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/protobuf/proto"
)

// collection is one collection's configuration and points.
type collection struct {
	dense    map[string]*qdrant.VectorParams       // "" is the unnamed vector
	sparse   map[string]*qdrant.SparseVectorParams // by name
	metadata map[string]*qdrant.Value
	hnsw     *qdrant.HnswConfigDiff               // as created and updated; unset fields take Qdrant's defaults
	indexes  map[string]*qdrant.PayloadSchemaInfo // payload indexes by field
	points   map[string]*point                    // by idKey
	named    bool                                 // dense vectors configured by name
}

// collectionsService serves the Collections service.
type collectionsService struct {
	qdrant.UnimplementedCollectionsServer
	s *Server
}

// Create creates a collection; an existing name is an InvalidArgument
// error, as in Qdrant.
func (cs collectionsService) Create(_ context.Context, req *qdrant.CreateCollection) (*qdrant.CollectionOperationResponse, error) {
	s := cs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	name := req.GetCollectionName()
	if name == "" || strings.ContainsAny(name, "/\\\x00") {
		return nil, invalid("collection name %q is not valid", name)
	}
	if s.collections[name] != nil {
		return nil, invalid("Collection `%s` already exists!", name)
	}
	c := &collection{
		dense:    make(map[string]*qdrant.VectorParams),
		sparse:   make(map[string]*qdrant.SparseVectorParams),
		metadata: make(map[string]*qdrant.Value),
		indexes:  make(map[string]*qdrant.PayloadSchemaInfo),
		points:   make(map[string]*point),
		hnsw:     &qdrant.HnswConfigDiff{M: qdrant.PtrOf(uint64(16)), EfConstruct: qdrant.PtrOf(uint64(100)), FullScanThreshold: qdrant.PtrOf(uint64(10000))},
	}
	if h := req.GetHnswConfig(); h != nil {
		proto.Merge(c.hnsw, h)
	}
	switch vc := req.GetVectorsConfig().GetConfig().(type) {
	case *qdrant.VectorsConfig_Params:
		c.dense[""] = vc.Params
	case *qdrant.VectorsConfig_ParamsMap:
		c.named = true
		maps.Copy(c.dense, vc.ParamsMap.GetMap())
	}
	for name, p := range c.dense {
		switch {
		case p.GetSize() == 0:
			return nil, invalid("vector %q: size must be positive", name)
		case p.GetDistance() == qdrant.Distance_UnknownDistance:
			return nil, invalid("vector %q: distance is required", name)
		case p.MultivectorConfig != nil:
			return nil, unimplemented("multivector config")
		}
		c.dense[name] = proto.Clone(p).(*qdrant.VectorParams)
	}
	for name, p := range req.GetSparseVectorsConfig().GetMap() {
		if c.dense[name] != nil {
			return nil, invalid("vector name %q is used twice", name)
		}
		c.sparse[name] = proto.Clone(p).(*qdrant.SparseVectorParams)
	}
	for k, v := range req.GetMetadata() {
		c.metadata[k] = proto.Clone(v).(*qdrant.Value)
	}
	s.collections[name] = c
	return &qdrant.CollectionOperationResponse{Result: true}, nil
}

// Update changes a collection's parameters in place, as Qdrant's
// UpdateCollection (PATCH /collections/{name}): the hnsw_config diff's set
// fields replace the collection's, metadata is merged into what is stored
// (api.qdrant.tech, update-collection, v1.17.x). Qdrant then rebuilds
// the HNSW indexes in the background; the fake, which searches exactly,
// only records the settings. The other parts of the request (optimizers,
// params, vectors, quantization, strict mode) are not modelled and
// refused.
func (cs collectionsService) Update(_ context.Context, req *qdrant.UpdateCollection) (*qdrant.CollectionOperationResponse, error) {
	s := cs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	if req.OptimizersConfig != nil || req.Params != nil || req.VectorsConfig != nil || req.QuantizationConfig != nil ||
		req.SparseVectorsConfig != nil || req.StrictModeConfig != nil {
		return nil, unimplemented("update of anything but hnsw_config and metadata")
	}
	if h := req.GetHnswConfig(); h != nil {
		proto.Merge(c.hnsw, h)
	}
	for k, v := range req.GetMetadata() {
		c.metadata[k] = proto.Clone(v).(*qdrant.Value)
	}
	return &qdrant.CollectionOperationResponse{Result: true}, nil
}

// Get returns a collection's configuration, metadata, payload indexes and
// point count.
func (cs collectionsService) Get(_ context.Context, req *qdrant.GetCollectionInfoRequest) (*qdrant.GetCollectionInfoResponse, error) {
	s := cs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	params := &qdrant.CollectionParams{ShardNumber: 1, ReplicationFactor: qdrant.PtrOf(uint32(1))}
	if c.named {
		m := make(map[string]*qdrant.VectorParams, len(c.dense))
		for k, v := range c.dense {
			m[k] = proto.Clone(v).(*qdrant.VectorParams)
		}
		params.VectorsConfig = qdrant.NewVectorsConfigMap(m)
	} else if p := c.dense[""]; p != nil {
		params.VectorsConfig = qdrant.NewVectorsConfig(proto.Clone(p).(*qdrant.VectorParams))
	}
	if len(c.sparse) > 0 {
		m := make(map[string]*qdrant.SparseVectorParams, len(c.sparse))
		for k, v := range c.sparse {
			m[k] = proto.Clone(v).(*qdrant.SparseVectorParams)
		}
		params.SparseVectorsConfig = qdrant.NewSparseVectorsConfig(m)
	}
	md := make(map[string]*qdrant.Value, len(c.metadata))
	for k, v := range c.metadata {
		md[k] = proto.Clone(v).(*qdrant.Value)
	}
	schema := make(map[string]*qdrant.PayloadSchemaInfo, len(c.indexes))
	for field, ix := range c.indexes {
		info := proto.Clone(ix).(*qdrant.PayloadSchemaInfo)
		n := uint64(0)
		for _, p := range c.points {
			if len(p.values(field)) > 0 {
				n++
			}
		}
		info.Points = qdrant.PtrOf(n)
		schema[field] = info
	}
	n := uint64(len(c.points))
	return &qdrant.GetCollectionInfoResponse{Result: &qdrant.CollectionInfo{
		Status:          qdrant.CollectionStatus_Green,
		OptimizerStatus: &qdrant.OptimizerStatus{Ok: true},
		SegmentsCount:   1,
		Config: &qdrant.CollectionConfig{
			Params:          params,
			HnswConfig:      proto.Clone(c.hnsw).(*qdrant.HnswConfigDiff),
			OptimizerConfig: &qdrant.OptimizersConfigDiff{},
			WalConfig:       &qdrant.WalConfigDiff{},
			Metadata:        md,
		},
		PayloadSchema:       schema,
		PointsCount:         qdrant.PtrOf(n),
		IndexedVectorsCount: qdrant.PtrOf(uint64(0)),
	}}, nil
}

// CollectionExists reports whether a collection exists.
func (cs collectionsService) CollectionExists(_ context.Context, req *qdrant.CollectionExistsRequest) (*qdrant.CollectionExistsResponse, error) {
	s := cs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.collections[req.GetCollectionName()]
	return &qdrant.CollectionExistsResponse{Result: &qdrant.CollectionExists{Exists: ok}}, nil
}

// List returns the collections' names, sorted.
func (cs collectionsService) List(context.Context, *qdrant.ListCollectionsRequest) (*qdrant.ListCollectionsResponse, error) {
	s := cs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*qdrant.CollectionDescription
	for _, name := range slices.Sorted(maps.Keys(s.collections)) {
		out = append(out, &qdrant.CollectionDescription{Name: name})
	}
	return &qdrant.ListCollectionsResponse{Collections: out}, nil
}

// Delete deletes a collection; the result says whether it existed.
func (cs collectionsService) Delete(_ context.Context, req *qdrant.DeleteCollection) (*qdrant.CollectionOperationResponse, error) {
	s := cs.s
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.collections[req.GetCollectionName()]
	delete(s.collections, req.GetCollectionName())
	return &qdrant.CollectionOperationResponse{Result: ok}, nil
}

// schemaType returns the data type Get reports for a field type of
// CreateFieldIndex.
func schemaType(t qdrant.FieldType) (qdrant.PayloadSchemaType, bool) {
	switch t {
	case qdrant.FieldType_FieldTypeKeyword:
		return qdrant.PayloadSchemaType_Keyword, true
	case qdrant.FieldType_FieldTypeInteger:
		return qdrant.PayloadSchemaType_Integer, true
	case qdrant.FieldType_FieldTypeFloat:
		return qdrant.PayloadSchemaType_Float, true
	case qdrant.FieldType_FieldTypeGeo:
		return qdrant.PayloadSchemaType_Geo, true
	case qdrant.FieldType_FieldTypeText:
		return qdrant.PayloadSchemaType_Text, true
	case qdrant.FieldType_FieldTypeBool:
		return qdrant.PayloadSchemaType_Bool, true
	case qdrant.FieldType_FieldTypeDatetime:
		return qdrant.PayloadSchemaType_Datetime, true
	case qdrant.FieldType_FieldTypeUuid:
		return qdrant.PayloadSchemaType_Uuid, true
	}
	return qdrant.PayloadSchemaType_UnknownType, false
}
