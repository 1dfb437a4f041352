package queue

import (
	"errors"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/kv"
)

// A lease held by a process (kv.Store.Lease; the test stays here, beside
// the embedded server it restarts) that died together with its (embedded) NATS
// server must expire after its ttl once the server runs again.
func TestLeaseExpiresAfterServerRestart(t *testing.T) {
	dir := t.TempDir()
	start := func() (*kv.Store, func()) {
		ns, err := RunEmbedded(EmbeddedOptions{StoreDir: dir, Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		nc, err := Connect("", ns, "test")
		if err != nil {
			t.Fatal(err)
		}
		q, err := kv.Open(t.Context(), nc, kv.Options{Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		return q, func() { nc.Close(); ns.Shutdown(); ns.WaitForShutdown() }
	}
	q, stop := start()
	if _, err := q.Lease(t.Context(), "file.1", time.Second); err != nil {
		t.Fatal(err)
	}
	stop() // the holder never releases nor refreshes
	q, stop = start()
	defer stop()
	if _, err := q.Lease(t.Context(), "file.1", time.Second); !errors.Is(err, kv.ErrLeaseHeld) {
		t.Logf("lease right after restart: %v (expected held, may have expired already)", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		release, err := q.Lease(t.Context(), "file.1", time.Second)
		if err == nil {
			release()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("lease still held 10 s after its 1 s ttl: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
