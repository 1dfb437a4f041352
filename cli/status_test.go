package cli

import (
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
)

// TestStatusPrintsRebuild: hybridsearch status names the new index and how
// far it has come.
func TestStatusPrintsRebuild(t *testing.T) {
	var out strings.Builder
	printStatus(&out, hs.IndexStatus{Version: "1", User: "alice", Rebuild: &hs.RebuildProgress{Model: "bge-m3", Done: 120, Retrying: 2, Total: 300, Progress: 0.4}})
	if !strings.Contains(out.String(), "model bge-m3") || !strings.Contains(out.String(), "120 of 300 files (40%)") || !strings.Contains(out.String(), "2 retrying") {
		t.Errorf("status:\n%s", out.String())
	}
}
