package mcp_test

import (
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/mcp"
)

// TestStatusAllNeedsAnAdmin: nc_index_status with all=true gives an admin
// every user's counts; anyone else gets a tool error that says it is
// forbidden (not that they are signed out), as GET /api/status?all=1
// answers 403.
func TestStatusAllNeedsAnAdmin(t *testing.T) {
	url, _ := serve(t, newFakeIndex(), mcp.Options{})
	res := call(t, connect(t, url, "alice", "2025-11-25"), mcp.ToolStatus, map[string]any{"all": true})
	if !res.IsError || !strings.HasPrefix(text(res), "forbidden: ") || !strings.Contains(text(res), "admins") {
		t.Errorf("nc_index_status all=true as alice = %v %q, want a forbidden tool error", res.IsError, text(res))
	}
	res = call(t, connect(t, url, "admin", "2025-11-25"), mcp.ToolStatus, map[string]any{"all": true})
	if res.IsError {
		t.Errorf("nc_index_status all=true as admin: %s", text(res))
	}
}
