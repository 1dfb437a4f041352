package ncsim

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
)

func TestUIRegistration(t *testing.T) {
	s, ts := aaServer(t)
	f := aaNewFakeApp(t, nil)
	env := aaRegister(t, s, f)
	aaEnable(t, s, "hybrid_search")
	h := aaAppHeader(env, "")
	base := ts.URL + "/ocs/v1.php/apps/app_api/api/v1/ui/"
	ok := func(what string, got aaOCS) {
		t.Helper()
		if got.HTTPStatus != 200 || (got.StatusCode != 100 && got.StatusCode != 200) || string(got.Data) != "[]" {
			t.Errorf("%s = %d/%d data %s, want 200/100 data []", what, got.HTTPStatus, got.StatusCode, got.Data)
		}
	}
	// Registering twice updates instead of duplicating.
	for _, name := range []string{"Hybrid Search", "Search"} {
		ok("top-menu", aaDo(t, http.MethodPost, base+"top-menu", h,
			map[string]any{"name": "main", "displayName": name, "icon": "/img/app.svg", "adminRequired": 0}))
		ok("script", aaDo(t, http.MethodPost, base+"script", h, map[string]any{"type": "top_menu", "name": "main", "path": "js/app-main"}))
		ok("style", aaDo(t, http.MethodPost, base+"style", h, map[string]any{"type": "top_menu", "name": "main", "path": "css/style"}))
		ok("initial-state", aaDo(t, http.MethodPost, base+"initial-state", h,
			map[string]any{"type": "top_menu", "name": "main", "key": "config", "value": map[string]any{"title": name}}))
	}
	ok("admin entry", aaDo(t, http.MethodPost, base+"top-menu", h, map[string]any{"name": "admin", "displayName": "Admin", "adminRequired": 1}))
	ok("file action v1", aaDo(t, http.MethodPost, base+"files-actions-menu", h,
		map[string]any{"name": "reindex", "displayName": "Reindex", "actionHandler": "/api/reindex"}))
	ok("file action v2", aaDo(t, http.MethodPost, ts.URL+"/ocs/v2.php/apps/app_api/api/v2/ui/files-actions-menu", h,
		map[string]any{"name": "ask", "displayName": "Ask", "actionHandler": "/api/ask", "mime": "text/markdown"}))
	ok("settings", aaDo(t, http.MethodPost, base+"settings", h,
		map[string]any{"formScheme": map[string]any{"id": "hybrid_admin", "section_type": "admin", "fields": []any{}}}))

	menus := s.TopMenus("hybrid_search")
	if len(menus) != 2 || menus[0].Name != "main" || menus[0].DisplayName != "Search" || menus[0].Icon != "img/app.svg" ||
		menus[1].AdminRequired != 1 {
		t.Errorf("TopMenus = %+v", menus)
	}
	if sc := s.Scripts("hybrid_search"); len(sc) != 1 || sc[0].Path != "js/app-main" {
		t.Errorf("Scripts = %+v", sc)
	}
	if st := s.Styles("hybrid_search"); len(st) != 1 || st[0].Path != "css/style" {
		t.Errorf("Styles = %+v", st)
	}
	if is := s.InitialStates("hybrid_search"); len(is) != 1 || string(is[0].Value) != `{"title":"Search"}` {
		t.Errorf("InitialStates = %+v", is)
	}
	fa := s.FileActions("hybrid_search")
	if len(fa) != 2 || fa[0].Mime != "file" || fa[0].Permissions != 31 || fa[0].Version != "1.0" || fa[1].Version != "2.0" {
		t.Errorf("FileActions = %+v", fa)
	}
	if forms := s.SettingsForms("hybrid_search"); len(forms) != 1 || forms[0].FormID != "hybrid_admin" {
		t.Errorf("SettingsForms = %+v", forms)
	}

	// GET answers the entity, 404 for unknown names.
	got := aaDo(t, http.MethodGet, base+"top-menu?name=main", h, nil)
	var entry TopMenuEntry
	if err := json.Unmarshal(got.Data, &entry); err != nil || entry.DisplayName != "Search" || entry.AppID != "hybrid_search" {
		t.Errorf("GET top-menu = %s (%v)", got.Data, err)
	}
	if got := aaDo(t, http.MethodGet, base+"top-menu?name=nope", h, nil); got.HTTPStatus != 200 || got.StatusCode != 404 {
		t.Errorf("GET unknown top-menu (v1) = %d/%d, want 200/404", got.HTTPStatus, got.StatusCode)
	}
	// Deleting the menu entry deletes its page's script, style and state.
	ok("delete top-menu", aaDo(t, http.MethodDelete, base+"top-menu?"+url.Values{"name": {"main"}}.Encode(), h, nil))
	if len(s.Scripts("hybrid_search"))+len(s.Styles("hybrid_search"))+len(s.InitialStates("hybrid_search")) != 0 {
		t.Error("page registrations survived the menu entry")
	}
	v2 := ts.URL + "/ocs/v2.php/apps/app_api/api/v1/ui/"
	notFound := []struct{ method, url, msg string }{
		{http.MethodDelete, v2 + "top-menu?name=main", "No such Top Menu entry"},
		{http.MethodDelete, v2 + "script?type=top_menu&name=main&path=js/app-main", "No such Script"},
		{http.MethodDelete, v2 + "style?type=top_menu&name=main&path=css/style", "No such Style"},
		{http.MethodDelete, v2 + "initial-state?type=top_menu&name=main&key=config", "No such InitialState"},
		{http.MethodDelete, v2 + "files-actions-menu?name=nope", "FileActionMenu not found"},
	}
	for _, nf := range notFound {
		if got := aaDo(t, nf.method, nf.url, h, nil); got.HTTPStatus != 404 || got.Message != nf.msg {
			t.Errorf("%s %s = %d %q, want 404 %q", nf.method, nf.url, got.HTTPStatus, got.Message, nf.msg)
		}
	}
	// Initial state values must be objects or arrays; names are required.
	if got := aaDo(t, http.MethodPost, v2+"initial-state", h, map[string]any{"type": "top_menu", "name": "m", "key": "k", "value": "str"}); got.HTTPStatus != 500 {
		t.Errorf("string initial state = %d, want 500", got.HTTPStatus)
	}
	if got := aaDo(t, http.MethodPost, v2+"top-menu", h, map[string]any{"name": "x"}); got.HTTPStatus != 500 {
		t.Errorf("top-menu without displayName = %d, want 500", got.HTTPStatus)
	}
	// Registrations are keyed by EX-APP-ID: another app sees nothing.
	if _, err := s.RegisterExApp(ExAppRegistration{ID: "other", Name: "O", Version: "1", URL: f.srv.URL}); err != nil {
		t.Fatal(err)
	}
	aaEnable(t, s, "other")
	if got := aaDo(t, http.MethodGet, v2+"top-menu?name=admin", aaAppHeader(s.ExAppEnv("other"), ""), nil); got.HTTPStatus != 404 {
		t.Errorf("other app sees hybrid_search's entry: %d", got.HTTPStatus)
	}
}

