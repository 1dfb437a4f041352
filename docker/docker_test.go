// Package docker_test checks the container image's files without a Docker
// engine: the Dockerfile's stages, and docker/start.sh and
// docker/healthcheck.sh run for real with a stand-in frpc (the test binary
// itself, see fakeFrpc). scripts/test-image runs the built image with the
// real frpc against a real frps.
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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/internal/syncbuf"
)

// dockerfile returns the Dockerfile with continuation lines joined.
func dockerfile(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(raw), "\\\n", " ")
}

// runtimeStage returns the Dockerfile's last stage.
func runtimeStage(t *testing.T) string {
	t.Helper()
	text := dockerfile(t)
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
		{"curl is installed (the health check)", `apt-get install[^;&]*\bcurl\b`},
		{"tini is installed (PID 1 reaps exited frpc processes)", `apt-get install[^;&]*\btini\b`},
		{"TARGETARCH is declared", `(?m)^ARG TARGETARCH\s*$`},
		{"frpc for amd64", `amd64\) frp_arch=amd64`},
		{"frpc for arm64", `arm64\) frp_arch=arm64`},
		{"the download follows the architecture and an overridable base URL", `"\$\{FRP_BASE_URL\}/v\$\{FRP_VERSION\}/frp_\$\{FRP_VERSION\}_linux_\$\{frp_arch\}\.tar\.gz"`},
		{"the download is checked", `sha256sum -c`},
		{"unknown architectures fail the build", `\*\) echo "no frpc build`},
		{"/certs/frp exists for HaRP's docker exec", `mkdir -p [^;]*/certs/frp`},
		{"/certs/frp belongs to the app user", `chown app:app [^;]*/certs/frp`},
		{"the data directory belongs to the app user", `chown app:app /nc_app_hybrid_search_data`},
		{"custom CAs are read from AppAPI's folder", `SSL_CERT_DIR=/usr/local/share/ca-certificates`},
		{"update-ca-certificates as the app user says what happens", `COPY [^\n]*docker/update-ca-certificates /usr/local/bin/update-ca-certificates`},
		{"the health check script", `HEALTHCHECK [^\n]*CMD \["/usr/local/bin/healthcheck.sh"\]`},
		{"the entry point under tini", `ENTRYPOINT \["/usr/bin/tini", "--", "/usr/local/bin/start.sh"\]`},
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

// TestDockerfileBuildStages: the build stages run on the build machine's
// platform and cross-compile, every base image is pinned by digest, the
// panel builds on a supported Node LTS line and npm ci has no fallback.
func TestDockerfileBuildStages(t *testing.T) {
	text := dockerfile(t)
	froms := regexp.MustCompile(`(?m)^FROM .*$`).FindAllString(text, -1)
	if len(froms) != 3 {
		t.Fatalf("want 3 stages, got %q", froms)
	}
	for _, f := range froms[:2] {
		if !strings.HasPrefix(f, "FROM --platform=$BUILDPLATFORM ") {
			t.Errorf("build stage not on $BUILDPLATFORM (an arm64 image would build under emulation): %s", f)
		}
	}
	for _, f := range froms {
		if !regexp.MustCompile(`@sha256:[0-9a-f]{64}( |$)`).MatchString(f) {
			t.Errorf("base image not pinned by digest: %s", f)
		}
	}
	// Node 20 reached its end of life on 2026-04-30; 26 is the LTS line
	// since 2026-10-28.
	if m := regexp.MustCompile(`FROM \S+ node:(\d+)`).FindStringSubmatch(froms[0]); m == nil {
		t.Errorf("the first stage is not a node image: %s", froms[0])
	} else if n, _ := strconv.Atoi(m[1]); n < 26 || n%2 != 0 {
		t.Errorf("the panel builds on Node %d; want an LTS line from 26 on", n)
	}
	if !regexp.MustCompile(`GOOS=\$\{TARGETOS[^}]*\} GOARCH=\$\{TARGETARCH\}[^\n]*go build`).MatchString(text) {
		t.Error("go build does not cross-compile for TARGETOS/TARGETARCH")
	}
	if !regexp.MustCompile(`(?m)^RUN npm ci( |$)`).MatchString(text) || regexp.MustCompile(`(?m)^RUN [^\n]*(npm ci[^\n]*\|\||npm install)`).MatchString(text) {
		t.Error("the panel must install with a plain npm ci (it fails on a stale package-lock.json), no npm install fallback")
	}
	if strings.HasPrefix(text, "# syntax=") {
		t.Error("a # syntax= line makes builders fetch a frontend image; nothing here needs one")
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

// harpRun is docker/start.sh running in HaRP mode with the real app and
// the stand-in frpc.
type harpRun struct {
	dir, bin, certs string
	env             []string
	cmd             *exec.Cmd
	stop            func() // kills the running start.sh's process group
	logs            *syncbuf.Buffer
}

func startHaRPMode(t *testing.T) *harpRun {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the app")
	}
	for _, tool := range []string{"sh", "curl", "od"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := &harpRun{dir: t.TempDir(), logs: &syncbuf.Buffer{}}
	r.bin = filepath.Join(r.dir, "bin")
	r.certs = filepath.Join(r.dir, "certs", "frp") // as in the image: there, empty
	for _, d := range []string{r.bin, r.certs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command("go", "build", "-o", filepath.Join(r.bin, "hybridsearch"), "../cmd/hybridsearch")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.Symlink(self, filepath.Join(r.bin, "frpc")); err != nil {
		t.Fatal(err)
	}
	// HaRP forces TLS by default (HP_FRP_DISABLE_TLS=false).
	if err := os.WriteFile(filepath.Join(r.bin, "tls-required"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(r.dir, "exapp.sock")
	if err := os.WriteFile(sock, []byte("stale"), 0o600); err != nil { // left by a previous run
		t.Fatal(err)
	}
	r.env = []string{
		"PATH=" + r.bin + ":" + os.Getenv("PATH"),
		"HP_SHARED_KEY=harp-key-123", "HP_FRP_ADDRESS=harp.local", "HP_FRP_PORT=8782", "HP_EXAPP_SOCK=" + sock,
		"APP_ID=hybrid_search", "APP_PORT=23007", "APP_SECRET=s3cret", "APP_VERSION=1.0.0", "APP_HOST=127.0.0.1",
		"NEXTCLOUD_URL=http://127.0.0.1:9", "AA_VERSION=34.0.0", "APP_PERSISTENT_STORAGE=" + filepath.Join(r.dir, "data"),
		"OLLAMA_HOST=off", "SCAN_INTERVAL=0", "LOG_LEVEL=warn",
		"FRPC_CONFIG=" + filepath.Join(r.dir, "frpc.toml"), "FRPC_ADMIN_FILE=" + filepath.Join(r.dir, "frpc-admin"),
		"FRPC_CERT_DIR=" + r.certs, "FAKE_FRPC_DIR=" + r.bin, "FRPC_RESTART_DELAY=1", "FRPC_ADMIN_PORT=" + strconv.Itoa(freePort(t)),
	}
	r.launch(t)
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
	}, r.logs)
	return r
}

// launch starts docker/start.sh as its own process group, killed (app,
// supervisor and frpc) when the test ends or stop is called.
func (r *harpRun) launch(t *testing.T) {
	t.Helper()
	cmd := exec.Command("sh", "start.sh")
	cmd.Env = r.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = r.logs, r.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.cmd = cmd
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		})
	}
	t.Cleanup(r.stop)
}

// killFrpc kills the running frpc (its own pid, not any process named
// frpc) and waits until it has exited: its admin port refuses connections.
func (r *harpRun) killFrpc(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.bin, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("frpc's pid file: %v", err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill frpc %d: %v", pid, err)
	}
	addr := ""
	for _, kv := range r.env {
		if v, ok := strings.CutPrefix(kv, "FRPC_ADMIN_PORT="); ok {
			addr = net.JoinHostPort("127.0.0.1", v)
		}
	}
	await(t, "the killed frpc's admin port to close", func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return true
		}
		c.Close()
		return false
	}, r.logs)
}

