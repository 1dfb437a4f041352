package hybridsearch_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestDeps enforces the package rules of style.md: the root is vocabulary
// (stdlib only); indexing, search and analysis import no transport;
// adapters never import each other (the Qdrant adapter, store, never
// imports the embedded store, store/local, which shares its contract);
// Echo stays in handlers, the MCP SDK in mcp and Prometheus in metrics. Nextcloud's protocol
// facts live in nextcloud: handlers may use only its dependency-free
// nextcloud/appapi (header encoding, proxy and HaRP URLs), never the client.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/hybrid-search/hybridsearch"
	imports := map[string][]string{} // package -> its direct imports
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
			Deps       []string
			Standard   bool
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.ImportPath, mod) {
			imports[p.ImportPath] = p.Deps
		}
	}
	transports := []string{"net/http", "github.com/labstack/echo", "github.com/nats-io", "google.golang.org/grpc", "github.com/qdrant", "github.com/modelcontextprotocol"}
	rules := []struct {
		pkg       string
		forbidden []string
	}{
		{mod, []string{"github.com/", "golang.org/", "google.golang.org/"}},
		{mod + "/analysis", transports},
		{mod + "/indexing", transports},
		{mod + "/indexing/chunk", transports},
		{mod + "/indexing/extract", transports},
		{mod + "/search", transports},
		{mod + "/store", []string{mod + "/store/local", mod + "/nextcloud", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", "github.com/labstack/echo"}},
		{mod + "/store/local", []string{mod + "/nextcloud", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", "github.com/labstack/echo", "github.com/nats-io"}},
		{mod + "/nextcloud", []string{mod + "/store", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", "github.com/labstack/echo"}},
		{mod + "/queue", []string{mod + "/store", mod + "/nextcloud", mod + "/embedding", mod + "/indexing", mod + "/search", "github.com/labstack/echo"}},
		{mod + "/kv", []string{mod + "/store", mod + "/nextcloud", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", "github.com/labstack/echo"}},
		{mod + "/oauth", []string{mod + "/store", mod + "/nextcloud", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", mod + "/tokens", mod + "/handlers", "github.com/labstack/echo", "github.com/nats-io"}},
		{mod + "/nextcloud/appapi", []string{"github.com/", "golang.org/", "google.golang.org/", "net/http", mod + "/"}},
		{mod + "/embedding", []string{mod + "/store", mod + "/nextcloud", mod + "/queue", mod + "/indexing", mod + "/search", "github.com/labstack/echo"}},
		{mod + "/chat", []string{mod + "/store", mod + "/nextcloud", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", mod + "/answer", "github.com/labstack/echo"}},
		// answer writes answers: it talks to the search and the chat model
		// through interfaces of its own, and to no transport.
		{mod + "/answer", append([]string{mod + "/chat", mod + "/search", mod + "/store", mod + "/nextcloud", mod + "/embedding", "github.com/ollama"}, transports...)},
		{mod + "/assistant", []string{mod + "/chat", mod + "/answer", mod + "/search", mod + "/store", mod + "/embedding", mod + "/queue", "github.com/labstack/echo", "github.com/ollama"}},
	}
	for _, r := range rules {
		deps, ok := imports[r.pkg]
		if !ok {
			continue // package not written yet
		}
		for _, d := range deps {
			for _, f := range r.forbidden {
				if d == f || strings.HasPrefix(d, f+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(d, f)) {
					t.Errorf("%s depends on %s, which it must not", r.pkg, d)
				}
			}
		}
	}
	for pkg, deps := range imports {
		for _, d := range deps {
			if strings.HasPrefix(pkg, mod+"/handlers") && (d == mod+"/nextcloud" || strings.HasPrefix(d, mod+"/nextcloud/") && d != mod+"/nextcloud/appapi") {
				t.Errorf("%s depends on %s; handlers may use only nextcloud/appapi", pkg, d)
			}
			if strings.HasPrefix(d, "github.com/labstack/echo") && !strings.HasPrefix(pkg, mod+"/handlers") && !strings.HasPrefix(pkg, mod+"/cmd/") {
				t.Errorf("%s depends on Echo; only handlers may", pkg)
			}
			if strings.HasPrefix(d, "github.com/modelcontextprotocol") && pkg != mod+"/mcp" && !strings.HasPrefix(pkg, mod+"/cmd/") && !strings.HasPrefix(pkg, mod+"/handlers") {
				t.Errorf("%s depends on the MCP SDK; only mcp may", pkg)
			}
			if strings.HasPrefix(d, "github.com/prometheus/") && pkg != mod+"/metrics" && !strings.HasPrefix(pkg, mod+"/cmd/") {
				t.Errorf("%s depends on the Prometheus client; only metrics may (the others report through their own func fields)", pkg)
			}
		}
	}
}
