package nextcloud_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// The suite runs against ncsim by default. With NEXTCLOUD_TEST_URL (plus
// NEXTCLOUD_TEST_APP_ID, NEXTCLOUD_TEST_APP_SECRET, NEXTCLOUD_TEST_USER and
// optionally NEXTCLOUD_TEST_APP_VERSION) it runs against a real server
// where the app is registered and enabled; tests that need simulator setup
// are skipped there.

const testAppID = "hybrid_search"

// env is one test's Nextcloud and a client for it.
type env struct {
	c     *nextcloud.Client
	sim   *ncsim.Server // nil against a real server
	url   string        // base URL of the server
	user  hs.UserID
	other hs.UserID  // a second user (simulator only)
	app   *fakeExApp // simulator only
	clock *testClock // the simulator's clock
}

// testClock runs at real speed from a fixed start, plus whatever Advance
// added, so tests can give files distinct modification times quickly.
type testClock struct {
	start time.Time
	mu    sync.Mutex
	extra time.Duration
}

func newTestClock() *testClock { return &testClock{start: time.Now()} }

// Now returns the clock's time.
func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Since(c.start) + c.extra)
}

// Advance moves the clock forward by d.
func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.extra += d
}

// newEnv returns a client for a real server (NEXTCLOUD_TEST_URL) or for a
// fresh simulator with users alice, bob and carol and the app installed.
func newEnv(t *testing.T) *env {
	t.Helper()
	if u := os.Getenv("NEXTCLOUD_TEST_URL"); u != "" {
		version := os.Getenv("NEXTCLOUD_TEST_APP_VERSION")
		if version == "" {
			version = "1.0.0"
		}
		return &env{
			c: &nextcloud.Client{BaseURL: u, AppID: os.Getenv("NEXTCLOUD_TEST_APP_ID"), AppVersion: version,
				AAVersion: "32.0.0", Secret: os.Getenv("NEXTCLOUD_TEST_APP_SECRET"), Logger: testLogger(t)},
			url:  u,
			user: hs.UserID(os.Getenv("NEXTCLOUD_TEST_USER")),
		}
	}
	var stopped atomic.Bool
	clock := newTestClock()
	sim := &ncsim.Server{Now: clock.Now, Logf: func(format string, args ...any) {
		if !stopped.Load() {
			t.Logf(format, args...)
		}
	}}
	srv := httptest.NewServer(sim)
	sim.BaseURL = srv.URL
	t.Cleanup(func() {
		srv.Close()
		stopped.Store(true)
		for _, u := range sim.Unhandled() {
			t.Errorf("ncsim did not simulate %s", u)
		}
	})
	sim.AddUser("alice", "Alice", false)
	sim.AddUser("bob", "Bob", false)
	sim.AddUser("carol", "Carol", false)
	e := &env{sim: sim, url: srv.URL, user: "alice", other: "bob", clock: clock}
	e.c, e.app = installApp(t, sim, testAppID)
	return e
}

// needSim skips the test against a real server and returns the simulator.
func (e *env) needSim(t *testing.T) *ncsim.Server {
	t.Helper()
	if e.sim == nil {
		t.Skip("needs simulator setup")
	}
	return e.sim
}

// registerApp registers appID with sim, backed by a fake ExApp, and
// returns a client built from the environment AppAPI hands the app.
func registerApp(t *testing.T, sim *ncsim.Server, appID string) (*nextcloud.Client, *fakeExApp) {
	t.Helper()
	app := &fakeExApp{}
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	envVars, err := sim.RegisterExApp(ncsim.ExAppRegistration{
		ID: appID, Name: "Test " + appID, Version: "1.0.0", URL: srv.URL,
		Routes: []ncsim.Route{{URL: ".*", Verb: "GET,POST,PUT,DELETE", AccessLevel: ncsim.AccessUser}},
	})
	if err != nil {
		t.Fatalf("RegisterExApp: %v", err)
	}
	c := &nextcloud.Client{
		BaseURL:    envVars.Get("NEXTCLOUD_URL") + "/index.php",
		AppID:      envVars.Get("APP_ID"),
		AppVersion: envVars.Get("APP_VERSION"),
		AAVersion:  envVars.Get("AA_VERSION"),
		Secret:     envVars.Get("APP_SECRET"),
		Logger:     testLogger(t),
	}
	app.client = c
	return c, app
}

// installApp registers appID and runs the simulator's install flow: the
// fake app reports init progress through the client until AppAPI enables
// it.
func installApp(t *testing.T, sim *ncsim.Server, appID string) (*nextcloud.Client, *fakeExApp) {
	t.Helper()
	c, app := registerApp(t, sim, appID)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := sim.Install(ctx, appID); err != nil {
		t.Fatalf("Install: %v", err)
	}
	app.wait()
	for _, err := range app.errors() {
		t.Errorf("fake ExApp: %v", err)
	}
	return c, app
}

// fakeExApp serves AppAPI's lifecycle calls (heartbeat, init, enabled) the
// way the real app does: /init answers at once and reports progress in the
// background through the client.
type fakeExApp struct {
	client *nextcloud.Client
	bg     sync.WaitGroup

	mu      sync.Mutex
	errs    []error
	enabled []string // values of ?enabled= received, in order
}

func (a *fakeExApp) fail(format string, args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.errs = append(a.errs, fmt.Errorf(format, args...))
}

func (a *fakeExApp) errors() []error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]error(nil), a.errs...)
}

func (a *fakeExApp) enabledCalls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.enabled...)
}

// wait waits for the background init work.
func (a *fakeExApp) wait() { a.bg.Wait() }

func (a *fakeExApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/heartbeat" {
		_, _ = w.Write([]byte(`{"status":"ok"}`))
		return
	}
	if got, want := r.Header.Get("AUTHORIZATION-APP-API"), nextcloud.AuthHeaderValue("", a.client.Secret); got != want {
		a.fail("%s %s: AUTHORIZATION-APP-API %q, want the app's secret with no user", r.Method, r.URL.Path, got)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/init":
		a.bg.Add(1)
		go func() {
			defer a.bg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for _, p := range []int{10, 60, 100} {
				if err := a.client.SetInitProgress(ctx, p); err != nil {
					a.fail("SetInitProgress(%d): %v", p, err)
					return
				}
			}
		}()
		_, _ = w.Write([]byte(`{}`))
	case r.Method == http.MethodPut && r.URL.Path == "/enabled":
		a.mu.Lock()
		a.enabled = append(a.enabled, r.URL.Query().Get("enabled"))
		a.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]string{"error": ""})
	default:
		http.NotFound(w, r)
	}
}
