package qdrant_test

import (
	"testing"

	qc "github.com/qdrant/go-client/qdrant"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store/qdrant"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
)

// TestOpenQdrantMigratesOldCollection: a collection made before the tenant
// layout (Qdrant's default HNSW, m=16 and no payload_m; payload indexes
// without parameters) is moved to it in place when the store opens: m=0
// and payload_m=16 by UpdateCollection, the readers index made again as
// the tenant index, the others without HNSW links. Its points stay.
// Opening it again changes nothing.
func TestOpenQdrantMigratesOldCollection(t *testing.T) {
	srv := qdranttest.NewServer(t)
	o := fakeOptions(srv)
	o.Logger = qdrantLogger(t)
	name := qdrant.CollectionName(o.Model, o.Dim)
	c := rawClient(t, srv)
	idf := func() *qc.SparseVectorParams {
		return &qc.SparseVectorParams{Modifier: qc.Modifier_Idf.Enum()}
	}
	if err := c.CreateCollection(t.Context(), &qc.CreateCollection{
		CollectionName:      name,
		VectorsConfig:       qc.NewVectorsConfigMap(map[string]*qc.VectorParams{"dense": {Size: uint64(o.Dim), Distance: qc.Distance_Cosine}}),
		SparseVectorsConfig: qc.NewSparseVectorsConfig(map[string]*qc.SparseVectorParams{"bm25": idf(), "trigram": idf()}),
		Metadata:            qc.NewValueMap(map[string]any{"model": o.Model, "dim": o.Dim, "schema": qdrant.Schema}),
	}); err != nil {
		t.Fatal(err)
	}
	old := map[string]qc.FieldType{
		"readers": qc.FieldType_FieldTypeKeyword, "file_id": qc.FieldType_FieldTypeInteger,
		"mime": qc.FieldType_FieldTypeKeyword, "type": qc.FieldType_FieldTypeKeyword,
		"mtime": qc.FieldType_FieldTypeInteger, "path_prefixes": qc.FieldType_FieldTypeKeyword, "reader_prefixes": qc.FieldType_FieldTypeKeyword,
		"hash": qc.FieldType_FieldTypeKeyword,
	}
	for f, typ := range old {
		if _, err := c.CreateFieldIndex(t.Context(), &qc.CreateFieldIndexCollection{CollectionName: name, FieldName: f, FieldType: typ.Enum()}); err != nil {
			t.Fatal(err)
		}
	}
	info, err := c.GetCollectionInfo(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	if h := info.GetConfig().GetHnswConfig(); h.GetM() != 16 || h.PayloadM != nil {
		t.Fatalf("the old collection's hnsw = %v, want Qdrant's default m=16", h)
	}
	s := mustOpenQdrant(t, o)
	meta := hs.FileMeta{ID: 1, Path: "/a.md", Readers: []hs.UserID{"alice"}}
	mustWriteQ(t, s, meta, qpoint(meta, 0, []float32{1, 0, 0, 0}), qpoint(meta, 1, []float32{0, 1, 0, 0}), qpoint(meta, 2, []float32{0, 0, 1, 0}))

	info, err = c.GetCollectionInfo(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	if h := info.GetConfig().GetHnswConfig(); h.M == nil || h.GetM() != 0 || h.GetPayloadM() != qdrant.TenantPayloadM {
		t.Errorf("hnsw after opening = %v, want m=0, payload_m=%d", h, qdrant.TenantPayloadM)
	}
	for f := range old {
		p := info.GetPayloadSchema()[f].GetParams()
		var tenant, hnsw *bool
		if kw := p.GetKeywordIndexParams(); kw != nil {
			tenant, hnsw = kw.IsTenant, kw.EnableHnsw
		} else if in := p.GetIntegerIndexParams(); in != nil {
			hnsw = in.EnableHnsw
		}
		isReaders := f == qdrant.TenantField
		if (tenant != nil && *tenant) != isReaders || hnsw == nil || *hnsw != isReaders {
			t.Errorf("index %q after opening: is_tenant %v, enable_hnsw %v; want %v, %v", f, tenant, hnsw, isReaders, isReaders)
		}
	}
	if st, err := s.Stats(t.Context()); err != nil || st.Points != 3 {
		t.Errorf("Stats = %+v, %v; want the 3 points", st, err)
	}

	updates := len(srv.RequestsFor(qc.Collections_Update_FullMethodName))
	indexes := len(srv.RequestsFor(qc.Points_CreateFieldIndex_FullMethodName))
	if updates != 1 {
		t.Errorf("%d collection updates, want 1", updates)
	}
	mustOpenQdrant(t, o)
	if n := len(srv.RequestsFor(qc.Collections_Update_FullMethodName)); n != updates {
		t.Errorf("opening the migrated collection again sent %d more updates", n-updates)
	}
	if n := len(srv.RequestsFor(qc.Points_CreateFieldIndex_FullMethodName)); n != indexes {
		t.Errorf("opening the migrated collection again sent %d more index requests", n-indexes)
	}
}
