package queue

import (
	"errors"
	"testing"
	"time"
)

// A lease held by a process that died together with its (embedded) NATS
// server must expire after its ttl once the server runs again.
func TestLeaseExpiresAfterServerRestart(t *testing.T) {
	dir := t.TempDir()
	start := func() (*Queue, func()) {
		ns, err := RunEmbedded(EmbeddedOptions{StoreDir: dir, Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		nc, err := Connect("", ns, "test")
		if err != nil {
			t.Fatal(err)
		}
		q, err := Open(t.Context(), nc, fast(Options{Logger: testLogger(t)}))
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
	if _, err := q.Lease(t.Context(), "file.1", time.Second); !errors.Is(err, ErrLeaseHeld) {
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
