package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestDemoAppPort: --app-port fixes the app's own port, so the README's
// direct-MCP curl works as written.
func TestDemoAppPort(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the whole demo")
	}
	port := freePort(t)
	d := startDemoArgs(t, []string{"--data", t.TempDir(), "--app-port", fmt.Sprint(port)})
	want := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	if d.ready.MCPDirectURL != want {
		t.Fatalf("mcp_direct_url = %q, want %q", d.ready.MCPDirectURL, want)
	}
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/heartbeat", port))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("heartbeat on --app-port = %d", resp.StatusCode)
	}
	out, err := command(t, "--app-port", "70000").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--app-port 70000 is not a port") {
		t.Errorf("demo --app-port 70000 = %v, %s; want an error", err, out)
	}
}
