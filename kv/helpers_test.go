package kv

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/queue/natstest"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// testLogger is natstest.Logger.
func testLogger(t testing.TB) *slog.Logger { return natstest.Logger(t) }

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

// awaitTrue is natstest.Await.
func awaitTrue(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	natstest.Await(t, within, what, cond)
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
