package mcp

import (
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestRenderStatusPausedAndHosts(t *testing.T) {
	st := hs.IndexStatus{
		User: "admin", Files: hs.FileCounts{Pending: 3},
		Queue:      hs.QueueStatus{Pending: 12, ETASeconds: 0, Paused: true, PausedReason: "no embedding host answers"},
		Components: map[string]hs.ComponentStatus{"embedder": {Error: "embedding: ollama show on http://gpu1:11434: host unreachable"}},
		Embedders: []hs.HostHealth{
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

func TestRenderStatusLiveAndFirstScan(t *testing.T) {
	st := hs.IndexStatus{User: "alice", Scan: &hs.ScanProgress{Running: true, Initial: true},
		Live: &hs.LiveStatus{ReasonCode: hs.LiveWebhookListenersDisabled, Reason: "Run: occ app:enable webhook_listeners"}}
	got := renderStatus(st)
	for _, want := range []string{"first full scan", "Live updates are off: Run: occ app:enable webhook_listeners"} {
		if !strings.Contains(got, want) {
			t.Errorf("status text lacks %q:\n%s", want, got)
		}
	}
	st.Scan, st.Live = nil, &hs.LiveStatus{Enabled: true, DeliveriesLastHour: 7, DelayP50Seconds: 2, DelayP95Seconds: 40}
	if got := renderStatus(st); !strings.Contains(got, "Live updates are on: 7 changes arrived in the last hour, typically 2s after they were made (95% within 40s).") {
		t.Errorf("status text:\n%s", got)
	}
}
