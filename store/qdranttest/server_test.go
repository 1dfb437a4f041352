package qdranttest_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
)

func TestRecordsAndInjectsFaults(t *testing.T) {
	srv := qdranttest.NewServer(t)
	c := newClient(t, srv)
	srv.FailNext(qdrant.Qdrant_HealthCheck_FullMethodName, codes.Unavailable)
	srv.FailNext(qdrant.Qdrant_HealthCheck_FullMethodName, codes.DeadlineExceeded)
	for _, want := range []codes.Code{codes.Unavailable, codes.DeadlineExceeded, codes.OK} {
		r, err := c.HealthCheck(t.Context())
		if got := status.Code(err); got != want {
			t.Errorf("HealthCheck = %v, want code %v", err, want)
		}
		if err == nil && r.GetVersion() != qdranttest.Version {
			t.Errorf("version = %q, want %q", r.GetVersion(), qdranttest.Version)
		}
	}
	if _, err := c.CollectionExists(t.Context(), "c"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	var methods []string
	for _, r := range reqs {
		methods = append(methods, r.Method)
	}
	want := []string{
		qdrant.Qdrant_HealthCheck_FullMethodName, qdrant.Qdrant_HealthCheck_FullMethodName,
		qdrant.Qdrant_HealthCheck_FullMethodName, qdrant.Collections_CollectionExists_FullMethodName,
	}
	if !slices.Equal(methods, want) {
		t.Errorf("recorded %v, want %v", methods, want)
	}
	if r, ok := reqs[3].Message.(*qdrant.CollectionExistsRequest); !ok || r.GetCollectionName() != "c" {
		t.Errorf("recorded message %v, want the request", reqs[3].Message)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("FailNext(unknown method) did not panic")
		}
	}()
	srv.FailNext("/qdrant.Points/Nope", codes.Internal)
}

