package qdrant_test

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/qdrant"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
)

func TestOpenQdrantBootstrap(t *testing.T) {
	srv := qdranttest.NewServer(t)
	o := fakeOptions(srv)
	mustOpenQdrant(t, o)
	mustOpenQdrant(t, o) // idempotent

	if got := len(srv.RequestsFor(qc.Collections_Create_FullMethodName)); got != 1 {
		t.Errorf("opening twice sent %d creates, want 1", got)
	}
	indexes := map[string]qc.FieldType{}
	for _, m := range srv.RequestsFor(qc.Points_CreateFieldIndex_FullMethodName) {
		r := m.(*qc.CreateFieldIndexCollection)
		if _, dup := indexes[r.GetFieldName()]; dup {
			t.Errorf("index %q created twice", r.GetFieldName())
		}
		indexes[r.GetFieldName()] = r.GetFieldType()
		if tenant := r.GetFieldIndexParams().GetKeywordIndexParams().GetIsTenant(); tenant != (r.GetFieldName() == "readers") {
			t.Errorf("index %q is_tenant = %v", r.GetFieldName(), tenant)
		}
		// Qdrant's multitenancy guidance: HNSW links for the tenant index
		// only.
		p := r.GetFieldIndexParams()
		var hnsw *bool
		if kw := p.GetKeywordIndexParams(); kw != nil {
			hnsw = kw.EnableHnsw
		} else if in := p.GetIntegerIndexParams(); in != nil {
			hnsw = in.EnableHnsw
		}
		if hnsw == nil || *hnsw != (r.GetFieldName() == "readers") {
			t.Errorf("index %q enable_hnsw = %v, want %v", r.GetFieldName(), hnsw, r.GetFieldName() == "readers")
		}
	}
	want := map[string]qc.FieldType{
		"readers": qc.FieldType_FieldTypeKeyword, "file_id": qc.FieldType_FieldTypeInteger,
		"mime": qc.FieldType_FieldTypeKeyword, "type": qc.FieldType_FieldTypeKeyword,
		"mtime": qc.FieldType_FieldTypeInteger, "path_prefixes": qc.FieldType_FieldTypeKeyword, "reader_prefixes": qc.FieldType_FieldTypeKeyword,
		"hash": qc.FieldType_FieldTypeKeyword,
	}
	if len(indexes) != len(want) {
		t.Errorf("created indexes %v, want %v", indexes, want)
	}
	for f, typ := range want {
		if indexes[f] != typ {
			t.Errorf("index %q has type %v, want %v", f, indexes[f], typ)
		}
	}

	info, err := rawClient(t, srv).GetCollectionInfo(t.Context(), qdrant.CollectionName("nomic-embed-text:v1.5", 4))
	if err != nil {
		t.Fatal(err)
	}
	// One HNSW graph per reader, none for the whole collection.
	if h := info.GetConfig().GetHnswConfig(); h.M == nil || h.GetM() != 0 || h.GetPayloadM() != 16 {
		t.Errorf("hnsw config = %v, want m=0, payload_m=16", h)
	}
	params := info.GetConfig().GetParams()
	if d := params.GetVectorsConfig().GetParamsMap().GetMap()["dense"]; d.GetSize() != 4 || d.GetDistance() != qc.Distance_Cosine {
		t.Errorf("dense vector = %v, want size 4, Cosine", d)
	}
	for _, name := range []string{"bm25", "trigram"} {
		if sp := params.GetSparseVectorsConfig().GetMap()[name]; sp.GetModifier() != qc.Modifier_Idf {
			t.Errorf("sparse vector %s = %v, want the IDF modifier", name, sp)
		}
	}
	md := info.GetConfig().GetMetadata()
	if md["model"].GetStringValue() != "nomic-embed-text:v1.5" || md["dim"].GetIntegerValue() != 4 || md["schema"].GetIntegerValue() != qdrant.Schema {
		t.Errorf("metadata = %v", md)
	}
}

func TestOpenQdrantConcurrently(t *testing.T) {
	srv := qdranttest.NewServer(t)
	o := fakeOptions(srv)
	o.Logger = qdrantLogger(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s, err := qdrant.Open(t.Context(), o)
			if err == nil {
				err = s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open #%d = %v", i, err)
		}
	}
	names, err := rawClient(t, srv).ListCollections(t.Context())
	if err != nil || len(names) != 1 {
		t.Errorf("collections = %v, %v, want one", names, err)
	}
}

