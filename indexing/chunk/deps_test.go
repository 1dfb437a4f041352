package chunk_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The chunker is pure: it must not pull in any transport.
func TestNoTransportDeps(t *testing.T) {
	checkNoTransport(t, ".")
	checkNoTransport(t, "../../analysis")
}

func checkNoTransport(t *testing.T, dir string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	cmd := exec.Command(goTool, "list", "-deps", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps in %s: %v", dir, err)
	}
	forbidden := []string{"net/http", "github.com/labstack/echo", "github.com/nats-io/", "google.golang.org/grpc", "github.com/qdrant/"}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("%s depends on %s", dir, dep)
			}
		}
	}
}
