package docker_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/appinfo"
	"github.com/hybrid-search/hybridsearch/internal/syncbuf"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// The image tests run the built image in a real Docker engine as AppAPI
// would. scripts/test-image builds the image and sets HS_IMAGE (the tag),
// HS_DOCKER (the docker client) and HS_FRPS (a real frps built from the frp
// module); without HS_IMAGE they skip.

type imageEnv struct {
	image, docker, frps string
}

func needImage(t *testing.T) imageEnv {
	t.Helper()
	e := imageEnv{image: os.Getenv("HS_IMAGE"), docker: os.Getenv("HS_DOCKER"), frps: os.Getenv("HS_FRPS")}
	if e.image == "" {
		t.Skip("HS_IMAGE is not set: scripts/test-image builds the image and runs these tests")
	}
	if e.docker == "" {
		e.docker = "docker"
	}
	return e
}

// run runs docker with args and returns its combined output.
func (e imageEnv) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(e.docker, args...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (e imageEnv) must(t *testing.T, args ...string) string {
	t.Helper()
	out, err := e.run(t, args...)
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// exec runs cmd in the container as HaRP does: no User, so as the image's.
func (e imageEnv) exec(t *testing.T, container string, cmd ...string) (string, error) {
	t.Helper()
	return e.run(t, append([]string{"exec", container}, cmd...)...)
}

// putArchive extracts files (path without the leading "/" → content) at
// the container's root through the archive API, as HaRP's
// _put_archive_to_container does: plain tar headers, uid 0, mode 0644.
func (e imageEnv) putArchive(t *testing.T, container string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Size: int64(len(content)), Mode: 0o644, ModTime: time.Now()}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(content))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(e.docker, "cp", "-", container+":/")
	cmd.Stdin = &buf
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("docker cp - %s:/: %v\n%s", container, err, out)
	}
}

// container removes name (and its volume) when the test ends, printing
// its logs if the test failed.
func (e imageEnv) cleanup(t *testing.T, name, volume string) {
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := e.run(t, "logs", "--tail", "80", name)
			t.Logf("logs of %s:\n%s", name, logs)
		}
		_, _ = e.run(t, "rm", "-f", name)
		if volume != "" {
			_, _ = e.run(t, "volume", "rm", "-f", volume)
		}
	})
}

func (e imageEnv) health(t *testing.T, name string) string {
	out, _ := e.run(t, "inspect", "--format", "{{if .State.Health}}{{.State.Health.Status}}{{end}}", name)
	return out
}

// appEnvArgs turns the registration's environment into docker -e flags,
// with overrides.
func appEnvArgs(env ncsim.Env, over map[string]string) []string {
	var args []string
	seen := map[string]bool{}
	for _, v := range env {
		val := v.Value
		if o, ok := over[v.Name]; ok {
			val = o
		}
		seen[v.Name] = true
		args = append(args, "-e", v.Name+"="+val)
	}
	for k, v := range over {
		if !seen[k] {
			args = append(args, "-e", k+"="+v)
		}
	}
	return args
}

// searchFinds asks the app, through the simulated AppAPI proxy as alice,
// whether query finds path.
func searchFinds(sim *ncsim.Server, client *http.Client, query, path string) bool {
	u := sim.BaseURL + "/index.php/apps/app_api/proxy/hybrid_search/api/search?q=" + url.QueryEscape(query)
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.SetBasicAuth("alice", "alice")
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == 200 && strings.Contains(string(b), path)
}

func awaitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > timeout {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(250 * time.Millisecond)
	}
	return time.Since(start)
}

const sampleText = "The quokkabarometer of Zanzibar measures tides.\n"

