package qdrant_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	"github.com/hybrid-search/hybridsearch/store/qdrant"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
	"github.com/hybrid-search/hybridsearch/store/storetest"
)

// TestQdrantContract runs the store contract against the adapter and the
// fake, or against the real Qdrant QDRANT_TEST_ADDR names ("host:6334" or
// "http(s)://host:6334", with QDRANT_TEST_API_KEY if it needs one). Each
// subtest gets a collection of its own, deleted afterwards.
func TestQdrantContract(t *testing.T) {
	if addr := os.Getenv("QDRANT_TEST_ADDR"); addr != "" {
		url := addr
		if !strings.Contains(url, "://") {
			url = "http://" + url
		}
		var n atomic.Int64
		storetest.Run(t, func(t *testing.T) storetest.Store {
			o := qdrant.Options{
				URL:        url,
				APIKey:     os.Getenv("QDRANT_TEST_API_KEY"),
				Collection: fmt.Sprintf("hybridsearch_test_%d_%d", time.Now().UnixNano(), n.Add(1)),
				Dim:        storetest.Dim,
				Model:      "test-model",
				DocFreqTTL: -1, // the contract checks counts right after writes
			}
			s := mustOpenQdrant(t, o)
			t.Cleanup(func() { dropCollection(t, o) })
			return s
		})
		return
	}
	storetest.Run(t, func(t *testing.T) storetest.Store {
		srv := qdranttest.NewServer(t)
		t.Cleanup(func() { checkScoped(t, srv) })
		o := fakeOptions(srv)
		o.Dim = storetest.Dim
		o.DocFreqTTL = -1 // the contract checks counts right after writes
		return mustOpenQdrant(t, o)
	})
}

// checkScoped fails when a recorded request reads or deletes points
// without the filter that scopes it: every query must require readers to
// contain a (non-empty) user, every delete must name one file.
func checkScoped(t *testing.T, srv *qdranttest.Server) {
	t.Helper()
	for _, m := range srv.RequestsFor(qc.Points_Query_FullMethodName) {
		if f := m.(*qc.QueryPoints).GetFilter(); mustKeyword(f, "readers") == "" {
			t.Errorf("query without a readers filter: %v", f)
		}
	}
	// The statistics of SparseDocFreq are read without a filter, and so
	// must return neither payload nor another vector than the one counted.
	for _, m := range srv.RequestsFor(qc.Points_QueryBatch_FullMethodName) {
		for _, q := range m.(*qc.QueryBatchPoints).GetQueryPoints() {
			names := q.GetWithVectors().GetInclude().GetNames()
			if q.GetWithPayload().GetEnable() || q.GetWithPayload().GetInclude() != nil || len(names) != 1 || names[0] != q.GetUsing() || q.GetLimit() != 1 {
				t.Errorf("batch query reads more than one point's counted vector: %v", q)
			}
		}
	}
	for _, m := range srv.RequestsFor(qc.Points_Delete_FullMethodName) {
		if f := m.(*qc.DeletePoints).GetPoints().GetFilter(); !mustHasFileID(f) {
			t.Errorf("delete without a file_id filter: %v", m)
		}
	}
}

// mustKeyword returns the keyword a filter's must list requires of field,
// "" if it has no such condition.
func mustKeyword(f *qc.Filter, field string) string {
	for _, c := range f.GetMust() {
		if fc := c.GetField(); fc.GetKey() == field && fc.GetMatch().GetKeyword() != "" {
			return fc.GetMatch().GetKeyword()
		}
	}
	return ""
}

// mustHasFileID reports whether a filter's must list pins file_id.
func mustHasFileID(f *qc.Filter) bool {
	for _, c := range f.GetMust() {
		if fc := c.GetField(); fc.GetKey() == "file_id" {
			if _, ok := fc.GetMatch().GetMatchValue().(*qc.Match_Integer); ok {
				return true
			}
		}
	}
	return false
}

// opsDim is the dense dimension of the adapter's own tests, whose vectors
// are written out by hand; the contract runs at storetest.Dim.
const opsDim = 4

// fakeOptions returns options for a store on the fake, with dimension
// opsDim.
func fakeOptions(srv *qdranttest.Server) qdrant.Options {
	return qdrant.Options{URL: srv.URL(), Dim: opsDim, Model: "nomic-embed-text:v1.5", Timeout: 5 * time.Second}
}

// mustOpenQdrant opens the adapter and closes it at cleanup.
func mustOpenQdrant(tb testing.TB, o qdrant.Options) *qdrant.Store {
	tb.Helper()
	if o.Logger == nil {
		o.Logger = qdrantLogger(tb)
	}
	s, err := qdrant.Open(tb.Context(), o)
	if err != nil {
		tb.Fatalf("Open(%s) = %v", o.URL, err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close() = %v", err)
		}
	})
	return s
}

// dropCollection deletes a test collection on a real Qdrant.
func dropCollection(tb testing.TB, o qdrant.Options) {
	host, port, tls := splitURL(tb, o.URL)
	c, err := qc.NewClient(&qc.Config{Host: host, Port: port, APIKey: o.APIKey, UseTLS: tls, SkipCompatibilityCheck: true})
	if err != nil {
		tb.Errorf("connect to delete %s: %v", o.Collection, err)
		return
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.DeleteCollection(ctx, o.Collection); err != nil {
		tb.Errorf("delete collection %s: %v", o.Collection, err)
	}
}

// splitURL returns the host, port and TLS flag of an http(s)://host:port
// URL.
func splitURL(tb testing.TB, url string) (string, int, bool) {
	tb.Helper()
	tls := strings.HasPrefix(url, "https://")
	hostPort := url[strings.Index(url, "://")+3:]
	i := strings.LastIndex(hostPort, ":")
	var port int
	if _, err := fmt.Sscan(hostPort[i+1:], &port); i < 0 || err != nil {
		tb.Fatalf("URL %q has no port", url)
	}
	return hostPort[:i], port, tls
}

// qdrantLogger returns a logger that writes to tb.Log.
func qdrantLogger(tb testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(logWriter{tb}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type logWriter struct{ tb testing.TB }

func (w logWriter) Write(b []byte) (int, error) {
	w.tb.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}
