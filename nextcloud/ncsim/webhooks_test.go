package ncsim

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

const aaHooksV2 = "/ocs/v2.php/apps/webhook_listeners/api/v1/webhooks"

func TestWebhooksCRUD(t *testing.T) {
	s, ts := aaServer(t)
	f := aaNewFakeApp(t, nil)
	env := aaRegister(t, s, f)
	aaEnable(t, s, "hybrid_search")
	app := aaAppHeader(env, "")
	hooks := ts.URL + aaHooksV2

	got := aaDo(t, http.MethodPost, hooks, app, map[string]any{
		"httpMethod": "POST", "uri": "/api/webhook", "event": `\OCP\Files\Events\Node\NodeWrittenEvent`,
		"eventFilter": map[string]any{"event.node.path": `/^\/[^\/]+\/files\//`},
		"headers":     map[string]any{"X-Hook": "1"},
	})
	if got.HTTPStatus != 200 {
		t.Fatalf("create = %d %s", got.HTTPStatus, got.Raw)
	}
	wantPrefix := `{"id":1,"appId":"hybrid_search","userId":null,"httpMethod":"POST","uri":"\/api\/webhook",` +
		`"event":"OCP\\Files\\Events\\Node\\NodeWrittenEvent","eventFilter":{"event.node.path":`
	if !strings.HasPrefix(string(got.Data), wantPrefix) {
		t.Errorf("create data = %s\nwant prefix %s", got.Data, wantPrefix)
	}
	if !strings.HasSuffix(string(got.Data), `"userIdFilter":"","headers":{"X-Hook":"1"},"authMethod":"none","authData":null}`) {
		t.Errorf("create data tail = %s", got.Data)
	}

	// Admin user, no filter: eventFilter is [], headers null, userId set.
	got = aaDo(t, http.MethodPost, hooks, aaBasic("alice", "alice"), map[string]any{
		"httpMethod": "POST", "uri": "https://example.org/hook", "event": NodeCreatedEvent,
		"authMethod": "header", "authData": map[string]any{"Authorization": "Bearer x"},
	})
	var info map[string]any
	if err := json.Unmarshal(got.Data, &info); err != nil {
		t.Fatalf("admin create: %s", got.Raw)
	}
	if info["id"] != float64(2) || info["appId"] != nil || info["userId"] != "alice" || info["headers"] != nil ||
		info["authMethod"] != "header" || info["authData"] == nil {
		t.Errorf("admin create = %v", info)
	}
	if !strings.Contains(string(got.Data), `"eventFilter":[]`) {
		t.Errorf("empty eventFilter is not []: %s", got.Data)
	}

	rejected := []struct {
		name   string
		header http.Header
		body   map[string]any
		http   int
		msg    string
	}{
		{"share created", app, map[string]any{"httpMethod": "POST", "uri": "/x", "event": `OCP\Share\Events\ShareCreatedEvent`},
			400, `OCP\Share\Events\ShareCreatedEvent is not an event class compatible with webhooks`},
		{"user deleted", app, map[string]any{"httpMethod": "POST", "uri": "/x", "event": `OCP\User\Events\UserDeletedEvent`},
			400, `OCP\User\Events\UserDeletedEvent is not an event class compatible with webhooks`},
		{"unknown class", app, map[string]any{"httpMethod": "POST", "uri": "/x", "event": `Foo\Bar`}, 400, `Foo\Bar is not an event class compatible with webhooks`},
		{"bad auth method", app, map[string]any{"httpMethod": "POST", "uri": "/x", "event": NodeWrittenEvent, "authMethod": "basic"},
			400, "This auth method does not exist"},
		{"header auth without data", app, map[string]any{"httpMethod": "POST", "uri": "/x", "event": NodeWrittenEvent, "authMethod": "header"},
			400, "Header auth method needs an associative array of headers as auth data"},
		{"non-admin user", aaBasic("bob", "bob"), map[string]any{"httpMethod": "POST", "uri": "/x", "event": NodeWrittenEvent},
			403, "Logged in account must be an admin or have authorization to edit this setting."},
		{"ExApp as non-admin", aaAppHeader(env, "bob"), map[string]any{"httpMethod": "POST", "uri": "/x", "event": NodeWrittenEvent},
			403, "Logged in account must be an admin or have authorization to edit this setting."},
		{"anonymous", http.Header{}, map[string]any{"httpMethod": "POST", "uri": "/x", "event": NodeWrittenEvent},
			401, "Current user is not logged in"},
	}
	for _, tt := range rejected {
		t.Run(tt.name, func(t *testing.T) {
			got := aaDo(t, http.MethodPost, hooks, tt.header, tt.body)
			if got.HTTPStatus != tt.http || got.Message != tt.msg {
				t.Errorf("got %d %q, want %d %q", got.HTTPStatus, got.Message, tt.http, tt.msg)
			}
		})
	}
	if got := aaDo(t, http.MethodGet, ts.URL+"/ocs/v1.php/apps/webhook_listeners/api/v1/webhooks", aaBasic("bob", "bob"), nil); got.HTTPStatus != 200 || got.StatusCode != 403 {
		t.Errorf("v1 list as bob = %d/%d, want 200/403", got.HTTPStatus, got.StatusCode)
	}

	// List, filter by uri, get, update, delete.
	var list []map[string]any
	_ = json.Unmarshal(aaDo(t, http.MethodGet, hooks, app, nil).Data, &list)
	if len(list) != 2 {
		t.Errorf("list = %v", list)
	}
	_ = json.Unmarshal(aaDo(t, http.MethodGet, hooks+"?uri=/api/webhook", app, nil).Data, &list)
	if len(list) != 1 || list[0]["id"] != float64(1) {
		t.Errorf("list by uri = %v", list)
	}
	if got := aaDo(t, http.MethodGet, hooks+"/1", app, nil); got.HTTPStatus != 200 || !strings.Contains(string(got.Data), `"id":1`) {
		t.Errorf("get 1 = %d %s", got.HTTPStatus, got.Data)
	}
	if got := aaDo(t, http.MethodGet, hooks+"/99", app, nil); got.HTTPStatus != 404 {
		t.Errorf("get 99 = %d", got.HTTPStatus)
	}
	got = aaDo(t, http.MethodPost, hooks+"/1", app, map[string]any{"httpMethod": "PUT", "uri": "/api/webhook2", "event": NodeDeletedEvent})
	if got.HTTPStatus != 200 || s.Webhooks()[0].URI != "/api/webhook2" || s.Webhooks()[0].Event != NodeDeletedEvent {
		t.Errorf("update = %d %s, stored %+v", got.HTTPStatus, got.Data, s.Webhooks()[0])
	}
	if got := aaDo(t, http.MethodDelete, hooks+"/2", app, nil); string(got.Data) != "true" {
		t.Errorf("delete 2 = %s", got.Data)
	}
	if got := aaDo(t, http.MethodDelete, hooks+"/2", app, nil); string(got.Data) != "false" {
		t.Errorf("delete 2 again = %s", got.Data)
	}
	aaDo(t, http.MethodPost, hooks, app, map[string]any{"httpMethod": "POST", "uri": "/a", "event": NodeCreatedEvent})
	if got := aaDo(t, http.MethodDelete, hooks+"/byappid/hybrid_search", app, nil); string(got.Data) != "2" {
		t.Errorf("delete by app = %s", got.Data)
	}
	if n := len(s.Webhooks()); n != 0 {
		t.Errorf("%d webhooks left", n)
	}
}