func TestOpenQdrantRefusesOtherCollections(t *testing.T) {
	const name = "shared_collection"
	good := func() *qc.CreateCollection {
		idf := func() *qc.SparseVectorParams {
			return &qc.SparseVectorParams{Modifier: qc.Modifier_Idf.Enum()}
		}
		return &qc.CreateCollection{
			CollectionName: name,
			VectorsConfig: qc.NewVectorsConfigMap(map[string]*qc.VectorParams{
				"dense": {Size: 4, Distance: qc.Distance_Cosine},
			}),
			SparseVectorsConfig: qc.NewSparseVectorsConfig(map[string]*qc.SparseVectorParams{"bm25": idf(), "trigram": idf()}),
			Metadata:            qc.NewValueMap(map[string]any{"model": "m", "dim": 4, "schema": qdrant.Schema}),
		}
	}
	tests := []struct {
		name   string
		create func(c *qc.CreateCollection)
		index  *qc.CreateFieldIndexCollection
		opts   qdrant.Options
		want   string // in the error message
	}{
		{"other dimension", nil, nil, qdrant.Options{Dim: 8, Model: "m"}, "dimension 4, not 8"},
		{"other model", nil, nil, qdrant.Options{Dim: 4, Model: "other"}, `model "m"`},
		{"euclid distance", func(c *qc.CreateCollection) {
			c.VectorsConfig.GetParamsMap().Map["dense"].Distance = qc.Distance_Euclid
		}, nil, qdrant.Options{Dim: 4}, "Euclid"},
		{"no dense vector", func(c *qc.CreateCollection) {
			c.VectorsConfig = qc.NewVectorsConfigMap(map[string]*qc.VectorParams{"other": {Size: 4, Distance: qc.Distance_Cosine}})
		}, nil, qdrant.Options{Dim: 4}, `no "dense" vector`},
		{"bm25 without idf", func(c *qc.CreateCollection) {
			c.SparseVectorsConfig.Map["bm25"] = &qc.SparseVectorParams{}
		}, nil, qdrant.Options{Dim: 4}, `"bm25"`},
		{"no trigram", func(c *qc.CreateCollection) {
			delete(c.SparseVectorsConfig.Map, "trigram")
		}, nil, qdrant.Options{Dim: 4}, `"trigram"`},
		{"no metadata", func(c *qc.CreateCollection) { c.Metadata = nil }, nil, qdrant.Options{Dim: 4}, "schema 0"},
		{"other schema", func(c *qc.CreateCollection) {
			c.Metadata["schema"] = qc.NewValueInt(qdrant.Schema + 1)
		}, nil, qdrant.Options{Dim: 4}, "schema"},
		{"readers indexed as text", nil, &qc.CreateFieldIndexCollection{
			CollectionName: name, FieldName: "readers", FieldType: qc.FieldType_FieldTypeText.Enum(),
		}, qdrant.Options{Dim: 4}, `"readers"`},
		{"absent, no dimension", func(*qc.CreateCollection) {}, nil, qdrant.Options{Collection: "absent"}, "no dimension"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := qdranttest.NewServer(t)
			c := rawClient(t, srv)
			req := good()
			if tt.create != nil {
				tt.create(req)
			}
			if err := c.CreateCollection(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if tt.index != nil {
				if _, err := c.CreateFieldIndex(t.Context(), tt.index); err != nil {
					t.Fatal(err)
				}
			}
			o := tt.opts
			o.URL, o.Logger = srv.URL(), qdrantLogger(t)
			if o.Collection == "" {
				o.Collection = name
			}
			s, err := qdrant.Open(t.Context(), o)
			if err == nil {
				s.Close()
			}
			if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), o.Collection) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open = %v, want EINVALID naming %q and saying %q", err, o.Collection, tt.want)
			}
		})
	}
}

func TestOpenQdrantAdoptsDimension(t *testing.T) {
	srv := qdranttest.NewServer(t)
	o := fakeOptions(srv)
	o.Collection = "mine"
	mustOpenQdrant(t, o)

	o.Dim, o.Model = 0, ""
	s := mustOpenQdrant(t, o)
	st, err := s.Stats(t.Context())
	if err != nil || st != (store.Stats{Dim: 4}) {
		t.Errorf("Stats() = %+v, %v, want dimension 4 and nothing stored", st, err)
	}
}

