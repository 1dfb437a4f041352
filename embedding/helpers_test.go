package embedding_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

// logBuffer is a slog sink that echoes to t.Log and keeps the text, so
// tests can check what was (not) logged.
type logBuffer struct {
	t  testing.TB
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newLog(t testing.TB) (*slog.Logger, *logBuffer) {
	lb := &logBuffer{t: t}
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})), lb
}

// newOllama returns a client for the given servers with test-friendly
// defaults; edit changes the options first.
func newOllama(t *testing.T, edit func(*embedding.OllamaOptions), servers ...*embeddingtest.Server) *embedding.Ollama {
	t.Helper()
	log, _ := newLog(t)
	o := embedding.OllamaOptions{Model: "nomic-embed-text", Logger: log, Timeout: 5 * time.Second}
	for _, s := range servers {
		o.Hosts = append(o.Hosts, s.URL)
	}
	if edit != nil {
		edit(&o)
	}
	c, err := embedding.NewOllama(o)
	if err != nil {
		t.Fatalf("NewOllama: %v", err)
	}
	return c
}

func texts(n int, format func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = format(i)
	}
	return out
}

// await polls cond until it holds or the deadline passes.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func inputCount(reqs []embeddingtest.Request) int {
	n := 0
	for _, r := range reqs {
		n += len(r.Inputs)
	}
	return n
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
