package app

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAssistantPageInBrowser drives the simulated Assistant page (the
// demo's way to try the app's task types) in Debian's chromium: the user
// signs in, sees both task types, runs a search and a question, and the
// page shows the results with links. It needs node, chromium and
// frontend/node_modules (npm ci in frontend/); it is skipped without
// them.
func TestAssistantPageInBrowser(t *testing.T) {
	t.Parallel()
	browser := chromiumPath(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	if _, err := os.Stat(filepath.Join("..", "frontend", "node_modules", "playwright-core", "package.json")); err != nil {
		t.Skip("no frontend/node_modules/playwright-core (run npm ci in frontend/)")
	}
	e := newAssistantEnv(t, "34", nil)
	shot := filepath.Join(artifactsDir(t, "assistant"), "assistant.png")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "assistant_page.mjs"), e.Sim.BaseURL, "alice", "alice", browser, shot)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s\n%s", err, out, stderr.String())
	}
	var r struct {
		Types       []string
		Nav         string
		Error       string
		Search, Ask struct {
			Status string
			Text   string
			Links  []string
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("output %s: %v", out, err)
	}
	t.Logf("page: %s (screenshot %s)", out, shot)
	if r.Error != "" {
		t.Fatalf("browser: %s", r.Error)
	}
	if !slices.Contains(r.Types, "hybrid_search:search=Search my files") || !slices.Contains(r.Types, "hybrid_search:ask=Ask your files") || r.Nav != "active" {
		t.Errorf("types %v, nav %q", r.Types, r.Nav)
	}
	if r.Search.Status != "STATUS_SUCCESSFUL" || !strings.Contains(r.Search.Text, "/Documents/backups.md") || len(r.Search.Links) == 0 {
		t.Errorf("search on the page: %+v", r.Search)
	}
	if r.Ask.Status != "STATUS_SUCCESSFUL" || !strings.Contains(r.Ask.Text, "[1]") || !strings.Contains(r.Ask.Text, "Sources:") {
		t.Errorf("question on the page: %+v", r.Ask)
	}
}
