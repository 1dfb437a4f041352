package kv

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/queue/natstest"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// logWriter sends log lines to t.Log until the test's cleanups are done,
// so late goroutines cannot log into a finished test.
type logWriter struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

func testLogger(t testing.TB) *slog.Logger {
	w := &logWriter{t: t}
	t.Cleanup(func() { w.mu.Lock(); w.done = true; w.mu.Unlock() })
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// mustOpen starts a server and opens a store on it.
func mustOpen(t testing.TB, o Options) (*Store, *server.Server, *nats.Conn) {
	t.Helper()
	if o.Logger == nil {
		o.Logger = testLogger(t)
	}
	s := natstest.Run(t)
	nc := natstest.Connect(t, s)
	db, err := Open(t.Context(), nc, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return db, s, nc
}

// awaitTrue polls cond until it holds or within passes.
func awaitTrue(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func contextWithTimeout(t testing.TB, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}

func TestLeasesUsePerKeyTTL(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	if !q.keyTTL {
		t.Errorf("leases bucket on nats-server 2.15 has no per-key TTL")
	}
}
