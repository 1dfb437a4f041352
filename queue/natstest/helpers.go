package natstest

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
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

// Logger returns a debug-level logger for the code under test that writes
// to t.Log, and stops writing once t's cleanups run (goroutines of the
// queue or the key-value store may still log then).
func Logger(t testing.TB) *slog.Logger {
	w := &logWriter{t: t}
	t.Cleanup(func() { w.mu.Lock(); w.done = true; w.mu.Unlock() })
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Await polls cond every 10 ms until it holds, failing t when within
// passes first; what names the awaited condition in the failure.
func Await(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