// installCerts writes the three files HaRP copies into /certs/frp.
func (r *harpRun) installCerts(t *testing.T) {
	t.Helper()
	for _, f := range []string{"ca.crt", "client.crt", "client.key"} {
		if err := os.WriteFile(filepath.Join(r.certs, f), []byte("-----BEGIN PEM-----\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// health runs healthcheck.sh and returns its error and output.
func (r *harpRun) health() (string, error) {
	c := exec.Command("sh", "healthcheck.sh")
	c.Env = r.env
	out, err := c.CombinedOutput()
	return string(out), err
}

func (r *harpRun) config(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.bin, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStartShBehindHaRP runs docker/start.sh as the container does behind
// HaRP: frpc starts without TLS (no certificates yet) and HaRP's frps,
// which forces TLS, refuses it, so the health check fails; once HaRP has
// copied its certificates into /certs/frp, frpc is restarted with TLS
// (as HaRP's own example config has it) and the tunnel is up. The health
// check fails while HaRP is unreachable although frpc runs, and when frpc
// has died, until start.sh has restarted it.
func TestStartShBehindHaRP(t *testing.T) {
	r := startHaRPMode(t)

	await(t, "frpc restarted after its first exit", func() bool {
		b, _ := os.ReadFile(filepath.Join(r.bin, "starts"))
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n >= 2
	}, r.logs)
	conf := r.config(t)
	for _, want := range []string{
		`serverAddr = "harp.local"`, `serverPort = 8782`, `loginFailExit = false`, `metadatas.token = "harp-key-123"`,
		`transport.tls.enable = false`, `remotePort = 23007`, `name = "hybrid_search"`, `type = "unix_domain_socket"`,
		`unixPath = "` + filepath.Join(r.dir, "exapp.sock") + `"`, `webServer.addr = "127.0.0.1"`,
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("frpc config lacks %q:\n%s", want, conf)
		}
	}
	for _, f := range []string{"frpc.toml", "frpc-admin"} {
		if fi, err := os.Stat(filepath.Join(r.dir, f)); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s (it holds a secret): %v, mode %v", f, err, fi.Mode().Perm())
		}
	}
	if out, err := r.health(); err == nil || !strings.Contains(out, "tunnel to HaRP is down") {
		t.Errorf("healthcheck.sh with frpc refused by a TLS-only HaRP: %v %q, want a failure naming the tunnel", err, out)
	}

	// HaRP's install_certificates: three files, then TLS.
	r.installCerts(t)
	await(t, "frpc restarted with TLS and healthy", func() bool { _, err := r.health(); return err == nil }, r.logs)
	conf = r.config(t)
	for _, want := range []string{
		`transport.tls.enable = true`, `transport.tls.certFile = "` + r.certs + `/client.crt"`,
		`transport.tls.keyFile = "` + r.certs + `/client.key"`, `transport.tls.trustedCaFile = "` + r.certs + `/ca.crt"`,
		`transport.tls.serverName = "harp.nc"`,
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("frpc config after the certificates lacks %q:\n%s", want, conf)
		}
	}
	if !strings.Contains(r.logs.String(), "restarting frpc with TLS") {
		t.Errorf("start.sh did not say it switched to TLS; output:\n%s", r.logs.String())
	}

	// HaRP unreachable: frpc runs, the tunnel is down, the check fails.
	down := filepath.Join(r.bin, "server-down")
	if err := os.WriteFile(down, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := r.health(); err == nil || !strings.Contains(out, "tunnel to HaRP is down") {
		t.Errorf("healthcheck.sh while HaRP is unreachable: %v %q, want a failure", err, out)
	}
	if err := os.Remove(down); err != nil {
		t.Fatal(err)
	}
	if out, err := r.health(); err != nil {
		t.Fatalf("healthcheck.sh with HaRP back: %v %s", err, out)
	}

	// frpc dies: the check fails, and passes again once start.sh has
	// restarted frpc. The restarted frpc is held back until the failure
	// has been seen, so no restart delay has to outlast the check.
	hold := filepath.Join(r.bin, "hold")
	if err := os.WriteFile(hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r.killFrpc(t)
	if _, err := r.health(); err == nil {
		t.Error("healthcheck.sh passed after frpc died")
	}
	if err := os.Remove(hold); err != nil {
		t.Fatal(err)
	}
	await(t, "frpc restarted and healthy again", func() bool { _, err := r.health(); return err == nil }, r.logs)
	if !strings.Contains(r.logs.String(), "restarting it in 1s") {
		t.Errorf("start.sh did not say it restarts frpc; output:\n%s", r.logs.String())
	}
	if strings.Contains(r.logs.String(), "harp-key-123") || strings.Contains(r.logs.String(), "s3cret") {
		t.Errorf("a secret appears in the container output:\n%s", r.logs.String())
	}
}

// TestStartShCertificatesBeforeStart: when HaRP's certificates are there
// when the container starts (HaRP installs them, stops the container and
// AppAPI starts it again), frpc talks TLS from its first start.
func TestStartShCertificatesBeforeStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the app")
	}
	// Reuse startHaRPMode's setup but with the certificates written first:
	// its frpc exits once on purpose, so the config seen is the restart's.
	r := startHaRPMode(t)
	await(t, "frpc's restart after its first exit", func() bool {
		b, _ := os.ReadFile(filepath.Join(r.bin, "starts"))
		return strings.TrimSpace(string(b)) == "2"
	}, r.logs)
	r.stop()
	r.installCerts(t)
	r.launch(t)
	await(t, "healthy with TLS from the start", func() bool { _, err := r.health(); return err == nil }, r.logs)
	if conf := r.config(t); !strings.Contains(conf, "transport.tls.enable = true") {
		t.Errorf("config:\n%s", conf)
	}
	if n := strings.Count(r.logs.String(), "restarting frpc with TLS"); n != 0 {
		t.Errorf("frpc was switched to TLS %d times after a start with certificates", n)
	}
}

// TestStartShDataDirNotWritable: a bind mount the app user cannot write
// (root-owned on the host) stops the container at once with an error that
// names the fix, not with a failure deep in the store.
func TestStartShDataDirNotWritable(t *testing.T) {
	base := t.TempDir()
	data := filepath.Join(base, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	uid := os.Getuid()
	if uid == 0 {
		if _, err := exec.LookPath("setpriv"); err != nil {
			t.Skip("as root the test needs setpriv to run start.sh as another user")
		}
		for _, d := range []string{filepath.Dir(base), base} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		uid = 65534
		cmd = exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "start.sh")
	} else {
		if err := os.Chmod(data, 0o555); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command("sh", "start.sh")
	}
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "APP_PERSISTENT_STORAGE=" + data}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("start.sh went on with a read-only data directory:\n%s", out)
	}
	for _, want := range []string{"the data directory " + data + " is not writable", "named Docker volume", "chown -R " + strconv.Itoa(uid) + ":"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("start.sh output lacks %q:\n%s", want, out)
		}
	}
}

