package app

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/exapp"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

func TestInstallFlow(t *testing.T) {
	t.Parallel()
	env := MustRunMain(t)
	sim := env.Sim
	st := sim.AppStatus("hybrid_search")
	if !st.Enabled || st.Progress != 100 || st.Error != "" {
		t.Fatalf("after install: %+v, want enabled at 100%% without error", st)
	}
	checkRegistered(t, env)

	// Disable removes everything; enable again registers exactly one of each.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := sim.Disable(ctx, "hybrid_search"); err != nil {
		t.Fatal(err)
	}
	if n := len(sim.TopMenus("hybrid_search")); n != 0 {
		t.Errorf("after disable: %d top menus, want 0", n)
	}
	if n := countAppWebhooks(env); n != 0 {
		t.Errorf("after disable: %d webhooks, want 0", n)
	}
	if err := sim.Enable(ctx, "hybrid_search"); err != nil {
		t.Fatal(err)
	}
	if err := sim.Enable(ctx, "hybrid_search"); err != nil { // twice: idempotent
		t.Fatal(err)
	}
	checkRegistered(t, env)
}

func countAppWebhooks(env *testEnv) int {
	n := 0
	for _, w := range env.Sim.Webhooks() {
		if w.AppID == "hybrid_search" {
			n++
		}
	}
	return n
}

// checkRegistered asserts the top menu, script, style, initial state and
// the seven webhooks are registered exactly once.
func checkRegistered(t *testing.T, env *testEnv) {
	t.Helper()
	sim := env.Sim
	menus := sim.TopMenus("hybrid_search")
	if len(menus) != 1 || menus[0].Name != exapp.MenuName || menus[0].Icon != exapp.MenuIcon {
		t.Errorf("top menus = %+v", menus)
	}
	if s := sim.Scripts("hybrid_search"); len(s) != 1 || s[0].Path != exapp.ScriptPath {
		t.Errorf("scripts = %+v", s)
	}
	if s := sim.Styles("hybrid_search"); len(s) != 1 || s[0].Path != exapp.StylePath {
		t.Errorf("styles = %+v", s)
	}
	if s := sim.InitialStates("hybrid_search"); len(s) != 1 {
		t.Errorf("initial states = %+v", s)
	}
	byEvent := map[string]int{}
	for _, w := range sim.Webhooks() {
		if w.AppID != "hybrid_search" {
			continue
		}
		byEvent[w.Event]++
		if w.URI != exapp.WebhookURI || w.HTTPMethod != "POST" || w.UserID != "" {
			t.Errorf("webhook %+v: want POST %s without user", w, exapp.WebhookURI)
		}
		if !strings.Contains(string(w.EventFilter), `files`) {
			t.Errorf("webhook %s has no path filter: %s", w.Event, w.EventFilter)
		}
	}
	for _, ev := range exapp.WebhookEvents {
		if byEvent[ev.Class] != 1 {
			t.Errorf("webhook %s registered %d times, want 1", ev.Class, byEvent[ev.Class])
		}
	}
	if len(byEvent) != len(exapp.WebhookEvents) {
		t.Errorf("webhooks for %d events, want %d: %v", len(byEvent), len(exapp.WebhookEvents), byEvent)
	}
}

func TestPanelThroughProxy(t *testing.T) {
	t.Parallel()
	env := MustRunMain(t)
	// The top-menu page needs a login, then loads the registered script.
	cookie := env.Sim.NewSession("alice")
	req, _ := http.NewRequest(http.MethodGet, env.Sim.BaseURL+"/index.php/apps/app_api/embedded/hybrid_search/search", nil)
	req.AddCookie(cookie)
	resp, page := doReq(t, req)
	if resp.StatusCode != 200 || !strings.Contains(page, "/index.php/apps/app_api/proxy/hybrid_search/js/hybrid_search-main.js") {
		t.Fatalf("panel page = %d, missing the script:\n%s", resp.StatusCode, page)
	}
	resp, js := env.proxyGet(t, &env.Alice, "js/hybrid_search-main.js")
	if resp.StatusCode != 200 || !strings.Contains(js, "api/status") {
		t.Fatalf("script through proxy = %d", resp.StatusCode)
	}
	resp, _ = env.proxyGet(t, nil, "img/app.svg")
	if resp.StatusCode != 200 {
		t.Errorf("icon through proxy (public) = %d", resp.StatusCode)
	}
	resp, _ = env.proxyGet(t, nil, "js/hybrid_search-main.js")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("script for anonymous = %d, want 404 (USER route)", resp.StatusCode)
	}
	resp, body := env.proxyGet(t, &env.Bob, "api/status")
	if resp.StatusCode != 200 {
		t.Fatalf("status through proxy = %d %s", resp.StatusCode, body)
	}
	var st struct {
		User       string                     `json:"user"`
		Components map[string]json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.User != "bob" || len(st.Components) == 0 {
		t.Errorf("status = %s", body)
	}
	// The webhook route is reachable by nobody through the proxy or HaRP,
	// admins included: it takes AppAPI's signature of any user.
	for _, u := range []*ncsim.User{&env.Bob, &env.Alice} {
		for _, url := range []string{
			env.Sim.BaseURL + "/index.php/apps/app_api/proxy/hybrid_search/webhook",
			env.Sim.BaseURL + "/exapps/hybrid_search/webhook",
			env.Sim.BaseURL + "/index.php/apps/app_api/proxy/hybrid_search/api/webhook",
		} {
			req, _ = http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
			req.SetBasicAuth(u.UID, u.AppPassword)
			if resp, _ := doReq(t, req); resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s as %s = %d, want 404", url, u.UID, resp.StatusCode)
			}
		}
	}
}