func TestOpenQdrantBadOptions(t *testing.T) {
	tests := []struct {
		name string
		o    qdrant.Options
	}{
		{"no scheme", qdrant.Options{URL: "localhost:6334", Dim: 4, Model: "m"}},
		{"grpc scheme", qdrant.Options{URL: "grpc://localhost:6334", Dim: 4, Model: "m"}},
		{"bad port", qdrant.Options{URL: "http://localhost:99999", Dim: 4, Model: "m"}},
		{"a path", qdrant.Options{URL: "http://localhost:6334/qdrant", Dim: 4, Model: "m"}},
		{"no host", qdrant.Options{URL: "http://:6334", Dim: 4, Model: "m"}},
		{"no model for the name", qdrant.Options{Dim: 4}},
		{"no dimension for the name", qdrant.Options{Model: "m"}},
		{"negative dimension", qdrant.Options{Collection: "c", Dim: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := qdrant.Open(t.Context(), tt.o)
			if err == nil {
				s.Close()
			}
			if hs.ErrorKind(err) != hs.EINVALID {
				t.Errorf("Open(%+v) = %v, want EINVALID", tt.o, err)
			}
		})
	}
}

func TestOpenQdrantUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	s, err := qdrant.Open(t.Context(), qdrant.Options{URL: "http://" + addr, Dim: 4, Model: "m", Logger: qdrantLogger(t)})
	if err == nil {
		s.Close()
	}
	if hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Errorf("Open(closed port) = %v, want EUNAVAILABLE", err)
	}
}

func TestQdrantCallTimeout(t *testing.T) {
	// A server that accepts connections and never answers: every call must
	// end at the per-call timeout.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	start := time.Now()
	s, err := qdrant.Open(t.Context(), qdrant.Options{
		URL: "http://" + ln.Addr().String(), Dim: 4, Model: "m", Timeout: 200 * time.Millisecond, Logger: qdrantLogger(t),
	})
	if err == nil {
		s.Close()
	}
	if hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Errorf("Open(silent server) = %v, want EUNAVAILABLE", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open took %v with a 200ms timeout", d)
	}
}

func TestQdrantAPIKey(t *testing.T) {
	srv := qdranttest.NewServer(t)
	srv.SetAPIKey("secret")
	o := fakeOptions(srv)
	o.Logger = qdrantLogger(t)
	s, err := qdrant.Open(t.Context(), o)
	if err == nil {
		s.Close()
	}
	if hs.ErrorKind(err) != hs.EUNAUTHORIZED {
		t.Errorf("Open without the API key = %v, want EUNAUTHORIZED", err)
	}
	o.APIKey = "secret"
	qs := mustOpenQdrant(t, o)
	if err := qs.Health(t.Context()); err != nil {
		t.Errorf("Health() with the API key = %v", err)
	}
	if _, err := qs.Files(t.Context(), "alice"); err != nil {
		t.Errorf("Files() with the API key = %v", err)
	}
}

func TestCollectionName(t *testing.T) {
	tests := []struct {
		model string
		dim   int
		want  string
	}{
		{"nomic-embed-text", 768, "hybrid_search_nomic_embed_text_768"},
		{"nomic-embed-text:v1.5", 768, "hybrid_search_nomic_embed_text_v1_5_768"},
		{"BAAI/bge-M3", 1024, "hybrid_search_baai_bge_m3_1024"},
		{"--x--", 4, "hybrid_search_x_4"},
		{"", 4, "hybrid_search_4"},
	}
	for _, tt := range tests {
		if got := qdrant.CollectionName(tt.model, tt.dim); got != tt.want {
			t.Errorf("CollectionName(%q, %d) = %q, want %q", tt.model, tt.dim, got, tt.want)
		}
	}
}

// rawClient returns a go-client connected to the fake, closed at cleanup.
func rawClient(tb testing.TB, srv *qdranttest.Server) *qc.Client {
	tb.Helper()
	host, port, _ := splitURL(tb, srv.URL())
	c, err := qc.NewClient(&qc.Config{Host: host, Port: port, SkipCompatibilityCheck: true, PoolSize: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}