// TestImageManual runs the image as AppAPI's manual install or Docker
// deploy daemon would: host network, APP_HOST=::, a named volume. It
// installs against the simulator, indexes and searches, restarts on the
// same volume and searches again, and checks the health check. A
// root-owned bind mount stops the container with an error naming the fix.
func TestImageManual(t *testing.T) {
	e := needImage(t)
	sim := &ncsim.Server{}
	if _, err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	sim.AddUser("alice", "Alice", true)
	sim.PutFile("alice", "/Notes/tides.md", []byte(sampleText))
	reg, err := ncsim.ParseInfoXML(appinfo.InfoXML)
	if err != nil {
		t.Fatal(err)
	}
	reg.Port = freePort(t)
	env, err := sim.RegisterExApp(reg)
	if err != nil {
		t.Fatal(err)
	}
	name, volume := fmt.Sprintf("hs-test-manual-%d", os.Getpid()), fmt.Sprintf("hs-test-manual-%d", os.Getpid())
	e.cleanup(t, name, volume)
	args := append([]string{"run", "-d", "--name", name, "--network", "host", "-v", volume + ":/nc_app_hybrid_search_data"},
		appEnvArgs(env, map[string]string{"APP_HOST": "::", "OLLAMA_HOST": "off", "SCAN_INTERVAL": "0"})...)
	e.must(t, append(args, e.image)...)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	if err := sim.Install(ctx, "hybrid_search"); err != nil {
		t.Fatalf("install: %v", err)
	}
	t.Logf("manual mode: installed %s after the container started", time.Since(start).Round(time.Millisecond))
	client := &http.Client{Timeout: 10 * time.Second}
	d := awaitFor(t, "alice's note in the search results", 2*time.Minute, func() bool { return searchFinds(sim, client, "quokkabarometer", "/Notes/tides.md") })
	t.Logf("manual mode: searchable %s after install", d.Round(time.Millisecond))
	awaitFor(t, "the container healthy", time.Minute, func() bool { return e.health(t, name) == "healthy" })
	if out, err := e.exec(t, name, "hybridsearch", "version"); err != nil || !strings.HasSuffix(out, appinfo.Version()) {
		t.Errorf("hybridsearch version in the image = %q (%v), want %s", out, err, appinfo.Version())
	}

	e.must(t, "restart", name)
	d = awaitFor(t, "the note found again after a restart on the same volume", time.Minute, func() bool {
		return searchFinds(sim, client, "quokkabarometer", "/Notes/tides.md")
	})
	t.Logf("manual mode: restart on the same volume answered the search %s after docker restart returned", d.Round(time.Millisecond))

	// A host folder owned by root, bind-mounted: a clear error at once.
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := e.run(t, append(append([]string{"run", "--rm", "--network", "host", "-v", dir + ":/nc_app_hybrid_search_data"},
		appEnvArgs(env, map[string]string{"APP_PORT": strconv.Itoa(freePort(t))})...), e.image)...)
	if err == nil || !strings.Contains(out, "is not writable by the app's user (uid 10001") || !strings.Contains(out, "chown -R 10001:10001") {
		t.Errorf("a root-owned bind mount: %v\n%s\nwant an error naming the fix", err, out)
	}
}

// pki is a CA and the certificates it signed, as PEM.
type pki struct {
	caPEM   string
	caCert  *x509.Certificate
	caKey   *rsa.PrivateKey
	pool    *x509.CertPool
	counter int64
}

func newCA(t *testing.T, cn string) *pki {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	p := &pki{caPEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), caCert: cert, caKey: key, pool: x509.NewCertPool(), counter: 1}
	p.pool.AddCert(cert)
	return p
}

// issue signs a leaf certificate for cn (and dns/ips) and returns
// certificate and key PEM.
func (p *pki) issue(t *testing.T, cn string, dns []string, ips []net.IP) (string, string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(atomic.AddInt64(&p.counter, 1)), Subject: pkix.Name{CommonName: cn},
		DNSNames: dns, IPAddresses: ips, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &key.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
}

// startFrps runs a real frps as HaRP configures it (start.sh: TLS forced,
// proxies bound to 127.0.0.1, logins checked by HaRP's /frp_handler) and
// returns a function that stops it.
func startFrps(t *testing.T, frps, dir string, port, appPort int, loginURL string, logs *syncbuf.Buffer) func() {
	t.Helper()
	conf := fmt.Sprintf(`bindAddr = "127.0.0.1"
bindPort = %d
proxyBindAddr = "127.0.0.1"

transport.tls.force = true
transport.tls.certFile = "%[2]s/server.crt"
transport.tls.keyFile = "%[2]s/server.key"
transport.tls.trustedCaFile = "%[2]s/ca.crt"

log.level = "info"

maxPortsPerClient = 1
allowPorts = [
  { start = %[3]d, end = %[3]d }
]

[[httpPlugins]]
addr = "%[4]s"
path = "/frp_handler"
ops = ["Login"]
`, port, dir, appPort, loginURL)
	path := filepath.Join(dir, "frps.toml")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(frps, "-c", path)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stopped atomic.Bool
	stop := func() {
		if stopped.CompareAndSwap(false, true) {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}
	}
	t.Cleanup(stop)
	return stop
}

