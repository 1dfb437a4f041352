package search_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoTransportDeps keeps the search engine free of transports: it talks
// to the interfaces it declares, never to HTTP, NATS, gRPC or Qdrant.
func TestNoTransportDeps(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{"net/http", "github.com/labstack/echo", "github.com/nats-io/", "google.golang.org/grpc", "github.com/qdrant/", "github.com/ollama/", "github.com/modelcontextprotocol/"}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("search depends on %s", dep)
			}
		}
	}
}
