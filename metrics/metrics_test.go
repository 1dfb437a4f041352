package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/metrics"
)

func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

// TestCancelledIsNotAnError: a store operation or query embedding cut
// short because the caller went away (a search whose client disconnected)
// is timed but not counted as an error; a real failure, and a timeout, are.
func TestCancelledIsNotAnError(t *testing.T) {
	m := metrics.New()
	cancelled := fmt.Errorf("search dense: %w", context.Canceled)
	m.StoreOp("local", "search_dense", time.Millisecond, cancelled)
	m.EmbedBatch("ollama:11434", 1, time.Millisecond, cancelled)
	out := scrape(t, m)
	for _, name := range []string{"hybridsearch_store_errors_total{", "hybridsearch_embed_errors_total{"} {
		if strings.Contains(out, name) {
			t.Errorf("a cancelled call counted as an error: %s", name)
		}
	}
	if !strings.Contains(out, `hybridsearch_store_operation_duration_seconds_count{op="search_dense",store="local"} 1`) {
		t.Errorf("the cancelled operation was not timed")
	}
	m.StoreOp("local", "search_dense", time.Millisecond, errors.New("disk gone"))
	m.StoreOp("local", "search_dense", time.Millisecond, context.DeadlineExceeded)
	m.EmbedBatch("ollama:11434", 1, time.Millisecond, errors.New("connection refused"))
	out = scrape(t, m)
	for _, want := range []string{`hybridsearch_store_errors_total{op="search_dense",store="local"} 2`, `hybridsearch_embed_errors_total{host="ollama:11434"} 1`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s", want)
		}
	}
}