func TestAppConfigAndPreferences(t *testing.T) {
	s, ts := aaServer(t)
	f := aaNewFakeApp(t, nil)
	env := aaRegister(t, s, f)
	aaEnable(t, s, "hybrid_search")
	base := ts.URL + "/ocs/v1.php/apps/app_api/api/v1/ex-app/"
	h := aaAppHeader(env, "")
	got := aaDo(t, http.MethodPost, base+"config", h, map[string]any{"configKey": "model", "configValue": "nomic"})
	var row appConfigJSON
	if err := json.Unmarshal(got.Data, &row); err != nil || row.ConfigKey != "model" || row.ConfigValue != "nomic" || row.AppID != "hybrid_search" {
		t.Errorf("set config = %s (%v)", got.Data, err)
	}
	aaDo(t, http.MethodPost, base+"config", h, map[string]any{"configKey": "k", "configValue": 5})
	got = aaDo(t, http.MethodPost, base+"config/get-values", h, map[string]any{"configKeys": []string{"model", "missing", "k"}})
	if string(got.Data) != `[{"configkey":"model","configvalue":"nomic"},{"configkey":"k","configvalue":"5"}]` {
		t.Errorf("get-values = %s", got.Data)
	}
	if got := aaDo(t, http.MethodPost, base+"config", h, map[string]any{"configKey": "", "configValue": "x"}); got.StatusCode != 400 {
		t.Errorf("empty key = %d", got.StatusCode)
	}
	if got := aaDo(t, http.MethodDelete, base+"config", h, map[string]any{"configKeys": []string{"model"}}); string(got.Data) != "1" {
		t.Errorf("delete = %s", got.Data)
	}
	if got := aaDo(t, http.MethodDelete, base+"config", h, map[string]any{"configKeys": []string{"model"}}); got.StatusCode != 404 {
		t.Errorf("second delete = %d, want 404", got.StatusCode)
	}
	if cfg := s.AppConfig("hybrid_search"); len(cfg) != 1 || cfg["k"] != "5" {
		t.Errorf("AppConfig = %v", cfg)
	}

	hb := aaAppHeader(env, "bob")
	aaDo(t, http.MethodPost, base+"preference", hb, map[string]any{"configKey": "lang", "configValue": "de"})
	got = aaDo(t, http.MethodPost, base+"preference/get-values", hb, map[string]any{"configKeys": []string{"lang"}})
	if string(got.Data) != `[{"configkey":"lang","configvalue":"de"}]` {
		t.Errorf("preference get-values = %s", got.Data)
	}
	if p := s.Preferences("hybrid_search", "bob"); p["lang"] != "de" {
		t.Errorf("Preferences = %v", p)
	}
	if got := aaDo(t, http.MethodPost, base+"preference", h, map[string]any{"configKey": "lang", "configValue": "de"}); got.StatusCode != 996 {
		t.Errorf("preference without a user = %d, want 996", got.StatusCode)
	}

	// log, users, notification.
	logURL := ts.URL + "/ocs/v2.php/apps/app_api/api/v1/log"
	if got := aaDo(t, http.MethodPost, logURL, h, map[string]any{"level": 2, "message": "hello"}); got.HTTPStatus != 200 {
		t.Errorf("log = %d", got.HTTPStatus)
	}
	if got := aaDo(t, http.MethodPost, logURL, h, map[string]any{"level": 9, "message": "x"}); got.HTTPStatus != 400 || got.Message != "Invalid log level" {
		t.Errorf("bad log level = %d %q", got.HTTPStatus, got.Message)
	}
	if logs := s.ExAppLogs("hybrid_search"); len(logs) != 1 || logs[0].Message != "hello" {
		t.Errorf("ExAppLogs = %+v", logs)
	}
	got = aaDo(t, http.MethodPost, ts.URL+"/ocs/v2.php/apps/app_api/api/v1/notification", hb,
		map[string]any{"params": map[string]any{"object": "app", "object_id": "1", "subject_type": "x",
			"subject_params": map[string]any{"rich_subject": "Indexing done"}}})
	if n := s.Notifications(); got.HTTPStatus != 200 || len(n) != 1 || n[0].User != "bob" || n[0].Subject != "Indexing done" {
		t.Errorf("notification = %d %+v", got.HTTPStatus, n)
	}
}
