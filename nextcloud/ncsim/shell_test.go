package ncsim

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

func cookie(s *Server, uid string) http.Header {
	return http.Header{"Cookie": {s.NewSession(uid).String()}}
}

func TestPageShellThemeAndLanguage(t *testing.T) {
	s, ts := aaServer(t)
	bob := cookie(s, "bob")
	page := ts.URL + "/index.php/apps/files/"
	body := func() string {
		t.Helper()
		resp, body := aaProxyDo(t, http.MethodGet, page, bob, "")
		if resp.StatusCode != 200 {
			t.Fatalf("files page = %d", resp.StatusCode)
		}
		return body
	}
	first := body()
	for _, w := range []string{`lang="en" data-locale="en"`, `<body id="body-user" data-theme-default data-themes="default">`,
		`href="/index.php/apps/theming/theme/dark.css?plain=1" media="(prefers-color-scheme: dark)"`,
		`<a id="personal" href="/index.php/settings/user">`, `OC.L10N = {`, `<span class="avatar" aria-hidden="true">B</span>`} {
		if !strings.Contains(first, w) {
			t.Errorf("page lacks %s", w)
		}
	}
	if strings.Contains(first, `id="admin_settings"`) {
		t.Error("bob sees the administration settings link")
	}

	theme := ts.URL + "/ocs/v2.php/apps/theming/api/v1/theme/"
	for _, c := range []struct {
		method, path string
		want         string
	}{
		{http.MethodPut, "dark/enable", `data-theme-dark data-themes="dark"`},
		{http.MethodPut, "light/enable", `data-theme-light data-themes="light"`},
		{http.MethodDelete, "light", ` data-themes=""`},
		{http.MethodPut, "default/enable", `data-theme-default data-themes="default"`},
	} {
		if got := aaDo(t, c.method, theme+c.path, bob, nil); got.HTTPStatus != 200 {
			t.Fatalf("%s %s = %d", c.method, c.path, got.HTTPStatus)
		}
		if b := body(); !strings.Contains(b, c.want) {
			t.Errorf("after %s %s the page lacks %s", c.method, c.path, c.want)
		}
	}
	if got := aaDo(t, http.MethodPut, theme+"purple/enable", bob, nil); got.HTTPStatus != 400 {
		t.Errorf("unknown theme = %d, want 400", got.HTTPStatus)
	}

	if got := aaDo(t, http.MethodPut, ts.URL+"/ocs/v2.php/cloud/users/bob", bob, map[string]any{"key": "language", "value": "de"}); got.HTTPStatus != 200 {
		t.Fatalf("set language = %d", got.HTTPStatus)
	}
	if b := body(); !strings.Contains(b, `lang="de" data-locale="de"`) {
		t.Error(`after setting the language the page is not lang="de"`)
	}
	if got := aaDo(t, http.MethodPut, ts.URL+"/ocs/v2.php/cloud/users/alice", bob, map[string]any{"key": "language", "value": "de"}); got.HTTPStatus != 403 {
		t.Errorf("bob setting alice's language = %d, want 403", got.HTTPStatus)
	}
	if _, b := aaProxyDo(t, http.MethodGet, page, cookie(s, "alice"), ""); !strings.Contains(b, `id="admin_settings"`) || !strings.Contains(b, `lang="en"`) {
		t.Error("alice's page: no administration settings link, or not in English")
	}
}