func TestUnimplementedFailsLoudly(t *testing.T) {
	srv := qdranttest.NewServer(t)
	c := newClient(t, srv)
	createCollection(t, c, "c", 2, qdrant.Distance_Cosine)
	scroll := func(cond *qdrant.Condition) error {
		_, err := c.Scroll(t.Context(), &qdrant.ScrollPoints{CollectionName: "c", Filter: &qdrant.Filter{Should: []*qdrant.Condition{cond}}})
		return err
	}
	tests := []struct {
		name string
		call func() error
	}{
		{"get points", func() error {
			_, err := c.Get(t.Context(), &qdrant.GetPoints{CollectionName: "c", Ids: []*qdrant.PointId{qdrant.NewIDNum(1)}})
			return err
		}},
		{"text match", func() error { return scroll(qdrant.NewMatchText("text", "x")) }},
		{"is empty", func() error { return scroll(qdrant.NewIsEmpty("readers")) }},
		{"except keywords", func() error { return scroll(qdrant.NewMatchExcept("type", "x")) }},
		{"nested key", func() error { return scroll(qdrant.NewMatchKeyword("a.b", "x")) }},
		{"fusion query", func() error {
			_, err := c.Query(t.Context(), &qdrant.QueryPoints{CollectionName: "c", Query: qdrant.NewQueryFusion(qdrant.Fusion_RRF)})
			return err
		}},
		{"prefetch", func() error {
			_, err := c.Query(t.Context(), &qdrant.QueryPoints{CollectionName: "c", Query: qdrant.NewQueryDense([]float32{1, 0}),
				Prefetch: []*qdrant.PrefetchQuery{{Query: qdrant.NewQueryDense([]float32{1, 0})}}})
			return err
		}},
		{"document vector", func() error {
			_, err := c.Upsert(t.Context(), &qdrant.UpsertPoints{CollectionName: "c", Points: []*qdrant.PointStruct{{
				Id: qdrant.NewIDNum(1), Vectors: qdrant.NewVectorsDocument(&qdrant.Document{Text: "x", Model: "qdrant/bm25"}),
			}}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); status.Code(err) != codes.Unimplemented {
				t.Errorf("error = %v, want Unimplemented", err)
			}
		})
	}
}

func TestCollections(t *testing.T) {
	srv := qdranttest.NewServer(t)
	c := newClient(t, srv)
	ctx := t.Context()
	req := &qdrant.CreateCollection{
		CollectionName: "c",
		VectorsConfig:  qdrant.NewVectorsConfigMap(map[string]*qdrant.VectorParams{"dense": {Size: 3, Distance: qdrant.Distance_Cosine}}),
		SparseVectorsConfig: qdrant.NewSparseVectorsConfig(map[string]*qdrant.SparseVectorParams{
			"bm25": {Modifier: qdrant.Modifier_Idf.Enum()},
		}),
		Metadata: qdrant.NewValueMap(map[string]any{"model": "m"}),
	}
	if err := c.CreateCollection(ctx, req); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateCollection(ctx, req); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("creating it again = %v, want InvalidArgument, already exists", err)
	}
	bad := &qdrant.CreateCollection{CollectionName: "d", VectorsConfig: qdrant.NewVectorsConfig(&qdrant.VectorParams{Size: 0, Distance: qdrant.Distance_Dot})}
	if err := c.CreateCollection(ctx, bad); status.Code(err) != codes.InvalidArgument {
		t.Errorf("creating size 0 = %v, want InvalidArgument", err)
	}
	if _, err := c.CreateFieldIndex(ctx, &qdrant.CreateFieldIndexCollection{
		CollectionName: "c", FieldName: "readers", FieldType: qdrant.FieldType_FieldTypeKeyword.Enum(),
		FieldIndexParams: qdrant.NewPayloadIndexParamsKeyword(&qdrant.KeywordIndexParams{IsTenant: qdrant.PtrOf(true)}),
	}); err != nil {
		t.Fatal(err)
	}
	upsert(t, c, "c", point(1, map[string]any{"readers": []any{"a"}}, map[string][]float32{"dense": {1, 2, 2}}, nil))

	info, err := c.GetCollectionInfo(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if d := info.GetConfig().GetParams().GetVectorsConfig().GetParamsMap().GetMap()["dense"]; d.GetSize() != 3 {
		t.Errorf("dense = %v", d)
	}
	if m := info.GetConfig().GetParams().GetSparseVectorsConfig().GetMap()["bm25"]; m.GetModifier() != qdrant.Modifier_Idf {
		t.Errorf("bm25 = %v", m)
	}
	if info.GetConfig().GetMetadata()["model"].GetStringValue() != "m" || info.GetPointsCount() != 1 {
		t.Errorf("metadata %v, points %d", info.GetConfig().GetMetadata(), info.GetPointsCount())
	}
	ix := info.GetPayloadSchema()["readers"]
	if ix.GetDataType() != qdrant.PayloadSchemaType_Keyword || !ix.GetParams().GetKeywordIndexParams().GetIsTenant() || ix.GetPoints() != 1 {
		t.Errorf("readers index = %v", ix)
	}

	// UpdateCollection: the hnsw diff's set fields replace the stored
	// ones, metadata is merged, what the fake does not model is refused.
	if err := c.UpdateCollection(ctx, &qdrant.UpdateCollection{CollectionName: "c",
		HnswConfig: &qdrant.HnswConfigDiff{M: qdrant.PtrOf(uint64(0)), PayloadM: qdrant.PtrOf(uint64(16))},
		Metadata:   qdrant.NewValueMap(map[string]any{"extra": "x"})}); err != nil {
		t.Fatal(err)
	}
	if info, err = c.GetCollectionInfo(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if h := info.GetConfig().GetHnswConfig(); h.M == nil || h.GetM() != 0 || h.GetPayloadM() != 16 || h.GetEfConstruct() != 100 {
		t.Errorf("hnsw after update = %v, want m=0, payload_m=16, ef_construct kept", h)
	}
	if md := info.GetConfig().GetMetadata(); md["model"].GetStringValue() != "m" || md["extra"].GetStringValue() != "x" {
		t.Errorf("metadata after update = %v, want both keys", md)
	}
	if err := c.UpdateCollection(ctx, &qdrant.UpdateCollection{CollectionName: "absent", HnswConfig: &qdrant.HnswConfigDiff{M: qdrant.PtrOf(uint64(0))}}); status.Code(err) != codes.NotFound {
		t.Errorf("updating an absent collection = %v, want NotFound", err)
	}
	if err := c.UpdateCollection(ctx, &qdrant.UpdateCollection{CollectionName: "c", OptimizersConfig: &qdrant.OptimizersConfigDiff{}}); status.Code(err) != codes.Unimplemented {
		t.Errorf("updating the optimizers = %v, want Unimplemented", err)
	}

	if names, err := c.ListCollections(ctx); err != nil || !slices.Equal(names, []string{"c"}) {
		t.Errorf("ListCollections = %v, %v", names, err)
	}
	if err := c.DeleteCollection(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.CollectionExists(ctx, "c"); ok || err != nil {
		t.Errorf("CollectionExists after delete = %v, %v", ok, err)
	}
	if _, err := c.GetCollectionInfo(ctx, "c"); status.Code(err) != codes.NotFound {
		t.Errorf("GetCollectionInfo(deleted) = %v, want NotFound", err)
	}
	if _, err := c.Count(ctx, &qdrant.CountPoints{CollectionName: "c"}); status.Code(err) != codes.NotFound {
		t.Errorf("Count(deleted) = %v, want NotFound", err)
	}
}

func TestUpsertChecksTheWholeBatch(t *testing.T) {
	srv := qdranttest.NewServer(t)
	c := newClient(t, srv)
	createCollection(t, c, "c", 2, qdrant.Distance_Cosine)
	good := point(1, nil, map[string][]float32{"dense": {1, 0}}, nil)
	tests := []struct {
		name string
		bad  *qdrant.PointStruct
	}{
		{"dimension", point(2, nil, map[string][]float32{"dense": {1, 0, 0}}, nil)},
		{"unknown dense name", point(2, nil, map[string][]float32{"other": {1, 0}}, nil)},
		{"unknown sparse name", point(2, nil, nil, map[string][2][]float32{"other": {{1}, {1}}})},
		{"repeated sparse index", point(2, nil, nil, map[string][2][]float32{"bm25": {{3, 3}, {1, 1}}})},
		{"sparse lengths", point(2, nil, nil, map[string][2][]float32{"bm25": {{3, 4}, {1}}})},
		{"bad uuid", &qdrant.PointStruct{Id: qdrant.NewID("not-a-uuid")}},
		{"no id", &qdrant.PointStruct{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Upsert(t.Context(), &qdrant.UpsertPoints{CollectionName: "c", Points: []*qdrant.PointStruct{good, tt.bad}})
			if status.Code(err) != codes.InvalidArgument {
				t.Errorf("Upsert = %v, want InvalidArgument", err)
			}
			if n, err := c.Count(t.Context(), &qdrant.CountPoints{CollectionName: "c"}); n != 0 || err != nil {
				t.Errorf("a refused batch stored %d points (%v)", n, err)
			}
		})
	}
}

func TestFilters(t *testing.T) {
	srv := qdranttest.NewServer(t)
	c := newClient(t, srv)
	createCollection(t, c, "c", 2, qdrant.Distance_Cosine)
	upsert(t, c, "c",
		point(1, map[string]any{"readers": []any{"alice", "bob"}, "n": 1, "t": "a", "x": 1.5}, nil, nil),
		point(2, map[string]any{"readers": []any{"bob"}, "n": 2, "t": "b"}, nil, nil),
		point(3, map[string]any{"readers": []any{}, "n": []any{3, 30}, "t": "1"}, nil, nil),
		point(4, map[string]any{"n": "2"}, nil, nil),
	)
	must := func(cs ...*qdrant.Condition) *qdrant.Filter { return &qdrant.Filter{Must: cs} }
	tests := []struct {
		name   string
		filter *qdrant.Filter
		want   []uint64
	}{
		{"none", nil, []uint64{1, 2, 3, 4}},
		{"keyword in array", must(qdrant.NewMatchKeyword("readers", "alice")), []uint64{1}},
		{"keyword in array, both", must(qdrant.NewMatchKeyword("readers", "bob")), []uint64{1, 2}},
		{"keyword is case sensitive", must(qdrant.NewMatchKeyword("readers", "Alice")), nil},
		{"keywords any", must(qdrant.NewMatchKeywords("t", "a", "b")), []uint64{1, 2}},
		{"keyword does not match integer", must(qdrant.NewMatchKeyword("t", "1"), qdrant.NewMatchKeyword("n", "2")), nil},
		{"integer does not match string", must(qdrant.NewMatchInt("n", 2)), []uint64{2}},
		{"integer in array", must(qdrant.NewMatchInt("n", 30)), []uint64{3}},
		{"integers any", must(qdrant.NewMatchInts("n", 1, 3)), []uint64{1, 3}},
		{"range gt lt", must(qdrant.NewRange("n", &qdrant.Range{Gt: qdrant.PtrOf(1.0), Lt: qdrant.PtrOf(3.0)})), []uint64{2}},
		{"range gte lte", must(qdrant.NewRange("n", &qdrant.Range{Gte: qdrant.PtrOf(1.0), Lte: qdrant.PtrOf(2.0)})), []uint64{1, 2}},
		{"range on a double", must(qdrant.NewRange("x", &qdrant.Range{Gt: qdrant.PtrOf(1.4)})), []uint64{1}},
		{"range any element", must(qdrant.NewRange("n", &qdrant.Range{Gt: qdrant.PtrOf(10.0)})), []uint64{3}},
		{"missing field", must(qdrant.NewMatchKeyword("nope", "x")), nil},
		{"should", &qdrant.Filter{Should: []*qdrant.Condition{qdrant.NewMatchInt("n", 1), qdrant.NewMatchKeyword("t", "b")}}, []uint64{1, 2}},
		{"must not", &qdrant.Filter{MustNot: []*qdrant.Condition{qdrant.NewMatchKeyword("readers", "bob")}}, []uint64{3, 4}},
		{"has id", must(qdrant.NewHasID(qdrant.NewIDNum(2), qdrant.NewIDNum(4))), []uint64{2, 4}},
		{"nested filter", must(qdrant.NewFilterAsCondition(&qdrant.Filter{Should: []*qdrant.Condition{
			qdrant.NewMatchInt("n", 2), qdrant.NewMatchInt("n", 3),
		}})), []uint64{2, 3}},
		{"all kinds", &qdrant.Filter{
			Must:    []*qdrant.Condition{qdrant.NewMatchKeyword("readers", "bob")},
			MustNot: []*qdrant.Condition{qdrant.NewHasID(qdrant.NewIDNum(2))},
			Should:  []*qdrant.Condition{qdrant.NewMatchKeyword("t", "a"), qdrant.NewMatchKeyword("t", "z")},
		}, []uint64{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pts, err := c.Scroll(t.Context(), &qdrant.ScrollPoints{CollectionName: "c", Filter: tt.filter, Limit: qdrant.PtrOf(uint32(100))})
			if err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for _, p := range pts {
				got = append(got, p.GetId().GetNum())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("filter %v matches %v, want %v", tt.filter, got, tt.want)
			}
			n, err := c.Count(t.Context(), &qdrant.CountPoints{CollectionName: "c", Filter: tt.filter})
			if err != nil || n != uint64(len(tt.want)) {
				t.Errorf("Count = %d, %v, want %d", n, err, len(tt.want))
			}
		})
	}
}

func TestScrollPages(t *testing.T) {
	srv := qdranttest.NewServer(t)
	c := newClient(t, srv)
	createCollection(t, c, "c", 2, qdrant.Distance_Cosine)
	var pts []*qdrant.PointStruct
	var want []string
	for i := range 12 {
		pts = append(pts, point(uint64(20-i), map[string]any{"i": i, "s": "x"}, map[string][]float32{"dense": {3, 4}}, nil))
		want = append(want, fmt.Sprint(9+i))
	}
	uuids := []string{"5d2ffeaa-0000-4000-8000-000000000000", "0A3E1F00-0000-4000-8000-000000000000"}
	for _, u := range uuids {
		p := point(0, nil, nil, nil)
		p.Id = qdrant.NewID(u)
		pts = append(pts, p)
	}
	want = append(want, "0a3e1f00-0000-4000-8000-000000000000", "5d2ffeaa-0000-4000-8000-000000000000")
	upsert(t, c, "c", pts...)

	var got []string
	var next *qdrant.PointId
	for pages := 0; ; pages++ {
		page, off, err := c.ScrollAndOffset(t.Context(), &qdrant.ScrollPoints{
			CollectionName: "c", Limit: qdrant.PtrOf(uint32(5)), Offset: next,
			WithPayload: qdrant.NewWithPayloadInclude("i"), WithVectors: qdrant.NewWithVectorsInclude("dense"),
		})
		if err != nil || pages > 5 {
			t.Fatalf("page %d: %v", pages, err)
		}
		for _, p := range page {
			if p.GetId().GetUuid() != "" {
				got = append(got, p.GetId().GetUuid())
				continue
			}
			got = append(got, fmt.Sprint(p.GetId().GetNum()))
			if _, ok := p.GetPayload()["s"]; ok || p.GetPayload()["i"] == nil {
				t.Errorf("payload %v, want only i", p.GetPayload())
			}
			if v := p.GetVectors().GetVectors().GetVectors()["dense"].GetDense().GetData(); !slices.Equal(v, []float32{0.6, 0.8}) {
				t.Errorf("dense = %v, want it normalised [0.6 0.8]", v)
			}
		}
		if next = off; next == nil {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("scrolled %v, want %v", got, want)
	}
}

func TestQueryScores(t *testing.T) {
	srv := qdranttest.NewServer(t)
	c := newClient(t, srv)
	createCollection(t, c, "c", 2, qdrant.Distance_Cosine)
	upsert(t, c, "c",
		point(1, map[string]any{"u": "a"}, map[string][]float32{"dense": {1, 0}}, map[string][2][]float32{"bm25": {{1, 2}, {1, 1}}}),
		point(2, map[string]any{"u": "a"}, map[string][]float32{"dense": {1, 1}}, map[string][2][]float32{"bm25": {{1}, {2}}}),
		point(3, map[string]any{"u": "b"}, map[string][]float32{"dense": {0, 5}}, map[string][2][]float32{"bm25": {{1}, {1}}}),
		point(4, map[string]any{"u": "a"}, nil, map[string][2][]float32{"bm25": {{3}, {1}}}),
		point(5, map[string]any{"u": "a"}, map[string][]float32{"dense": {-1, 0}}, nil),
	)
	query := func(q *qdrant.QueryPoints) []*qdrant.ScoredPoint {
		t.Helper()
		q.CollectionName = "c"
		res, err := c.Query(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	check := func(name string, res []*qdrant.ScoredPoint, want map[uint64]float64, order ...uint64) {
		t.Helper()
		var got []uint64
		for _, r := range res {
			got = append(got, r.GetId().GetNum())
			if w := want[r.GetId().GetNum()]; math.Abs(float64(r.GetScore())-w) > 1e-5 {
				t.Errorf("%s: point %d score %v, want %v", name, r.GetId().GetNum(), r.GetScore(), w)
			}
		}
		if !slices.Equal(got, order) {
			t.Errorf("%s: order %v, want %v", name, got, order)
		}
	}

	dense := map[uint64]float64{1: math.Sqrt(0.5), 2: 1, 3: math.Sqrt(0.5), 5: -math.Sqrt(0.5)}
	check("dense", query(&qdrant.QueryPoints{Query: qdrant.NewQueryDense([]float32{2, 2}), Using: qdrant.PtrOf("dense")}), dense, 2, 1, 3, 5)
	check("dense filtered", query(&qdrant.QueryPoints{Query: qdrant.NewQueryDense([]float32{2, 2}), Using: qdrant.PtrOf("dense"),
		Filter: &qdrant.Filter{Must: []*qdrant.Condition{qdrant.NewMatchKeyword("u", "a")}}}), dense, 2, 1, 5)
	check("dense threshold, offset, limit", query(&qdrant.QueryPoints{Query: qdrant.NewQueryDense([]float32{2, 2}), Using: qdrant.PtrOf("dense"),
		ScoreThreshold: qdrant.PtrOf(float32(0)), Offset: qdrant.PtrOf(uint64(1)), Limit: qdrant.PtrOf(uint64(1))}), dense, 1)

	// bm25 index 1 is in 3 of the 4 points with a bm25 vector, index 2 in 1.
	idf1, idf2 := store.IDF(3, 4), store.IDF(1, 4)
	sparse := map[uint64]float64{1: 0.5*idf1 + 2*idf2, 2: 0.5 * idf1 * 2, 3: 0.5 * idf1}
	check("sparse idf", query(&qdrant.QueryPoints{Query: qdrant.NewQuerySparse([]uint32{2, 1}, []float32{2, 0.5}), Using: qdrant.PtrOf("bm25")}),
		sparse, 1, 2, 3)
	check("sparse filtered, idf still collection-wide", query(&qdrant.QueryPoints{Query: qdrant.NewQuerySparse([]uint32{2, 1}, []float32{2, 0.5}),
		Using: qdrant.PtrOf("bm25"), Filter: &qdrant.Filter{Must: []*qdrant.Condition{qdrant.NewMatchKeyword("u", "b")}}}), sparse, 3)
	check("sparse no shared index", query(&qdrant.QueryPoints{Query: qdrant.NewQuerySparse([]uint32{99}, []float32{1}), Using: qdrant.PtrOf("bm25")}), nil)

	res := query(&qdrant.QueryPoints{Query: qdrant.NewQueryDense([]float32{1, 0}), Using: qdrant.PtrOf("dense"), WithPayload: qdrant.NewWithPayload(true)})
	if res[0].GetPayload()["u"].GetStringValue() != "a" || res[0].GetVectors() != nil {
		t.Errorf("with_payload true, no vectors: got %v", res[0])
	}
	if res := query(&qdrant.QueryPoints{Query: qdrant.NewQueryDense([]float32{1, 0}), Using: qdrant.PtrOf("dense")}); len(res[0].GetPayload()) != 0 {
		t.Errorf("payload without with_payload: %v", res[0].GetPayload())
	}
	for name, q := range map[string]*qdrant.QueryPoints{
		"dimension":     {CollectionName: "c", Query: qdrant.NewQueryDense([]float32{1}), Using: qdrant.PtrOf("dense")},
		"unknown dense": {CollectionName: "c", Query: qdrant.NewQueryDense([]float32{1, 0}), Using: qdrant.PtrOf("bm25x")},
		"sparse lengths": {CollectionName: "c", Query: qdrant.NewQuerySparse([]uint32{1, 2}, []float32{1}),
			Using: qdrant.PtrOf("bm25")},
	} {
		if _, err := c.Query(t.Context(), q); status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: Query = %v, want InvalidArgument", name, err)
		}
	}
}

func TestQueryDotDistanceAndTies(t *testing.T) {
	srv := qdranttest.NewServer(t)
	c := newClient(t, srv)
	createCollection(t, c, "c", 2, qdrant.Distance_Dot)
	upsert(t, c, "c",
		point(9, nil, map[string][]float32{"dense": {2, 0}}, nil),
		point(3, nil, map[string][]float32{"dense": {2, 0}}, nil),
		point(5, nil, map[string][]float32{"dense": {1, 0}}, nil),
	)
	res, err := c.Query(t.Context(), &qdrant.QueryPoints{CollectionName: "c", Query: qdrant.NewQueryDense([]float32{3, 0}), Using: qdrant.PtrOf("dense")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, fmt.Sprintf("%d:%g", r.GetId().GetNum(), r.GetScore()))
	}
	if want := []string{"3:6", "9:6", "5:3"}; !slices.Equal(got, want) {
		t.Errorf("dot query = %v, want %v (not normalised, ties by id)", got, want)
	}
}

func TestFacetSetPayloadDelete(t *testing.T) {
	srv := qdranttest.NewServer(t)
	c := newClient(t, srv)
	ctx := t.Context()
	createCollection(t, c, "c", 2, qdrant.Distance_Cosine)
	upsert(t, c, "c",
		point(1, map[string]any{"file_id": 10, "tags": []any{"x", "x", "y"}}, nil, nil),
		point(2, map[string]any{"file_id": 10, "tags": []any{"y"}}, nil, nil),
		point(3, map[string]any{"file_id": 20}, nil, nil),
	)
	facet := &qdrant.FacetCounts{CollectionName: "c", Key: "file_id", Limit: qdrant.PtrOf(uint64(10))}
	if _, err := c.Facet(ctx, facet); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Facet without an index = %v, want InvalidArgument", err)
	}
	for _, f := range []string{"file_id", "tags"} {
		typ := qdrant.FieldType_FieldTypeKeyword
		if f == "file_id" {
			typ = qdrant.FieldType_FieldTypeInteger
		}
		if _, err := c.CreateFieldIndex(ctx, &qdrant.CreateFieldIndexCollection{CollectionName: "c", FieldName: f, FieldType: typ.Enum()}); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := c.Facet(ctx, facet)
	if err != nil || len(hits) != 2 || hits[0].GetValue().GetIntegerValue() != 10 || hits[0].GetCount() != 2 || hits[1].GetCount() != 1 {
		t.Errorf("Facet(file_id) = %v, %v, want 10×2, 20×1", hits, err)
	}
	hits, err = c.Facet(ctx, &qdrant.FacetCounts{CollectionName: "c", Key: "tags"})
	if err != nil || len(hits) != 2 || hits[0].GetValue().GetStringValue() != "y" || hits[0].GetCount() != 2 || hits[1].GetCount() != 1 {
		t.Errorf("Facet(tags) = %v, %v, want y×2, x×1 (a point counts once)", hits, err)
	}

	if _, err := c.SetPayload(ctx, &qdrant.SetPayloadPoints{
		CollectionName: "c", Payload: qdrant.NewValueMap(map[string]any{"tags": []any{"z"}, "new": true}),
		PointsSelector: qdrant.NewPointsSelectorFilter(&qdrant.Filter{Must: []*qdrant.Condition{qdrant.NewMatchInt("file_id", 10)}}),
	}); err != nil {
		t.Fatal(err)
	}
	pts, err := c.Scroll(ctx, &qdrant.ScrollPoints{CollectionName: "c", WithPayload: qdrant.NewWithPayload(true)})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		set := p.GetId().GetNum() != 3
		if got := p.GetPayload()["new"].GetBoolValue(); got != set || p.GetPayload()["file_id"] == nil {
			t.Errorf("point %d payload after SetPayload = %v", p.GetId().GetNum(), p.GetPayload())
		}
	}

	if _, err := c.Delete(ctx, &qdrant.DeletePoints{CollectionName: "c", Points: qdrant.NewPointsSelector(qdrant.NewIDNum(1), qdrant.NewIDNum(99))}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Delete(ctx, &qdrant.DeletePoints{CollectionName: "c", Points: qdrant.NewPointsSelectorFilter(&qdrant.Filter{
		Must: []*qdrant.Condition{qdrant.NewMatchInt("file_id", 20)},
	})}); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Count(ctx, &qdrant.CountPoints{CollectionName: "c"}); n != 1 || err != nil {
		t.Errorf("after deletes Count = %d, %v, want 1", n, err)
	}
	if _, err := c.Delete(ctx, &qdrant.DeletePoints{CollectionName: "c"}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("Delete without a selector = %v, want InvalidArgument", err)
	}
}

func TestAPIKey(t *testing.T) {
	srv := qdranttest.NewServer(t)
	srv.SetAPIKey("k")
	c := newClient(t, srv)
	if _, err := c.HealthCheck(t.Context()); err != nil {
		t.Errorf("HealthCheck without a key = %v, want it allowed", err)
	}
	if _, err := c.ListCollections(t.Context()); status.Code(err) != codes.PermissionDenied {
		t.Errorf("ListCollections without a key = %v, want PermissionDenied", err)
	}
	srv.SetAPIKey("")
	if _, err := c.ListCollections(t.Context()); err != nil {
		t.Errorf("ListCollections with the check off = %v", err)
	}
}

// newClient returns a go-client connected to srv, closed at cleanup.
func newClient(tb testing.TB, srv *qdranttest.Server) *qdrant.Client {
	tb.Helper()
	i := strings.LastIndex(srv.Addr, ":")
	var port int
	fmt.Sscan(srv.Addr[i+1:], &port)
	c, err := qdrant.NewClient(&qdrant.Config{Host: srv.Addr[:i], Port: port, SkipCompatibilityCheck: true, PoolSize: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// createCollection creates a collection with a "dense" vector and a
// "bm25" sparse vector with the IDF modifier.
func createCollection(tb testing.TB, c *qdrant.Client, name string, dim uint64, d qdrant.Distance) {
	tb.Helper()
	err := c.CreateCollection(tb.Context(), &qdrant.CreateCollection{
		CollectionName: name,
		VectorsConfig:  qdrant.NewVectorsConfigMap(map[string]*qdrant.VectorParams{"dense": {Size: dim, Distance: d}}),
		SparseVectorsConfig: qdrant.NewSparseVectorsConfig(map[string]*qdrant.SparseVectorParams{
			"bm25": {Modifier: qdrant.Modifier_Idf.Enum()},
		}),
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// point returns a point with a numeric id, payload, dense vectors and
// sparse vectors given as {indices, values} (indices as float32).
func point(id uint64, payload map[string]any, dense map[string][]float32, sparse map[string][2][]float32) *qdrant.PointStruct {
	vs := map[string]*qdrant.Vector{}
	for name, v := range dense {
		vs[name] = qdrant.NewVectorDense(v)
	}
	for name, v := range sparse {
		ix := make([]uint32, len(v[0]))
		for i, x := range v[0] {
			ix[i] = uint32(x)
		}
		vs[name] = qdrant.NewVectorSparse(ix, v[1])
	}
	return &qdrant.PointStruct{Id: qdrant.NewIDNum(id), Payload: qdrant.NewValueMap(payload), Vectors: qdrant.NewVectorsMap(vs)}
}

// upsert stores points and fails the test on error.
func upsert(tb testing.TB, c *qdrant.Client, collection string, pts ...*qdrant.PointStruct) {
	tb.Helper()
	if _, err := c.Upsert(tb.Context(), &qdrant.UpsertPoints{CollectionName: collection, Wait: qdrant.PtrOf(true), Points: pts}); err != nil {
		tb.Fatal(err)
	}
}
