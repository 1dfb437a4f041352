package qdrant_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/qdrant"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
	"github.com/hybrid-search/hybridsearch/store/storetest"
)

// TestQdrantAtScale runs the cases where a real Qdrant differs from an
// exact store: against the Qdrant QDRANT_TEST_ADDR names with enough
// points per user for its HNSW graphs (one per reader: m=0, payload_m=16)
// to be built and searched, compared with its own exact=true search; and,
// without it, at a small scale against the fake, which is exact.
func TestQdrantAtScale(t *testing.T) {
	addr := os.Getenv("QDRANT_TEST_ADDR")
	var o qdrant.Options
	sc := storetest.Scale{Users: 3, PointsPerUser: 100, Queries: 5}
	if addr != "" {
		url := addr
		if !strings.Contains(url, "://") {
			url = "http://" + url
		}
		o = qdrant.Options{URL: url, APIKey: os.Getenv("QDRANT_TEST_API_KEY"), Dim: storetest.Dim, Model: "test-model", DocFreqTTL: -1}
		sc = storetest.Scale{Users: 4, PointsPerUser: 6000, Queries: 25}
	}
	open := func(t *testing.T) storetest.Store {
		o := o
		if addr == "" {
			srv := qdranttest.NewServer(t)
			o = fakeOptions(srv)
			o.Dim, o.DocFreqTTL = storetest.Dim, -1
		} else {
			o.Collection = fmt.Sprintf("hybridsearch_scale_%d", time.Now().UnixNano())
			t.Cleanup(func() { dropCollection(t, o) })
		}
		s := mustOpenQdrant(t, o)
		raw := dialRaw(t, o)
		coll := o.Collection
		sc.Exact = func(t *testing.T, u hs.UserID, vec []float32, k int) []string {
			return exactIDs(t, raw, coll, u, vec, k)
		}
		sc.Settle = func(t *testing.T) { awaitIndexed(t, raw, coll) }
		return s
	}
	storetest.RunAtScale(t, open, sc)
}

// dialRaw connects the go-client to o's Qdrant, for what the adapter does
// not do (exact search, collection status).
func dialRaw(tb testing.TB, o qdrant.Options) *qc.Client {
	tb.Helper()
	host, port, tls := splitURL(tb, o.URL)
	c, err := qc.NewClient(&qc.Config{Host: host, Port: port, APIKey: o.APIKey, UseTLS: tls, SkipCompatibilityCheck: true, PoolSize: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// exactIDs is Qdrant's exact (full scan) search among user's points.
func exactIDs(t *testing.T, c *qc.Client, coll string, u hs.UserID, vec []float32, k int) []string {
	t.Helper()
	res, err := c.Query(t.Context(), &qc.QueryPoints{
		CollectionName: coll,
		Query:          qc.NewQueryDense(vec),
		Using:          qc.PtrOf(store.VectorDense),
		Filter:         &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword(qdrant.TenantField, string(u))}},
		Params:         &qc.SearchParams{Exact: qc.PtrOf(true)},
		Limit:          qc.PtrOf(uint64(k)),
		WithPayload:    qc.NewWithPayloadInclude("file_id", "chunk_no"),
	})
	if err != nil {
		t.Fatalf("exact query: %v", err)
	}
	var ids []string
	for _, p := range res {
		pl := p.GetPayload()
		ids = append(ids, hs.PointID(hs.FileID(pl["file_id"].GetIntegerValue()), int(pl["chunk_no"].GetIntegerValue())))
	}
	return ids
}

// awaitIndexed waits until Qdrant has indexed what was written: status
// green, optimizers done.
func awaitIndexed(t *testing.T, c *qc.Client, coll string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		info, err := c.GetCollectionInfo(ctx, coll)
		cancel()
		if err != nil {
			t.Fatalf("collection info: %v", err)
		}
		if info.GetStatus() == qc.CollectionStatus_Green && info.GetOptimizerStatus().GetOk() {
			t.Logf("collection %s: %d points, %d vectors indexed, %d segments", coll, info.GetPointsCount(), info.GetIndexedVectorsCount(), info.GetSegmentsCount())
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("collection %s not green after 5 min: %v", coll, info.GetStatus())
		}
		time.Sleep(time.Second)
	}
}