func TestThemeStylesheet(t *testing.T) {
	_, ts := aaServer(t)
	cases := []struct {
		path, wantPrefix, want string
		status                 int
	}{
		{"default.css?plain=1", ":root {", "--color-main-background: #ffffff;", 200},
		{"dark.css?plain=1", ":root {", "--color-main-background: #171717;", 200},
		{"dark.css?plain=0", "[data-theme-dark] {", "--color-main-text: #ebebeb;", 200},
		{"light.css", "[data-theme-light] {", "--color-primary-element: #00679e;", 200},
		{"purple.css", "", "", 404},
	}
	for _, c := range cases {
		resp, body := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/theming/theme/"+c.path, nil, "")
		if resp.StatusCode != c.status {
			t.Errorf("%s = %d, want %d", c.path, resp.StatusCode, c.status)
			continue
		}
		if c.status == 200 && (!strings.HasPrefix(body, c.wantPrefix) || !strings.Contains(body, c.want) || strings.Contains(body, "/*")) {
			t.Errorf("%s = %.120q…, want %q … %q without comments", c.path, body, c.wantPrefix, c.want)
		}
	}
	// The dark theme overrides after the default values: the last wins.
	_, dark := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/theming/theme/dark.css", nil, "")
	if strings.LastIndex(dark, "--color-main-background: #171717") < strings.LastIndex(dark, "--color-main-background: #ffffff") {
		t.Error("dark.css declares the light background after the dark one")
	}
}

func TestL10NScriptInjection(t *testing.T) {
	s, ts := aaServer(t)
	aaPageApp(t, s, ts.URL)
	err := s.InstallTranslations("hybrid_search", fstest.MapFS{
		"de.js":   {Data: []byte(`OC.L10N.register("hybrid_search", {"Search": "Suchen"}, "nplurals=2; plural=(n != 1);");`)},
		"de.json": {Data: []byte(`{"translations": {"Search": "Suchen"}, "pluralForm": "nplurals=2; plural=(n != 1);"}`)},
		"ja.js":   {Data: []byte(`OC.L10N.register("hybrid_search", {});`)}, // no ja.json: not an available language
		"README":  {Data: []byte("ignored")},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.PutFile("bob", "/a.txt", []byte("x"))
	script := `defer src="/apps/hybrid_search/l10n/de.js"></script>`
	cases := []struct {
		name, lang, path string
		want             bool
	}{
		{"ExApp page in German", "de", "/index.php/apps/app_api/embedded/hybrid_search/main", true},
		{"Files in German", "de", "/index.php/apps/files/", true},
		{"settings in German", "de", "/index.php/settings/user/personal-info", true},
		{"ExApp page in English", "en", "/index.php/apps/app_api/embedded/hybrid_search/main", false},
		{"a language the app lacks", "ja", "/index.php/apps/app_api/embedded/hybrid_search/main", false},
		{"the Notes page is not one of the routes", "de", "/index.php/apps/notes/note/1", false},
	}
	for _, c := range cases {
		s.SetUserValue("bob", "core", "lang", c.lang)
		_, body := aaProxyDo(t, http.MethodGet, ts.URL+c.path, cookie(s, "bob"), "")
		if got := strings.Contains(body, script); got != c.want {
			t.Errorf("%s: script injected = %v, want %v", c.name, got, c.want)
		}
	}
	s.SetUserValue("bob", "core", "lang", "de")
	s.setEnabled("hybrid_search", false)
	if _, body := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/files/", cookie(s, "bob"), ""); strings.Contains(body, script) {
		t.Error("translations of a disabled app injected")
	}
	resp, body := aaProxyDo(t, http.MethodGet, ts.URL+"/apps/hybrid_search/l10n/de.js", nil, "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"Suchen"`) || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("de.js = %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+"/apps/hybrid_search/l10n/fr.js", nil, ""); resp.StatusCode != 404 {
		t.Errorf("missing translation = %d, want 404", resp.StatusCode)
	}
}

func TestPermalinkViewerAndNotes(t *testing.T) {
	s, ts := aaServer(t)
	doc := s.PutFile("alice", "/Docs/plan <1>.md", []byte("# Plan\n\nShip <b>it</b>."))
	bin := s.PutFile("alice", "/Docs/photo.png", []byte("\x89PNG"))
	note := s.PutFile("alice", "/Notes/Groceries.md", []byte("Milk"))
	alice := cookie(s, "alice")
	id := func(f FileInfo) string { return strconv.FormatInt(f.ID, 10) }

	resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/f/"+id(doc), alice, "")
	wantLoc := "/index.php/apps/files/files/" + id(doc) + "?dir=%2FDocs&openfile=true"
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != wantLoc {
		t.Fatalf("permalink = %d %q, want 303 to %s", resp.StatusCode, resp.Header.Get("Location"), wantLoc)
	}
	resp, body := aaProxyDo(t, http.MethodGet, ts.URL+wantLoc, alice, "")
	if resp.StatusCode != 200 || !strings.Contains(body, `<pre class="viewer__text" id="viewer-text"># Plan

Ship &lt;b&gt;it&lt;/b&gt;.</pre>`) || !strings.Contains(body, `<h2 id="viewer-title">plan &lt;1&gt;.md</h2>`) {
		t.Errorf("viewer = %d:\n%s", resp.StatusCode, body)
	}
	if _, body := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/files/files/"+id(bin)+"?openfile=true", alice, ""); !strings.Contains(body, "No preview for this type of file.") {
		t.Error("binary file: no 'no preview' note")
	}
	if _, body := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/files/files/"+id(doc), alice, ""); !strings.Contains(body, `id="files-list"`) {
		t.Error("without openfile the file's folder is not listed")
	}
	for _, path := range []string{"/index.php/f/" + id(doc), "/index.php/f/999999", "/index.php/apps/notes/note/" + id(note)} {
		if resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+path, cookie(s, "bob"), ""); resp.StatusCode != 404 {
			t.Errorf("bob opening %s = %d, want 404", path, resp.StatusCode)
		}
	}
	resp, body = aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/notes/note/"+id(note), alice, "")
	if resp.StatusCode != 200 || !strings.Contains(body, `<h2 id="viewer-title">Groceries</h2>`) || !strings.Contains(body, ">Milk</pre>") {
		t.Errorf("note page = %d:\n%s", resp.StatusCode, body)
	}
	if resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/notes/note/"+id(doc), alice, ""); resp.StatusCode != 404 {
		t.Errorf("a file outside the notes folder as a note = %d, want 404", resp.StatusCode)
	}
	if resp, _ := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/f/"+id(doc), nil, ""); resp.StatusCode != http.StatusSeeOther ||
		!strings.HasPrefix(resp.Header.Get("Location"), "/index.php/login?redirect_url=") {
		t.Errorf("anonymous permalink = %d %q, want the login page", resp.StatusCode, resp.Header.Get("Location"))
	}
	if u := s.Unhandled(); len(u) > 0 {
		t.Errorf("unhandled requests: %v", u)
	}
}

