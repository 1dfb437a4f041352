package mcp_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hybrid-search/hybridsearch/mcp"
)

// TestProtocolVersions: a client of every protocol version the endpoint
// accepts can list and call the tools, and the MCP guide (docs/mcp.md) names
// exactly those versions.
func TestProtocolVersions(t *testing.T) {
	versions := sdk.SupportedProtocolVersions()
	url, _ := serve(t, newFakeIndex(), mcp.Options{})
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			cs := connect(t, url, "alice", v)
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil || len(tools.Tools) != 3 {
				t.Fatalf("tools/list: %v, %v", tools, err)
			}
			if res := call(t, cs, mcp.ToolSearch, map[string]any{"query": "kubernetes"}); res.IsError {
				t.Errorf("search: %s", text(res))
			}
		})
	}

	readme, err := os.ReadFile(filepath.Join("..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "**MCP** (AI assistants).")
	if !ok {
		t.Fatal("docs/mcp.md has no paragraph starting **MCP** (AI assistants).")
	}
	section, _, _ = strings.Cut(section, "read-only tools")
	listed := regexp.MustCompile(`\d{4}-\d{2}-\d{2}`).FindAllString(section, -1)
	slices.Sort(listed)
	want := slices.Sorted(slices.Values(versions))
	if !slices.Equal(listed, want) {
		t.Errorf("docs/mcp.md's MCP paragraph lists protocol versions %v; the endpoint accepts %v", listed, want)
	}
}