// TestWebhookListenersDisabled: webhook_listeners is enabled by default on
// new installs since 30 (server PR #47532) but may be off on an upgraded
// instance. A disabled app's routes are not loaded (lib/private/Route/
// Router.php loadRoutes: attribute routes, which webhook_listeners' OCS
// controller uses, only for apps isEnabledForUser), so ocs/v{1,2}.php
// answers ResourceNotFoundException with ApiHelper::respond(998, "Invalid
// query, …"): HTTP 404 on v2, HTTP 200 with statuscode 998 on v1, and XML
// unless ?format=json (ApiHelper reads only the format parameter, not
// Accept). Its listeners are not booted either, so no event is queued.
func TestWebhookListenersDisabled(t *testing.T) {
	s, ts := aaServer(t)
	f := aaHookApp(t, s, ts.URL, nil, map[string]any{"httpMethod": "POST", "uri": "/webhook", "event": NodeWrittenEvent})
	env := s.ExAppEnv("hybrid_search")
	s.SetWebhookListenersEnabled(false)
	app := aaAppHeader(env, "")
	create := map[string]any{"httpMethod": "POST", "uri": "/webhook", "event": NodeCreatedEvent}
	for _, tt := range []struct {
		method, url string
		body        any
		http, code  int
		xml         bool
	}{
		{http.MethodGet, ts.URL + aaHooksV2, nil, 404, 0, true},
		{http.MethodPost, ts.URL + aaHooksV2, create, 404, 0, true},
		{http.MethodGet, ts.URL + aaHooksV2 + "?format=json", nil, 404, 998, false},
		{http.MethodGet, ts.URL + "/ocs/v1.php/apps/webhook_listeners/api/v1/webhooks?format=json", nil, 200, 998, false},
		{http.MethodDelete, ts.URL + aaHooksV2 + "/byappid/hybrid_search?format=json", nil, 404, 998, false},
	} {
		got := aaDo(t, tt.method, tt.url, app, tt.body)
		ctype := got.Header.Get("Content-Type")
		if got.HTTPStatus != tt.http || tt.xml != strings.HasPrefix(ctype, "text/xml") || (!tt.xml && got.StatusCode != tt.code) ||
			!strings.Contains(string(got.Raw), "Invalid query, please check the syntax.") {
			t.Errorf("%s %s = %d %s %s", tt.method, tt.url, got.HTTPStatus, ctype, got.Raw)
		}
		if tt.xml && !strings.Contains(string(got.Raw), "<statuscode>998</statuscode>") {
			t.Errorf("%s %s: XML answer without statuscode 998: %s", tt.method, tt.url, got.Raw)
		}
	}
	s.emit(Event{Class: NodeWrittenEvent, Node: &Node{ID: 7, Path: "/alice/files/a.md"}, User: "alice"})
	if q := s.QueuedWebhooks(); q != 0 {
		t.Errorf("%d jobs queued while webhook_listeners is disabled", q)
	}
	// Enabled again: the stored webhooks work again.
	s.SetWebhookListenersEnabled(true)
	s.emit(Event{Class: NodeWrittenEvent, Node: &Node{ID: 7, Path: "/alice/files/a.md"}, User: "alice"})
	aaAwait(t, "a delivery", func() bool { return len(f.Calls("/webhook")) == 1 })
	if got := aaDo(t, http.MethodGet, ts.URL+aaHooksV2, app, nil); got.HTTPStatus != 200 {
		t.Errorf("list after enabling = %d %s", got.HTTPStatus, got.Raw)
	}
}
