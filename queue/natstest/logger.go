package natstest

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
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