// TestHealthcheckAppHost: outside HaRP the check reaches the app on
// APP_HOST, IPv6 and wildcard addresses included.
func TestHealthcheckAppHost(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	serve := func(addr string) (string, func()) {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("listen %s: %v", addr, err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/heartbeat" {
				_, _ = w.Write([]byte(`{"status":"ok"}`))
				return
			}
			http.NotFound(w, r)
		})}
		go func() { _ = srv.Serve(ln) }()
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		return port, func() { srv.Close() }
	}
	tests := []struct{ listen, appHost string }{
		{"127.0.0.1:0", "127.0.0.1"},
		{"127.0.0.1:0", "0.0.0.0"},
		{"[::]:0", "::"},
		{"[::1]:0", "::1"},
	}
	for _, tt := range tests {
		t.Run(tt.appHost, func(t *testing.T) {
			port, stop := serve(tt.listen)
			check := func() (string, error) {
				c := exec.Command("sh", "healthcheck.sh")
				c.Env = []string{"PATH=" + os.Getenv("PATH"), "APP_HOST=" + tt.appHost, "APP_PORT=" + port}
				out, err := c.CombinedOutput()
				return string(out), err
			}
			if out, err := check(); err != nil {
				t.Errorf("APP_HOST=%s: %v %s", tt.appHost, err, out)
			}
			stop()
			if out, err := check(); err == nil || !strings.Contains(out, "does not answer /heartbeat") {
				t.Errorf("APP_HOST=%s with the app down: %v %q, want a failure", tt.appHost, err, out)
			}
		})
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
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
