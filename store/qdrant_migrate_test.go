package store_test

import (
	"testing"

	"github.com/qdrant/go-client/qdrant"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
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
	name := store.CollectionName(o.Model, o.Dim)
	c := rawClient(t, srv)
	idf := func() *qdrant.SparseVectorParams {
		return &qdrant.SparseVectorParams{Modifier: qdrant.Modifier_Idf.Enum()}
	}
	if err := c.CreateCollection(t.Context(), &qdrant.CreateCollection{
		CollectionName:      name,
		VectorsConfig:       qdrant.NewVectorsConfigMap(map[string]*qdrant.VectorParams{"dense": {Size: uint64(o.Dim), Distance: qdrant.Distance_Cosine}}),
		SparseVectorsConfig: qdrant.NewSparseVectorsConfig(map[string]*qdrant.SparseVectorParams{"bm25": idf(), "trigram": idf()}),
		Metadata:            qdrant.NewValueMap(map[string]any{"model": o.Model, "dim": o.Dim, "schema": store.QdrantSchema}),
	}); err != nil {
		t.Fatal(err)
	}
	old := map[string]qdrant.FieldType{
		"readers": qdrant.FieldType_FieldTypeKeyword, "file_id": qdrant.FieldType_FieldTypeInteger,
		"mime": qdrant.FieldType_FieldTypeKeyword, "type": qdrant.FieldType_FieldTypeKeyword,
		"mtime": qdrant.FieldType_FieldTypeInteger, "path_prefixes": qdrant.FieldType_FieldTypeKeyword, "reader_prefixes": qdrant.FieldType_FieldTypeKeyword,
		"hash": qdrant.FieldType_FieldTypeKeyword,
	}
	for f, typ := range old {
		if _, err := c.CreateFieldIndex(t.Context(), &qdrant.CreateFieldIndexCollection{CollectionName: name, FieldName: f, FieldType: typ.Enum()}); err != nil {
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
	if h := info.GetConfig().GetHnswConfig(); h.M == nil || h.GetM() != 0 || h.GetPayloadM() != store.TenantPayloadM {
		t.Errorf("hnsw after opening = %v, want m=0, payload_m=%d", h, store.TenantPayloadM)
	}
	for f := range old {
		p := info.GetPayloadSchema()[f].GetParams()
		var tenant, hnsw *bool
		if kw := p.GetKeywordIndexParams(); kw != nil {
			tenant, hnsw = kw.IsTenant, kw.EnableHnsw
		} else if in := p.GetIntegerIndexParams(); in != nil {
			hnsw = in.EnableHnsw
		}
		isReaders := f == store.TenantField
		if (tenant != nil && *tenant) != isReaders || hnsw == nil || *hnsw != isReaders {
			t.Errorf("index %q after opening: is_tenant %v, enable_hnsw %v; want %v, %v", f, tenant, hnsw, isReaders, isReaders)
		}
	}
	if st, err := s.Stats(t.Context()); err != nil || st.Points != 3 {
		t.Errorf("Stats = %+v, %v; want the 3 points", st, err)
	}

	updates := len(srv.RequestsFor(qdrant.Collections_Update_FullMethodName))
	indexes := len(srv.RequestsFor(qdrant.Points_CreateFieldIndex_FullMethodName))
	if updates != 1 {
		t.Errorf("%d collection updates, want 1", updates)
	}
	mustOpenQdrant(t, o)
	if n := len(srv.RequestsFor(qdrant.Collections_Update_FullMethodName)); n != updates {
		t.Errorf("opening the migrated collection again sent %d more updates", n-updates)
	}
	if n := len(srv.RequestsFor(qdrant.Points_CreateFieldIndex_FullMethodName)); n != indexes {
		t.Errorf("opening the migrated collection again sent %d more index requests", n-indexes)
	}
}
