package mcp_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/mcp"
)

// TestResourcesListSaysWhyEmpty: resources/list lists nothing (a list of
// the user's documents would read the whole index on every call), and the
// MCP guide (docs/mcp.md), which users read to set clients up, says so and names the
// template that does read documents.
func TestResourcesListSaysWhyEmpty(t *testing.T) {
	url, _ := serve(t, newFakeIndex(), mcp.Options{})
	cs := connect(t, url, "alice", "2025-11-25")
	res, err := cs.ListResources(t.Context(), nil)
	if err != nil || len(res.Resources) != 0 {
		t.Fatalf("resources/list = %+v, %v; want none", res, err)
	}
	tpl, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil || len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != mcp.DocumentURIPrefix+"{file_id}" {
		t.Fatalf("resources/templates/list = %+v, %v", tpl, err)
	}
	readme, err := os.ReadFile("../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	if s := string(readme); !strings.Contains(s, "`resources/list` is empty on purpose") || !strings.Contains(s, "`nextcloud://document/{file_id}`") {
		t.Errorf("docs/mcp.md does not say why resources/list is empty, or names no document template")
	}
}
