package app

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/appinfo"
	"github.com/hybrid-search/hybridsearch/internal/syncbuf"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// testEnv is the demo's wiring under test: a simulator with alice and bob
// and the app registered from info.xml and running in this process.
type testEnv struct {
	Sim   *ncsim.Server
	Main  *App
	Alice ncsim.User
	Bob   ncsim.User
	// getenv is what Main was configured from, for restarts.
	getenv func(string) string
	adjust func(c *Config)
	// Logs holds everything the app logged, for tests that look for leaks.
	Logs *syncbuf.Buffer
	// quiet: the app logs errors only, to the test log (long runs).
	quiet bool
	// ln is the listener the next start serves on (its port registered);
	// a restart opens APP_PORT itself, as the product does.
	ln net.Listener
}

// envOptions tune newTestEnv.
type envOptions struct {
	install bool              // run the install flow (default in MustRunMain)
	extra   map[string]string // extra environment for the app
	dataDir string            // "" = t.TempDir()
	setup   func(sim *ncsim.Server)
	adjust  func(c *Config) // changes the config before Main starts
	version string          // Nextcloud version to simulate; "" = ncsim.DefaultVersion
	quiet   bool            // log errors only, and keep no copy (long runs)
}

// MustRunMain starts the simulator and the app and installs the app.
func MustRunMain(t testing.TB) *testEnv {
	t.Helper()
	return newTestEnv(t, envOptions{install: true})
}

func newTestEnv(t testing.TB, o envOptions) *testEnv {
	t.Helper()
	sim := &ncsim.Server{NextcloudVersion: o.version, HeartbeatInterval: 20 * time.Millisecond, WebhookInterval: 50 * time.Millisecond}
	if _, err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sim.Close()
		if u := sim.Unhandled(); len(u) > 0 {
			t.Errorf("requests the simulator does not know: %v", u)
		}
	})
	env := &testEnv{quiet: o.quiet, adjust: o.adjust, Logs: &syncbuf.Buffer{}, Sim: sim, Alice: sim.AddUser("alice", "Alice", true), Bob: sim.AddUser("bob", "Bob", false)}
	if o.setup != nil {
		o.setup(sim)
	}
	reg, err := ncsim.ParseInfoXML(appinfo.InfoXML)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := o.extra["APP_PORT"]; ok { // the test has the app open its port itself
		reg.Port, _ = strconv.Atoi(p)
	} else {
		env.ln, reg.Port = listen(t)
	}
	appEnv, err := sim.RegisterExApp(reg)
	if err != nil {
		t.Fatal(err)
	}
	dataDir := o.dataDir
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	env.getenv = func(k string) string {
		if v, ok := o.extra[k]; ok {
			return v
		}
		if k == "APP_PERSISTENT_STORAGE" {
			return dataDir
		}
		switch k {
		case "LOG_LEVEL":
			return "debug"
		case "OLLAMA_HOST":
			return "off"
		case "SCAN_INTERVAL":
			return "0"
		}
		return appEnv.Get(k)
	}
	env.start(t)
	if o.install {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := sim.Install(ctx, "hybrid_search"); err != nil {
			t.Fatalf("install: %v", err)
		}
	}
	return env
}

// start (re)starts Main from env.getenv.
func (e *testEnv) start(t testing.TB) {
	t.Helper()
	cfg, err := LoadConfig(e.getenv)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RetryBackoff = []time.Duration{200 * time.Millisecond, 500 * time.Millisecond, time.Second}
	if e.adjust != nil {
		e.adjust(&cfg)
	}
	var out io.Writer = io.MultiWriter(testWriter{t}, e.Logs)
	level := slog.LevelDebug
	if e.quiet {
		out, level = testWriter{t}, slog.LevelError
	}
	m := New(cfg, slog.New(requestIDHandler{slog.NewTextHandler(out, &slog.HandlerOptions{Level: level})}))
	m.Listener, e.ln = e.ln, nil
	if err := m.Run(context.Background()); err != nil {
		_ = m.Close()
		t.Fatalf("Main.Run: %v", err)
	}
	e.Main = m
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Main.Close: %v", err)
		}
	})
}

// appURL is the app's own base URL.
func (e *testEnv) appURL() string { return "http://" + e.Main.ListenAddr() }

// proxyGet fetches path through the simulated AppAPI proxy as user (by
// app password); "" means anonymous.
func (e *testEnv) proxyGet(t testing.TB, u *ncsim.User, path string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.Sim.BaseURL+"/index.php/apps/app_api/proxy/hybrid_search/"+strings.TrimPrefix(path, "/"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if u != nil {
		req.SetBasicAuth(u.UID, u.AppPassword)
	}
	return doReq(t, req)
}

// await polls cond until it is true or the deadline passes.
func await(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testWriter sends log lines to t.Log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
