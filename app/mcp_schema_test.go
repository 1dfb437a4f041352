package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestToolSchemasPassInspectorLint runs MCP Inspector's CLI (2.12, the
// one client whose schema check is published on npm: its tool-schema
// portability lint, rules type-union, untyped-schema, boolean-schema and
// remote-ref) with --strict on tools/list against the app's own port, with
// alice's token: no finding at all, warnings included. Type unions such
// as ["null", "number"] are what clients mapping schemas onto a
// single-type dialect (Gemini's function declarations) reject.
func TestToolSchemasPassInspectorLint(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs and runs MCP Inspector's CLI")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	env := newTestEnv(t, envOptions{install: true, quiet: true})
	token, _, err := env.Main.Tokens.Issue(t.Context(), "alice", "lint", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	node22 := needInspector(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	launcher := filepath.Join("node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	cmd := exec.CommandContext(ctx, node22, launcher, "--cli", env.Main.DirectMCPURL(), "--transport", "http", "--method", "tools/list",
		"--header", "Authorization: Bearer "+token, "--strict")
	cmd.Dir = inspectorDir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "MCP_INSPECTOR_SECRET_STORE=memory")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "nc_semantic_search") {
		t.Fatalf("inspector --method tools/list: %v\n%s\n%s", err, out, stderr.String())
	}
	if s := stderr.String(); strings.Contains(s, "Warning:") || strings.Contains(s, "Error:") || strings.Contains(s, "portability") {
		t.Errorf("MCP Inspector's schema lint finds problems:\n%s", s)
	}
}