// TestImageHaRP runs the image as AppAPI does behind HaRP, against a real
// frps with TLS forced: the container is created, started, given HaRP's
// FRP client certificates and the instance's custom CA with docker exec
// without a user and the archive API (haproxy_agent.py
// docker_exapp_install_certificates), stopped and started again. The
// simulated Nextcloud serves HTTPS with a certificate of that private CA
// and reaches the app only through the tunnel. The health check fails
// while the tunnel is down.
func TestImageHaRP(t *testing.T) {
	e := needImage(t)
	if e.frps == "" {
		t.Skip("HS_FRPS (a real frps) is not set")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}

	// HaRP's certificates (start.sh: CN harp.nc, SAN DNS:harp.nc; client CN harp.client.nc).
	harpCA := newCA(t, "harp.nc")
	serverCrt, serverKey := harpCA.issue(t, "harp.nc", []string{"harp.nc"}, nil)
	clientCrt, clientKey := harpCA.issue(t, "harp.client.nc", []string{"harp.client.nc"}, nil)
	for name, content := range map[string]string{"ca.crt": harpCA.caPEM, "server.crt": serverCrt, "server.key": serverKey} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// Nextcloud behind a private CA.
	ncCA := newCA(t, "Private Nextcloud CA")
	ncCrt, ncKey := ncCA.issue(t, "nextcloud.test", nil, []net.IP{net.IPv4(127, 0, 0, 1)})
	pair, err := tls.X509KeyPair([]byte(ncCrt), []byte(ncKey))
	if err != nil {
		t.Fatal(err)
	}
	sim := &ncsim.Server{}
	ts := httptest.NewUnstartedServer(sim)
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	ts.StartTLS()
	t.Cleanup(ts.Close)
	sim.BaseURL = ts.URL
	t.Cleanup(sim.Close)
	sim.AddUser("alice", "Alice", true)
	sim.PutFile("alice", "/Notes/tides.md", []byte(sampleText))

	// HaRP's login check: the FRP client must present HP_SHARED_KEY.
	const sharedKey = "harp-shared-key-for-the-image-test"
	var logins, refused atomic.Int32
	plugin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Content struct {
				Metas map[string]string `json:"metas"`
			} `json:"content"`
		}
		if r.URL.Path != "/frp_handler" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Content.Metas["token"] != sharedKey {
			refused.Add(1)
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		logins.Add(1)
		_, _ = w.Write([]byte(`{"reject":false,"unchange":true}`))
	}))
	t.Cleanup(plugin.Close)

	appPort, frpPort := freePort(t), freePort(t)
	frpsLogs := &syncbuf.Buffer{}
	stopFrps := startFrps(t, e.frps, dir, frpPort, appPort, strings.TrimPrefix(plugin.URL, "http://"), frpsLogs)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("frps output:\n%s", frpsLogs.String())
		}
	})

	reg, err := ncsim.ParseInfoXML(appinfo.InfoXML)
	if err != nil {
		t.Fatal(err)
	}
	reg.Port = appPort // HaRP reaches the app at frps's proxy port
	env, err := sim.RegisterExApp(reg)
	if err != nil {
		t.Fatal(err)
	}
	name, volume := fmt.Sprintf("hs-test-harp-%d", os.Getpid()), fmt.Sprintf("nc_app_hybrid_search_data_test_%d", os.Getpid())
	e.cleanup(t, name, volume)
	args := append([]string{"create", "--name", name, "--network", "host", "-v", volume + ":/nc_app_hybrid_search_data"},
		appEnvArgs(env, map[string]string{"OLLAMA_HOST": "off", "SCAN_INTERVAL": "0",
			"HP_SHARED_KEY": sharedKey, "HP_FRP_ADDRESS": "127.0.0.1", "HP_FRP_PORT": strconv.Itoa(frpPort),
			"HP_EXAPP_SOCK": "/tmp/exapp.sock"})...)
	e.must(t, append(args, e.image)...)

	// install_certificates: the container was only created, so HaRP starts it.
	e.must(t, "start", name)
	if out, err := e.exec(t, name, "cat", "/etc/os-release"); err != nil || !strings.Contains(strings.ToLower(out), "debian") {
		t.Fatalf("cat /etc/os-release: %v %s", err, out)
	}
	if out, _ := e.exec(t, name, "id", "-u"); out != "10001" {
		t.Errorf("docker exec without a user runs as uid %q, want the image's user 10001", out)
	}
	if out, err := e.exec(t, name, "mkdir", "-p", "/usr/local/share/ca-certificates"); err != nil {
		t.Fatalf("mkdir -p /usr/local/share/ca-certificates as the image's user: %v %s", err, out)
	}
	e.putArchive(t, name, map[string]string{"usr/local/share/ca-certificates/custom_ca_cert_0.crt": ncCA.caPEM})
	if out, err := e.exec(t, name, "update-ca-certificates"); err != nil {
		t.Errorf("update-ca-certificates as the image's user (HaRP logs a failure as an error): %v %s", err, out)
	} else {
		t.Logf("update-ca-certificates: %s", out)
	}
	if out, err := e.exec(t, name, "mkdir", "-p", "/certs/frp"); err != nil {
		t.Fatalf("mkdir -p /certs/frp as the image's user: %v %s", err, out)
	}
	e.putArchive(t, name, map[string]string{"certs/frp/ca.crt": harpCA.caPEM, "certs/frp/client.crt": clientCrt, "certs/frp/client.key": clientKey})
	e.must(t, "stop", name) // HaRP's finally: it started the container, so it stops it
	since := time.Now().UTC().Format(time.RFC3339Nano)
	e.must(t, "start", name)
	start := time.Now()

	// The tunnel: frps's proxy port answers with the app's heartbeat.
	plain := &http.Client{Timeout: 3 * time.Second}
	d := awaitFor(t, "/heartbeat through the FRP tunnel", 2*time.Minute, func() bool {
		resp, err := plain.Get("http://127.0.0.1:" + strconv.Itoa(appPort) + "/heartbeat")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	t.Logf("HaRP mode: first heartbeat through the TLS tunnel %s after docker start", d.Round(time.Millisecond))
	if logins.Load() == 0 {
		t.Error("frps never asked HaRP's login handler")
	}
	if refused.Load() != 0 {
		t.Errorf("HaRP's login handler refused %d logins", refused.Load())
	}

	// AppAPI's install through HaRP; the app calls Nextcloud over HTTPS
	// with the private CA (registering its webhooks on enable).
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := sim.Install(ctx, "hybrid_search"); err != nil {
		t.Fatalf("install through the tunnel: %v", err)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ncCA.pool}}}
	d = awaitFor(t, "alice's note found through HaRP", 2*time.Minute, func() bool { return searchFinds(sim, client, "quokkabarometer", "/Notes/tides.md") })
	t.Logf("HaRP mode: searchable %s after install (the app read it from Nextcloud over HTTPS with the private CA)", d.Round(time.Millisecond))
	// Before the CA was installed (HaRP's first start) the app could not
	// verify Nextcloud; since the start that follows, it must.
	if logs, _ := e.run(t, "logs", "--since", since, name); strings.Contains(logs, "x509") {
		t.Errorf("the app did not trust the instance's CA after HaRP installed it:\n%s", logs)
	}
	awaitFor(t, "the container healthy", time.Minute, func() bool { return e.health(t, name) == "healthy" })
	t.Logf("HaRP mode: container healthy %s after docker start", time.Since(start).Round(time.Millisecond))

	// Tunnel down: frpc still runs, the health check fails.
	stopFrps()
	awaitFor(t, "the health check failing with HaRP's frps gone", 30*time.Second, func() bool {
		out, err := e.exec(t, name, "/usr/local/bin/healthcheck.sh")
		return err != nil && strings.Contains(out, "tunnel to HaRP is down")
	})
	if out, _ := e.exec(t, name, "sh", "-c", "cat /proc/[0-9]*/comm"); !strings.Contains(out, "frpc") {
		t.Errorf("frpc is not running while the tunnel is down (the check must fail for the tunnel, not the process):\n%s", out)
	}
	stopFrps = startFrps(t, e.frps, dir, frpPort, appPort, strings.TrimPrefix(plugin.URL, "http://"), frpsLogs)
	d = awaitFor(t, "the health check passing once frps is back", 2*time.Minute, func() bool {
		_, err := e.exec(t, name, "/usr/local/bin/healthcheck.sh")
		return err == nil
	})
	t.Logf("HaRP mode: tunnel back %s after frps restarted", d.Round(time.Millisecond))
	_ = stopFrps
}
