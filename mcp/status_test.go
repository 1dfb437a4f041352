package mcp

import (
	"strings"
	"testing"
)

func TestRenderStatusPausedAndHosts(t *testing.T) {
	st := IndexStatus{
		User: "admin", Pending: 3, QueuePending: 12, ETASeconds: 0, Paused: true, PausedReason: "no embedding host answers",
		Components: map[string]Health{"embedder": {Error: "embedding: ollama show on http://gpu1:11434: host unreachable"}},
		EmbeddingHosts: []HostHealth{
			{Host: "http://gpu1:11434", Error: "embedding: ollama show on http://gpu1:11434: host unreachable"},
			{Host: "http://gpu2:11434", Error: "embedding model \"nomic-embed-text\" is not available on http://gpu2:11434"},
		},
	}
	got := renderStatus(st)
	for _, want := range []string{
		"Queue: 12 jobs, paused: no embedding host answers.",
		"Embedding host http://gpu1:11434 is unavailable: ",
		"Embedding host http://gpu2:11434 is unavailable: embedding model",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("status text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "left") {
		t.Errorf("a paused queue shows an ETA:\n%s", got)
	}
}
