package nextcloud_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

// uniqueKey returns a key no earlier run used, for tests on real servers.
func uniqueKey(prefix string) string {
	return fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano())
}

func TestPing(t *testing.T) {
	e := newEnv(t)
	st, err := e.c.Ping(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !st.Installed || st.Version == "" {
		t.Errorf("Ping = %+v, want installed with a version", st)
	}
}

func TestInstallFlowEnablesApp(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	st := sim.AppStatus(testAppID)
	if !st.Enabled || st.Progress != 100 || st.Error != "" {
		t.Errorf("AppStatus after install = %+v, want enabled at 100", st)
	}
	if got := e.app.enabledCalls(); !slices.Equal(got, []string{"1"}) {
		t.Errorf("/enabled calls = %q, want [1]", got)
	}
	enabled, err := e.c.AppEnabled(context.Background())
	if err != nil || !enabled {
		t.Errorf("AppEnabled = %t, %v, want true", enabled, err)
	}
}

func TestInitProgressAndError(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	ctx := context.Background()
	c, _ := registerApp(t, sim, "other_app") // registered, init not started

	enabled, err := c.AppEnabled(ctx)
	if err != nil || enabled {
		t.Errorf("AppEnabled before install = %t, %v, want false", enabled, err)
	}
	if err := c.SetInitProgress(ctx, 20); err != nil {
		t.Fatal(err)
	}
	if st := sim.AppStatus("other_app"); st.Progress != 20 {
		t.Errorf("progress = %d, want 20", st.Progress)
	}
	if err := c.SetInitError(ctx, "model download failed"); err != nil {
		t.Fatal(err)
	}
	if st := sim.AppStatus("other_app"); st.Error != "model download failed" || st.Progress != 20 || st.Enabled {
		t.Errorf("AppStatus after SetInitError = %+v, want error set, progress 20, disabled", st)
	}
	wantKind(t, "SetInitProgress(101)", c.SetInitProgress(ctx, 101), hs.EINVALID)
	wantKind(t, "SetInitError(\"\")", c.SetInitError(ctx, ""), hs.EINVALID)

	// A disabled app may report status and read its state, nothing else.
	_, err = c.ListUsers(ctx)
	wantKind(t, "ListUsers while disabled", err, hs.EUNAUTHORIZED)
}

func TestUIRegistration(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	ctx := context.Background()
	menu := nextcloud.TopMenu{Name: "search", DisplayName: "Hybrid Search", Icon: "img/app.svg"}
	if err := e.c.RegisterTopMenu(ctx, menu); err != nil {
		t.Fatal(err)
	}
	state := map[string]any{"limit": 10, "legs": []string{"semantic", "keyword"}}
	if err := e.c.SetInitialState(ctx, "search", "config", state); err != nil {
		t.Fatal(err)
	}
	if err := e.c.RegisterScript(ctx, "search", "js/app-main", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.c.RegisterStyle(ctx, "search", "css/style"); err != nil {
		t.Fatal(err)
	}

	menus := sim.TopMenus(testAppID)
	if len(menus) != 1 || menus[0].Name != "search" || menus[0].DisplayName != "Hybrid Search" ||
		menus[0].Icon != "img/app.svg" || menus[0].AdminRequired != 0 {
		t.Errorf("TopMenus = %+v", menus)
	}
	states := sim.InitialStates(testAppID)
	if len(states) != 1 || states[0].Name != "search" || states[0].Key != "config" {
		t.Fatalf("InitialStates = %+v", states)
	}
	var gotState map[string]any
	if err := json.Unmarshal(states[0].Value, &gotState); err != nil || gotState["limit"] != float64(10) {
		t.Errorf("initial state value = %s (%v)", states[0].Value, err)
	}
	if s := sim.Scripts(testAppID); len(s) != 1 || s[0].Path != "js/app-main" || s[0].Name != "search" {
		t.Errorf("Scripts = %+v", s)
	}
	if s := sim.Styles(testAppID); len(s) != 1 || s[0].Path != "css/style" {
		t.Errorf("Styles = %+v", s)
	}

	// Admin-only entries replace the old one.
	menu.AdminRequired = true
	if err := e.c.RegisterTopMenu(ctx, menu); err != nil {
		t.Fatal(err)
	}
	if m := sim.TopMenus(testAppID); len(m) != 1 || m[0].AdminRequired != 1 {
		t.Errorf("TopMenus after re-register = %+v", m)
	}

	if err := e.c.UnsetInitialState(ctx, "search", "config"); err != nil {
		t.Fatal(err)
	}
	if err := e.c.UnregisterScript(ctx, "search", "js/app-main"); err != nil {
		t.Fatal(err)
	}
	if err := e.c.UnregisterStyle(ctx, "search", "css/style"); err != nil {
		t.Fatal(err)
	}
	if n := len(sim.InitialStates(testAppID)) + len(sim.Scripts(testAppID)) + len(sim.Styles(testAppID)); n != 0 {
		t.Errorf("%d registrations left after unregistering", n)
	}
	if err := e.c.UnregisterTopMenu(ctx, "search"); err != nil {
		t.Fatal(err)
	}
	if m := sim.TopMenus(testAppID); len(m) != 0 {
		t.Errorf("TopMenus after unregister = %+v", m)
	}
	wantKind(t, "UnregisterTopMenu twice", e.c.UnregisterTopMenu(ctx, "search"), hs.ENOTFOUND)
	wantKind(t, "RegisterTopMenu without name", e.c.RegisterTopMenu(ctx, nextcloud.TopMenu{}), hs.EINVALID)
}

func TestListUsers(t *testing.T) {
	e := newEnv(t)
	users, err := e.c.ListUsers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(users, e.user) {
		t.Errorf("ListUsers = %v, want it to contain %s", users, e.user)
	}
	if e.sim != nil && !slices.Equal(users, []hs.UserID{"alice", "bob", "carol"}) {
		t.Errorf("ListUsers = %v, want [alice bob carol]", users)
	}
}

func TestLog(t *testing.T) {
	e := newEnv(t)
	msg := uniqueKey("nextcloud client test")
	if err := e.c.Log(context.Background(), nextcloud.LogWarning, msg); err != nil {
		t.Fatal(err)
	}
	wantKind(t, "Log level 9", e.c.Log(context.Background(), 9, "x"), hs.EINVALID)
	if e.sim == nil {
		return
	}
	logs := e.sim.ExAppLogs(testAppID)
	if len(logs) != 1 || logs[0].Message != msg || logs[0].Level != nextcloud.LogWarning {
		t.Errorf("ExAppLogs = %+v", logs)
	}
}

func TestAppConfig(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	key := uniqueKey("test_key")
	if err := e.c.SetAppConfig(ctx, key, "v1", false); err != nil {
		t.Fatal(err)
	}
	if err := e.c.SetAppConfig(ctx, key, "v2 ünïcode", false); err != nil {
		t.Fatal(err)
	}
	if err := e.c.SetAppConfig(ctx, key+"_secret", "hidden", true); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.GetAppConfig(ctx, key, key+"_secret", "never_set_key")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{key: "v2 ünïcode", key + "_secret": "hidden"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("GetAppConfig = %v, want %v", got, want)
	}
	if e.sim != nil {
		if v := e.sim.AppConfig(testAppID)[key]; v != "v2 ünïcode" {
			t.Errorf("simulator app config %s = %q", key, v)
		}
	}
}

func TestUserPreferences(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	key := uniqueKey("pref")
	if err := e.c.SetUserPreference(ctx, e.user, key, "fusion=rrf"); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.GetUserPreferences(ctx, e.user, key, "missing")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[key] != "fusion=rrf" {
		t.Errorf("GetUserPreferences = %v", got)
	}
	if e.sim != nil {
		// Preferences are per user.
		other, err := e.c.GetUserPreferences(ctx, e.other, key)
		if err != nil || len(other) != 0 {
			t.Errorf("other user's preferences = %v, %v, want none", other, err)
		}
	}
	wantKind(t, "SetUserPreference without user", e.c.SetUserPreference(ctx, "", key, "x"), hs.EINVALID)
}

func TestOCSErrors(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()

	wrong := &nextcloud.Client{BaseURL: e.c.BaseURL, AppID: e.c.AppID, AppVersion: e.c.AppVersion,
		Secret: "wrong-secret", Logger: e.c.Logger}
	_, err := wrong.ListUsers(ctx)
	wantKind(t, "AppAPI endpoint, wrong secret (401/997)", err, hs.EUNAUTHORIZED)
	if !strings.Contains(err.Error(), "997") {
		t.Errorf("wrong secret error %q does not carry OCS 997", err)
	}
	_, err = wrong.ListWebhooks(ctx, "")
	wantKind(t, "webhooks, wrong secret", err, hs.EUNAUTHORIZED)
	_, err = wrong.Stat(ctx, e.user, "/")
	wantKind(t, "WebDAV, wrong secret", err, hs.EUNAUTHORIZED)
	if strings.Contains(err.Error(), "wrong-secret") {
		t.Errorf("error shows the secret: %v", err)
	}

	_, err = e.c.GetWebhook(ctx, 987654321)
	wantKind(t, "missing webhook (404)", err, hs.ENOTFOUND)
	_, err = e.c.Stat(ctx, "no_such_user_xyz", "/")
	wantKind(t, "unknown user", err, hs.EUNAUTHORIZED)

	if e.sim == nil {
		return
	}
	// v1 answers failures with HTTP 200 and a failing statuscode.
	req, _ := http.NewRequest(http.MethodDelete, e.url+"/ocs/v1.php/apps/app_api/api/v1/ui/top-menu?name=nope", nil)
	for k, v := range map[string]string{"EX-APP-ID": testAppID, "EX-APP-VERSION": "1.0.0", "OCS-APIRequest": "true",
		"Accept": "application/json", "AUTHORIZATION-APP-API": nextcloud.AuthHeaderValue("", e.c.Secret)} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"failure"`) {
		t.Errorf("premise: v1 DELETE top-menu nope = %d %s, want 200 with a failure", resp.StatusCode, body)
	}
	wantKind(t, "v1 200 with failure", e.c.UnregisterTopMenu(ctx, "nope"), hs.ENOTFOUND)

	e.sim.FailNext("", "/ocs/", http.StatusServiceUnavailable)
	_, err = e.c.ListUsers(ctx)
	wantKind(t, "OCS 503", err, hs.EUNAVAILABLE)
	e.sim.FailNext("PROPFIND", "/remote.php/", http.StatusInternalServerError)
	_, err = e.c.Stat(ctx, e.user, "/")
	wantKind(t, "WebDAV 500", err, hs.EUNAVAILABLE)
}