func TestFilesPageActions(t *testing.T) {
	s, ts := aaServer(t)
	env := aaPageApp(t, s, ts.URL)
	s.PutFile("bob", "/Docs/a.txt", []byte("x"))
	bob := cookie(s, "bob")
	_, body := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/files/?dir=/Docs", bob, "")
	if strings.Contains(body, "app_api-filesplugin.js") || strings.Contains(body, "ex_files_actions_menu") {
		t.Error("files plugin loaded without any registered action")
	}
	if !strings.Contains(body, `data-cy-files-list-row-name="a.txt"`) || !strings.Contains(body, `&#34;dirname&#34;:&#34;/Docs&#34;`) {
		t.Errorf("the folder's row or its node is missing:\n%s", body)
	}
	got := aaDo(t, http.MethodPost, ts.URL+"/ocs/v1.php/apps/app_api/api/v2/ui/files-actions-menu", aaAppHeader(env, ""),
		map[string]any{"name": "similar", "displayName": "Find similar", "actionHandler": "api/files/similar", "mime": "text/", "icon": "img/app.svg"})
	if got.StatusCode != 100 {
		t.Fatalf("register file action: %+v", got)
	}
	_, body = aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/files/", bob, "")
	for _, w := range []string{`defer src="/apps/app_api/js/app_api-filesplugin.js"`, `id="initial-state-app_api-ex_files_actions_menu"`, `defer src="/apps/files/js/ncsim-files.js"`} {
		if !strings.Contains(body, w) {
			t.Errorf("files page lacks %s", w)
		}
	}
	for _, js := range []string{"/apps/app_api/js/app_api-filesplugin.js", "/apps/files/js/ncsim-files.js"} {
		if resp, body := aaProxyDo(t, http.MethodGet, ts.URL+js, nil, ""); resp.StatusCode != 200 || len(body) < 500 {
			t.Errorf("%s = %d, %d bytes", js, resp.StatusCode, len(body))
		}
	}
	s.setEnabled("hybrid_search", false)
	if _, body := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/apps/files/", bob, ""); strings.Contains(body, "ex_files_actions_menu") {
		t.Error("the action of a disabled app is offered")
	}
}