func TestHeartbeatDirect(t *testing.T) {
	t.Parallel()
	env := MustRunMain(t)
	resp, body := doReq(t, mustReq(t, http.MethodGet, env.appURL()+"/heartbeat"))
	if resp.StatusCode != 200 || !strings.Contains(body, `"ok"`) {
		t.Errorf("heartbeat = %d %s", resp.StatusCode, body)
	}
	resp, _ = doReq(t, mustReq(t, http.MethodGet, env.appURL()+"/api/status"))
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("unsigned /api/status = %d, want 401", resp.StatusCode)
	}
}

func mustReq(t *testing.T, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestInitReadyBeforeTheFirstScan: AppAPI gives /init init_timeout minutes
// (40 by default) to report 100, after which ExAppInitStatusCheckJob sets
// "initialization timed out" (app_api lib/BackgroundJob/
// ExAppInitStatusCheckJob.php, v32.0.0–v35.0.0beta4). A large instance
// cannot scan every file in that time, so the app reports 100 as soon as
// it can serve, and the first full scan runs after enable with its
// progress in the status. Here no file tree can be read until the test
// lets it, and the simulated timeout is 3 s.
func TestInitReadyBeforeTheFirstScan(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	var seeded ncsim.FileInfo
	env := newTestEnv(t, envOptions{setup: func(sim *ncsim.Server) {
		sim.InitTimeout = 3 * time.Second
		seeded = sim.SeedFile("alice", "/Docs/ledger.md", []byte("# Ledger\n\nThe okapi fund."))
		sim.OnRequest = func(r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/remote.php/dav/") && (r.Method == "PROPFIND" || r.Method == "SEARCH") {
				<-release
			}
		}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	if err := env.Sim.Install(ctx, "hybrid_search"); err != nil {
		t.Fatalf("install while no file tree can be read: %v", err)
	}
	t.Logf("init reported 100 after %s, before the first scan read a tree", time.Since(start).Round(time.Millisecond))
	if st := env.Sim.AppStatus("hybrid_search"); !st.Enabled || st.Progress != 100 || st.Error != "" {
		t.Fatalf("after install: %+v", st)
	}
	status := func(u *ncsim.User) hs.IndexStatus {
		t.Helper()
		resp, body := env.proxyGet(t, u, "api/status")
		var st hs.IndexStatus
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil {
			t.Fatalf("status as %s = %d %s", u.UID, resp.StatusCode, body)
		}
		return st
	}
	var admin hs.IndexStatus
	await(t, "the first scan to show as running", 10*time.Second, func() bool {
		admin = status(&env.Alice)
		return admin.Scan != nil && admin.Scan.Running
	})
	if s := admin.Scan; !s.Initial || s.UsersTotal != 2 || s.Started.IsZero() {
		t.Errorf("an admin's status during the first scan: %+v, want initial over 2 users", s)
	}
	if s := status(&env.Bob).Scan; s == nil || !s.Running || !s.Initial || s.UsersTotal != 0 {
		t.Errorf("a user's status during the first scan: %+v, want running and initial, without the instance's figures", s)
	}
	free()
	env.awaitFile(t, "the seeded file, by the first scan", seeded.ID, isIndexed(seeded.ETag))
	await(t, "the first scan to finish", 10*time.Second, func() bool {
		admin = status(&env.Alice)
		return admin.Scan != nil && !admin.Scan.Running && !admin.Scan.Finished.IsZero()
	})
	if s := admin.Scan; !s.Initial || s.UsersDone != 2 || s.FilesSeen == 0 {
		t.Errorf("after the first scan: %+v", s)
	}
	if s := status(&env.Bob).Scan; s != nil {
		t.Errorf("a user's status after the first scan shows the scan: %+v", s)
	}
}
