// Package docker_test checks the container image's files without a Docker
// engine: the Dockerfile's runtime stage and docker/start.sh and
// docker/healthcheck.sh run for real, with a stand-in frpc.
package docker_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/internal/syncbuf"
)

// runtimeStage returns the Dockerfile's last stage, with continuation
// lines joined.
func runtimeStage(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), "\\\n", " ")
	i := strings.LastIndex(text, "\nFROM ")
	if i < 0 {
		t.Fatal("Dockerfile has no stages")
	}
	return text[i:]
}

func TestDockerfileRuntime(t *testing.T) {
	stage := runtimeStage(t)
	checks := []struct {
		what string
		re   string
	}{
		{"procps is installed (the health check runs pgrep)", `apt-get install[^;&]*\bprocps\b`},
		{"curl is installed (the health check)", `apt-get install[^;&]*\bcurl\b`},
		{"TARGETARCH is declared", `(?m)^ARG TARGETARCH\s*$`},
		{"frpc for amd64", `amd64\) frp_arch=amd64`},
		{"frpc for arm64", `arm64\) frp_arch=arm64`},
		{"the download follows the architecture", `frp_\$\{FRP_VERSION\}_linux_\$\{frp_arch\}\.tar\.gz`},
		{"the download is checked", `sha256sum -c`},
		{"unknown architectures fail the build", `\*\) echo "no frpc build`},
		{"the health check script", `HEALTHCHECK [^\n]*CMD \["/usr/local/bin/healthcheck.sh"\]`},
		{"the entry point", `ENTRYPOINT \["/usr/local/bin/start.sh"\]`},
		{"a non-root user", `(?m)^USER app\s*$`},
	}
	for _, c := range checks {
		if !regexp.MustCompile(c.re).MatchString(stage) {
			t.Errorf("runtime stage: %s (no match for %s)", c.what, c.re)
		}
	}
	if strings.Contains(stage, "linux_amd64.tar.gz") {
		t.Error("runtime stage still downloads the amd64 frpc whatever the architecture")
	}
}

func TestDockerignore(t *testing.T) {
	raw, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(raw), "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, want := range []string{".git", "**/*.test", ".artifacts", "**/node_modules"} {
		if !lines[want] {
			t.Errorf(".dockerignore lacks %q", want)
		}
	}
}

// frpcStandIn records each start and the config it was given; its first
// run fails at once (as frpc may crash), later runs stay up and reach the
// app through the unix socket, as the real tunnel would.
const frpcStandIn = `#!/bin/sh
dir=$(dirname "$0")
n=$(($(cat "$dir/starts" 2>/dev/null || echo 0) + 1))
echo "$n" > "$dir/starts"
[ "$1" = "-c" ] && cp "$2" "$dir/config.toml"
[ "$n" -eq 1 ] && exit 1
while :; do
  curl -fsS --max-time 2 --unix-socket "$HP_EXAPP_SOCK" http://localhost/heartbeat > "$dir/tunnel" 2>/dev/null
  sleep 0.2
done
`

// TestStartShBehindHaRP runs docker/start.sh as the container would in HaRP
// mode, with the real app and a stand-in frpc on PATH.
func TestStartShBehindHaRP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the app")
	}
	for _, tool := range []string{"sh", "curl", "pgrep"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "hybridsearch"), "../cmd/hybridsearch")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(bin, "frpc"), []byte(frpcStandIn), 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "exapp.sock")
	if err := os.WriteFile(sock, []byte("stale"), 0o600); err != nil { // left by a previous run
		t.Fatal(err)
	}
	env := []string{
		"PATH=" + bin + ":" + os.Getenv("PATH"),
		"HP_SHARED_KEY=harp-key-123", "HP_FRP_ADDRESS=harp.local", "HP_FRP_PORT=8782", "HP_EXAPP_SOCK=" + sock,
		"APP_ID=hybrid_search", "APP_PORT=23007", "APP_SECRET=s3cret", "APP_VERSION=1.0.0", "APP_HOST=127.0.0.1",
		"NEXTCLOUD_URL=http://127.0.0.1:9", "AA_VERSION=34.0.0", "APP_PERSISTENT_STORAGE=" + filepath.Join(dir, "data"),
		"OLLAMA_HOST=off", "SCAN_INTERVAL=0", "LOG_LEVEL=warn",
		"FRPC_CONFIG=" + filepath.Join(dir, "frpc.toml"), "FRPC_RESTART_DELAY=3",
	}
	cmd := exec.Command("sh", "start.sh")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var logs syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // start.sh's whole group: app, supervisor, frpc
		_ = cmd.Wait()
	})

	// The app listens on the socket (replacing the stale file) and answers.
	unix := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}
	await(t, "the app's /heartbeat on the unix socket", func() bool {
		resp, err := unix.Get("http://localhost/heartbeat")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}, &logs)

	// frpc got the HaRP configuration, was restarted after it failed, and
	// reaches the app through the socket.
	await(t, "frpc restarted and tunnelling", func() bool {
		b, _ := os.ReadFile(filepath.Join(bin, "tunnel"))
		return strings.Contains(string(b), `"ok"`)
	}, &logs)
	starts, _ := os.ReadFile(filepath.Join(bin, "starts"))
	if n, _ := strconv.Atoi(strings.TrimSpace(string(starts))); n < 2 {
		t.Errorf("frpc started %d times, want a restart after its first exit", n)
	}
	conf, err := os.ReadFile(filepath.Join(bin, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`serverAddr = "harp.local"`, `serverPort = 8782`, `loginFailExit = false`, `metadatas.token = "harp-key-123"`,
		`transport.tls.enable = false`, `remotePort = 23007`, `name = "hybrid_search"`, `type = "unix_domain_socket"`,
		`unixPath = "` + sock + `"`,
	} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("frpc config lacks %q:\n%s", want, conf)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "frpc.toml")); err == nil && fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("frpc config (it holds the shared key) has mode %v", fi.Mode().Perm())
	}

	// The health check passes while frpc runs, fails when it is gone (start.sh
	// waits FRPC_RESTART_DELAY, 3 s here, before it restarts it), and passes
	// again once it is back.
	health := func() error {
		c := exec.Command("sh", "healthcheck.sh")
		c.Env = env
		return c.Run()
	}
	if err := health(); err != nil {
		t.Fatalf("healthcheck.sh with the app and frpc up: %v", err)
	}
	if out, err := exec.Command("pkill", "-x", "-g", strconv.Itoa(cmd.Process.Pid), "frpc").CombinedOutput(); err != nil {
		t.Fatalf("pkill frpc: %v %s", err, out)
	}
	if err := health(); err == nil {
		t.Error("healthcheck.sh passed right after frpc died")
	}
	await(t, "frpc restarted and healthy again", func() bool { return health() == nil }, &logs)
	if !strings.Contains(logs.String(), "restarting it") {
		t.Errorf("start.sh did not say it restarts frpc; output:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "harp-key-123") || strings.Contains(logs.String(), "s3cret") {
		t.Errorf("a secret appears in the container output:\n%s", logs.String())
	}
}

// await polls cond for up to 30 s.
func await(t *testing.T, what string, cond func() bool, logs *syncbuf.Buffer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; output:\n%s", what, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
