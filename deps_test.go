package hybridsearch_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestDeps enforces the package rules of docs/style.md: the root is vocabulary
// (stdlib only); indexing, search and analysis import no transport;
// adapters never import each other (the Qdrant adapter, store/qdrant,
// and the embedded store, store/local, share the contract in store, which
// imports neither and no Qdrant client);
// Echo stays in handlers, the MCP SDK in mcp and Prometheus in metrics (the
// application, app, wires them, as cmd does); the product binary and app
// link no simulator or test fake. Nextcloud's protocol
// facts live in nextcloud: handlers may use only its dependency-free
// nextcloud/appapi (header encoding, proxy and HaRP URLs) and
// nextcloud/webhook (event classes, node paths, webhook parsing), never
// the client; search and mcp build Nextcloud links with nextcloud/link.
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
	testOnly := []string{mod + "/nextcloud/ncsim", mod + "/store/qdranttest", mod + "/embedding/embeddingtest", mod + "/queue/natstest", mod + "/internal/e2etest"}
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
		{mod + "/store", []string{mod + "/store/local", mod + "/store/qdrant", "github.com/qdrant", "google.golang.org/grpc", mod + "/nextcloud", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", "github.com/labstack/echo"}},
		{mod + "/store/local", []string{mod + "/store/qdrant", "github.com/qdrant", "google.golang.org/grpc", mod + "/nextcloud", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", "github.com/labstack/echo", "github.com/nats-io"}},
		{mod + "/store/qdrant", []string{mod + "/store/local", mod + "/nextcloud", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", "github.com/labstack/echo", "github.com/nats-io"}},
		{mod + "/nextcloud", []string{mod + "/store", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", "github.com/labstack/echo"}},
		{mod + "/queue", []string{mod + "/store", mod + "/nextcloud", mod + "/embedding", mod + "/indexing", mod + "/search", "github.com/labstack/echo"}},
		{mod + "/kv", []string{mod + "/store", mod + "/nextcloud", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", "github.com/labstack/echo"}},
		{mod + "/oauth", []string{mod + "/store", mod + "/nextcloud", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", mod + "/tokens", mod + "/handlers", "github.com/labstack/echo", "github.com/nats-io"}},
		{mod + "/nextcloud/appapi", []string{"github.com/", "golang.org/", "google.golang.org/", "net/http", mod + "/"}},
		// and no module but the root, below:
		{mod + "/nextcloud/webhook", []string{mod + "/", "net/http"}},
		{mod + "/nextcloud/link", []string{mod + "/", "net/http"}},
		{mod + "/embedding", []string{mod + "/store", mod + "/nextcloud", mod + "/queue", mod + "/indexing", mod + "/search", "github.com/labstack/echo"}},
		{mod + "/chat", []string{mod + "/store", mod + "/nextcloud", mod + "/queue", mod + "/embedding", mod + "/indexing", mod + "/search", mod + "/answer", "github.com/labstack/echo"}},
		// answer writes answers: it talks to the search and the chat model
		// through interfaces of its own, and to no transport.
		{mod + "/answer", append([]string{mod + "/chat", mod + "/search", mod + "/store", mod + "/nextcloud", mod + "/embedding", "github.com/ollama"}, transports...)},
		{mod + "/assistant", []string{mod + "/chat", mod + "/answer", mod + "/search", mod + "/store", mod + "/embedding", mod + "/queue", "github.com/labstack/echo", "github.com/ollama"}},
		// The product binary (serve, worker, the CLI) and the application
		// link no simulator and no test fake: the demo is its own command,
		// cmd/hybridsearch-demo. Their tests may import them.
		// bleve is a test reference only (search/qualitytest); the product
		// keeps its own stop-word lists and links only the Snowball stemmers.
		{mod + "/cmd/hybridsearch", append([]string{"github.com/blevesearch/bleve"}, testOnly...)},
		{mod + "/app", append([]string{"github.com/blevesearch/bleve"}, testOnly...)},
		{mod + "/cli", append([]string{mod + "/app"}, testOnly...)},
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
		wires := strings.HasPrefix(pkg, mod+"/cmd/") || pkg == mod+"/app"
		for _, d := range deps {
			if (pkg == mod+"/nextcloud/webhook" || pkg == mod+"/nextcloud/link") && d != mod && strings.Contains(strings.Split(d, "/")[0], ".") {
				t.Errorf("%s depends on %s; it may use only the standard library and the root", pkg, d)
			}
			if strings.HasPrefix(pkg, mod+"/handlers") && (d == mod+"/nextcloud" || strings.HasPrefix(d, mod+"/nextcloud/") && d != mod+"/nextcloud/appapi" && d != mod+"/nextcloud/webhook") {
				t.Errorf("%s depends on %s; handlers may use only nextcloud/appapi and nextcloud/webhook", pkg, d)
			}
			if strings.HasPrefix(d, "github.com/labstack/echo") && !strings.HasPrefix(pkg, mod+"/handlers") && !wires {
				t.Errorf("%s depends on Echo; only handlers may", pkg)
			}
			if strings.HasPrefix(d, "github.com/modelcontextprotocol") && pkg != mod+"/mcp" && !wires && !strings.HasPrefix(pkg, mod+"/handlers") {
				t.Errorf("%s depends on the MCP SDK; only mcp may", pkg)
			}
			if strings.HasPrefix(d, "github.com/prometheus/") && pkg != mod+"/metrics" && !wires {
				t.Errorf("%s depends on the Prometheus client; only metrics may (the others report through their own func fields)", pkg)
			}
		}
	}
}