// declScheme is a form with one field of each kind the app uses.
func declScheme(section string) map[string]any {
	return map[string]any{
		"id": "hs_admin", "priority": 10, "section_type": section, "section_id": "declarative_settings", "storage_type": "internal",
		"title": "Hybrid Search", "description": "Search settings",
		"fields": []map[string]any{
			{"id": "model", "title": "Model", "type": "text", "default": "nomic-embed-text"},
			{"id": "weight", "title": "Weight", "type": "number", "default": 0.5},
			{"id": "fusion", "title": "Fusion", "type": "select", "options": []string{"rrf", "linear"}, "default": "rrf"},
			{"id": "paused", "title": "Paused", "type": "checkbox", "default": false},
			{"id": "key", "title": "API key", "type": "password", "sensitive": true},
		},
	}
}

func TestDeclarativeSettings(t *testing.T) {
	s, ts := aaServer(t)
	env := aaPageApp(t, s, ts.URL)
	ui := ts.URL + "/ocs/v1.php/apps/app_api/api/v1/ui/settings"
	if got := aaDo(t, http.MethodPost, ui, aaAppHeader(env, ""), map[string]any{"formScheme": declScheme("admin")}); got.StatusCode != 100 {
		t.Fatalf("register form: %+v", got)
	}
	alice, bob := cookie(s, "alice"), cookie(s, "bob")
	page := ts.URL + "/index.php/settings/admin/declarative_settings"
	resp, body := aaProxyDo(t, http.MethodGet, page, alice, "")
	for _, w := range []string{`data-app="hybrid_search" data-form="hs_admin"`, `<input id="model_field" type="text" value="nomic-embed-text"`,
		`<input id="weight_field" type="number" value="0.5"`, `<option value="rrf" selected>rrf</option>`, `<input id="paused_field" type="checkbox">`,
		`defer src="/apps/settings/js/declarative-settings.js"`} {
		if resp.StatusCode != 200 || !strings.Contains(body, w) {
			t.Errorf("admin settings page (%d) lacks %s", resp.StatusCode, w)
		}
	}
	if resp, _ := aaProxyDo(t, http.MethodGet, page, bob, ""); resp.StatusCode != 403 {
		t.Errorf("admin settings as bob = %d, want 403", resp.StatusCode)
	}

	set := ts.URL + "/ocs/v2.php/settings/api/declarative/value"
	for _, c := range []struct {
		who           http.Header
		field         string
		value         any
		status        int
		stored, shown string
	}{
		{alice, "model", "bge-m3", 200, "bge-m3", "bge-m3"},
		{alice, "weight", 0.7, 200, "0.7", "0.7"},
		{alice, "paused", 1, 200, "1", "1"},
		{alice, "key", "s3cret", 200, encryptValue("s3cret"), "s3cret"},
		{bob, "model", "evil", 403, "bge-m3", "bge-m3"},
		{alice, "nope", "x", 400, "", ""},
	} {
		got := aaDo(t, http.MethodPost, set, c.who, map[string]any{"app": "hybrid_search", "formId": "hs_admin", "fieldId": c.field, "value": c.value})
		if got.HTTPStatus != c.status {
			t.Errorf("set %s = %d, want %d", c.field, got.HTTPStatus, c.status)
		}
		if c.stored == "" {
			continue
		}
		if v := s.AppConfig("hybrid_search")[c.field]; v != c.stored {
			t.Errorf("app config %s = %q, want %q", c.field, v, c.stored)
		}
		if v, _ := s.DeclarativeValue("hybrid_search", c.field, "alice"); v != c.shown {
			t.Errorf("shown %s = %q, want %q", c.field, v, c.shown)
		}
	}
	// What the ExApp reads: get-values, with the sensitive value encrypted.
	got := aaDo(t, http.MethodPost, ts.URL+"/ocs/v1.php/apps/app_api/api/v1/ex-app/config/get-values", aaAppHeader(env, ""),
		map[string]any{"configKeys": []string{"model", "key", "fusion"}})
	if want := `[{"configkey":"model","configvalue":"bge-m3"},{"configkey":"key","configvalue":"` + encryptValue("s3cret") + `"}]`; string(got.Data) != want {
		t.Errorf("get-values = %s, want %s", got.Data, want)
	}
	_, body = aaProxyDo(t, http.MethodGet, page, alice, "")
	if !strings.Contains(body, `<input id="paused_field" type="checkbox" checked>`) || strings.Contains(body, "s3cret") || !strings.Contains(body, `value="dummySecret"`) {
		t.Error("after saving: checkbox not checked, or the secret sent to the browser")
	}
	forms := aaDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/settings/api/declarative/forms", alice, nil)
	if !strings.Contains(string(forms.Data), `"app":"hybrid_search"`) || !strings.Contains(string(forms.Data), `"value":"bge-m3"`) {
		t.Errorf("forms = %s", forms.Data)
	}
	if bobForms := aaDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/settings/api/declarative/forms", bob, nil); string(bobForms.Data) != "[]" {
		t.Errorf("bob sees admin forms: %s", bobForms.Data)
	}

	// A personal form stores per user.
	personal := declScheme("personal")
	personal["id"] = "hs_personal"
	personal["fields"] = []map[string]any{{"id": "pause", "title": "Pause indexing of my files", "type": "checkbox", "default": false}}
	aaDo(t, http.MethodPost, ui, aaAppHeader(env, ""), map[string]any{"formScheme": personal})
	if got := aaDo(t, http.MethodPost, set, bob, map[string]any{"app": "hybrid_search", "formId": "hs_personal", "fieldId": "pause", "value": 1}); got.HTTPStatus != 200 {
		t.Fatalf("bob's personal setting = %d", got.HTTPStatus)
	}
	if v := s.Preferences("hybrid_search", "bob")["pause"]; v != "1" {
		t.Errorf("bob's preference = %q, want 1", v)
	}
	if _, body := aaProxyDo(t, http.MethodGet, ts.URL+"/index.php/settings/user/declarative_settings", bob, ""); !strings.Contains(body, `<input id="pause_field" type="checkbox" checked>`) {
		t.Error("bob's personal form does not show his value")
	}

	// An invalid form breaks the settings pages, as in Nextcloud.
	bad := declScheme("admin")
	bad["id"] = "broken"
	bad["fields"] = []map[string]any{{"id": "x", "title": "X", "type": "slider"}}
	aaDo(t, http.MethodPost, ui, aaAppHeader(env, ""), map[string]any{"formScheme": bad})
	if resp, _ := aaProxyDo(t, http.MethodGet, page, alice, ""); resp.StatusCode != 500 {
		t.Errorf("settings page with an invalid form = %d, want 500", resp.StatusCode)
	}
}
