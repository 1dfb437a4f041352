package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/exapp"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

func TestInstallFlow(t *testing.T) {
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
