package docker_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain runs the test binary as a stand-in frpc when it is started
// under that name (the tests link bin/frpc to it).
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "frpc" {
		os.Exit(fakeFrpc(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeFrpc plays frpc for docker/start.sh and docker/healthcheck.sh: it
// reads the TOML config start.sh wrote, serves frpc's admin API
// (GET /api/status behind basic auth, the JSON shape of frp v0.61.1
// client/admin_api.go) and reports the app's proxy "running" while it can
// reach the app's /heartbeat through the unix socket, as the real tunnel
// would, and the simulated HaRP accepts it. Files in FAKE_FRPC_DIR drive
// and record it:
//
//	starts        how many times it started (the first start exits 1)
//	config.toml   a copy of the config it was given
//	server-down   present: HaRP's frps is unreachable (status not running)
//	tls-required  present: frps forces TLS; without TLS in the config, or
//	              with a certificate file missing, it is refused
//	pid           the process ID of the frpc serving its admin API
//	hold          present: a new frpc waits before it serves its admin API
func fakeFrpc(args []string) int {
	dir := os.Getenv("FAKE_FRPC_DIR")
	if dir == "" {
		fmt.Fprintln(os.Stderr, "fake frpc: FAKE_FRPC_DIR is not set")
		return 2
	}
	n := 1
	if b, err := os.ReadFile(filepath.Join(dir, "starts")); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		n++
	}
	_ = os.WriteFile(filepath.Join(dir, "starts"), []byte(strconv.Itoa(n)), 0o644)
	if len(args) != 2 || args[0] != "-c" {
		fmt.Fprintln(os.Stderr, "fake frpc: want -c CONFIG")
		return 2
	}
	raw, err := os.ReadFile(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake frpc:", err)
		return 1
	}
	_ = os.WriteFile(filepath.Join(dir, "config.toml"), raw, 0o600)
	if n == 1 {
		fmt.Fprintln(os.Stderr, "fake frpc: crashing on the first start")
		return 1
	}
	conf := parseTOML(string(raw))
	sock := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", conf["unixPath"])
		}}}
	accepted := func() bool {
		if _, err := os.Stat(filepath.Join(dir, "server-down")); err == nil {
			return false
		}
		if _, err := os.Stat(filepath.Join(dir, "tls-required")); err == nil {
			if conf["transport.tls.enable"] != "true" {
				return false
			}
			for _, k := range []string{"transport.tls.certFile", "transport.tls.keyFile", "transport.tls.trustedCaFile"} {
				if _, err := os.Stat(conf[k]); err != nil {
					return false
				}
			}
		}
		resp, err := sock.Get("http://localhost/heartbeat")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/status", func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != conf["webServer.user"] || pass != conf["webServer.password"] {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		type proxyStatus struct { // frp's ProxyStatusResp
			Name       string `json:"name"`
			Type       string `json:"type"`
			Status     string `json:"status"`
			Err        string `json:"err"`
			LocalAddr  string `json:"local_addr"`
			Plugin     string `json:"plugin"`
			RemoteAddr string `json:"remote_addr"`
		}
		proxies := map[string][]proxyStatus{}
		if accepted() {
			proxies["tcp"] = []proxyStatus{{Name: conf["name"], Type: "tcp", Status: "running",
				Plugin: "unix_domain_socket", RemoteAddr: ":" + conf["remotePort"]}}
		}
		_ = json.NewEncoder(w).Encode(proxies)
	})
	for {
		if _, err := os.Stat(filepath.Join(dir, "hold")); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(os.Getpid())), 0o644)
	addr := net.JoinHostPort(conf["webServer.addr"], conf["webServer.port"])
	if err := http.ListenAndServe(addr, mux); err != nil {
		fmt.Fprintln(os.Stderr, "fake frpc:", err)
	}
	return 1
}

// parseTOML reads the flat "key = value" lines start.sh writes; the last
// of a repeated key wins, quotes are removed.
func parseTOML(s string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
	}
	return out
}
