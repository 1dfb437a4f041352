package ncsim

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tpProvider is a provider with a custom task type, as the app registers
// its search provider.
func tpProvider() map[string]any {
	return map[string]any{
		"provider": map[string]any{
			"id": "hs-search", "name": "Hybrid Search", "task_type": "hybrid_search:search", "expected_runtime": 10,
			"optional_input_shape": []any{
				map[string]any{"name": "algorithm", "description": "how to search", "shape_type": 6},
				map[string]any{"name": "folder", "description": "only this folder", "shape_type": 1},
			},
			"optional_output_shape":             []any{map[string]any{"name": "files", "description": "files found", "shape_type": 15}},
			"input_shape_enum_values":           []any{},
			"input_shape_defaults":              []any{},
			"optional_input_shape_enum_values":  map[string]any{"algorithm": []any{map[string]any{"name": "Hybrid", "value": "hybrid"}, map[string]any{"name": "Keyword", "value": "keyword"}}},
			"optional_input_shape_defaults":     map[string]any{"algorithm": "hybrid"},
			"output_shape_enum_values":          []any{},
			"optional_output_shape_enum_values": []any{},
		},
		"customTaskType": map[string]any{
			"id": "hybrid_search:search", "name": "Search my files", "description": "Searches your files",
			"input_shape":  []any{map[string]any{"name": "query", "description": "what to find", "shape_type": 1}},
			"output_shape": []any{map[string]any{"name": "results", "description": "what was found", "shape_type": 1}},
		},
	}
}

// tpEnv is a simulator with the fake app registered, enabled and its
// provider registered.
type tpEnv struct {
	s    *Server
	base string
	app  *aaFakeApp
	env  Env
}

func newTPEnv(t *testing.T, version string) *tpEnv {
	t.Helper()
	s, ts := aaServer(t, func(s *Server) { s.NextcloudVersion = version })
	app := aaNewFakeApp(t, nil)
	env := aaRegister(t, s, app)
	aaEnable(t, s, "hybrid_search")
	e := &tpEnv{s: s, base: ts.URL, app: app, env: env}
	if r := e.appCall(t, "POST", "/ocs/v1.php/apps/app_api/api/v1/ai_provider/task_processing", tpProvider()); r.StatusCode != 100 {
		t.Fatalf("register provider: %d %s", r.StatusCode, r.Raw)
	}
	return e
}

func (e *tpEnv) appCall(t *testing.T, method, path string, body any) aaOCS {
	t.Helper()
	return aaDo(t, method, e.base+path, aaAppHeader(e.env, ""), body)
}

func (e *tpEnv) userCall(t *testing.T, uid, method, path string, body any) aaOCS {
	t.Helper()
	return aaDo(t, method, e.base+"/ocs/v2.php/taskprocessing"+path, aaBasic(uid, uid), body)
}

// schedule schedules a search for uid and returns the task id.
func (e *tpEnv) schedule(t *testing.T, uid string, input map[string]any) int64 {
	t.Helper()
	r := e.userCall(t, uid, "POST", "/schedule", map[string]any{"type": "hybrid_search:search", "appId": "assistant", "input": input})
	if r.HTTPStatus != http.StatusOK {
		t.Fatalf("schedule: %d %s", r.HTTPStatus, r.Raw)
	}
	var d struct {
		Task struct {
			ID     int64          `json:"id"`
			Status string         `json:"status"`
			Input  map[string]any `json:"input"`
		} `json:"task"`
	}
	if err := json.Unmarshal(r.Data, &d); err != nil {
		t.Fatal(err)
	}
	if d.Task.Status != "STATUS_SCHEDULED" {
		t.Errorf("scheduled task status %s", d.Task.Status)
	}
	return d.Task.ID
}

func nextPath(providers, types []string) string {
	q := url.Values{"providerIds[]": providers, "taskTypeIds[]": types}
	return "/ocs/v2.php/taskprocessing/tasks_provider/next?" + q.Encode()
}

func TestTaskFlow(t *testing.T) {
	e := newTPEnv(t, "34")
	id := e.schedule(t, "alice", map[string]any{"query": "kubernetes", "unknown": "dropped"})
	if task, _ := e.s.Task(id); task.Input["algorithm"] != "hybrid" || task.Input["unknown"] != nil || task.UserID != "alice" {
		t.Errorf("stored input %v user %q: want the default algorithm, no unknown key, alice", task.Input, task.UserID)
	}
	// The trigger reached the app, as POST /trigger?providerId= with no user.
	calls := e.app.Calls("/trigger")
	if len(calls) != 1 || calls[0].Method != "POST" || calls[0].Query != "providerId=hs-search" {
		t.Fatalf("trigger calls %+v", calls)
	}
	if got := calls[0].Header.Get("AUTHORIZATION-APP-API"); got != b64(":"+e.env.Get("APP_SECRET")) {
		t.Errorf("trigger signed as %q, want no user", got)
	}

	// A user cannot take tasks; another provider id gets none.
	if r := aaDo(t, "GET", e.base+nextPath([]string{"hs-search"}, []string{"hybrid_search:search"}), aaBasic("alice", "alice"), nil); r.HTTPStatus != http.StatusPreconditionFailed {
		t.Errorf("next as a user = %d, want 412", r.HTTPStatus)
	}
	if r := e.appCall(t, "GET", nextPath([]string{"other"}, []string{"hybrid_search:search"}), nil); r.HTTPStatus != http.StatusNoContent || len(r.Raw) != 0 {
		t.Errorf("next for another provider = %d %q, want 204 and no body", r.HTTPStatus, r.Raw)
	}
	r := e.appCall(t, "GET", nextPath([]string{"hs-search"}, []string{"hybrid_search:search"}), nil)
	var next struct {
		Task struct {
			ID     int64          `json:"id"`
			Status string         `json:"status"`
			UserID *string        `json:"userId"`
			Input  map[string]any `json:"input"`
		} `json:"task"`
		Provider struct {
			Name string `json:"name"`
		} `json:"provider"`
	}
	if err := json.Unmarshal(r.Data, &next); err != nil || next.Task.ID != id || next.Task.Status != "STATUS_RUNNING" || next.Provider.Name != "hs-search" || *next.Task.UserID != "alice" {
		t.Fatalf("next = %d %s (%v)", r.HTTPStatus, r.Raw, err)
	}
	if r := e.appCall(t, "GET", nextPath([]string{"hs-search"}, []string{"hybrid_search:search"}), nil); r.HTTPStatus != http.StatusNoContent {
		t.Errorf("second next = %d, want 204", r.HTTPStatus)
	}

	progress := "/ocs/v2.php/taskprocessing/tasks_provider/" + strconv.FormatInt(id, 10) + "/progress"
	if r := e.appCall(t, "POST", progress, map[string]any{"progress": 0.5}); r.HTTPStatus != http.StatusOK {
		t.Errorf("progress = %d %s", r.HTTPStatus, r.Raw)
	}
	if r := e.appCall(t, "POST", progress, map[string]any{"progress": 1.5}); r.HTTPStatus != http.StatusInternalServerError {
		t.Errorf("progress 1.5 = %d, want 500", r.HTTPStatus)
	}
	file := e.s.PutFile("alice", "/Notes/k8s.md", []byte("kubernetes"))
	result := "/ocs/v2.php/taskprocessing/tasks_provider/" + strconv.FormatInt(id, 10) + "/result"
	r = e.appCall(t, "POST", result, map[string]any{"output": map[string]any{"results": "found", "files": []any{file.ID}, "extra": 1}})
	if r.HTTPStatus != http.StatusOK {
		t.Fatalf("result = %d %s", r.HTTPStatus, r.Raw)
	}
	task, _ := e.s.Task(id)
	if task.Status != "STATUS_SUCCESSFUL" || task.Output["results"] != "found" || task.Output["extra"] != nil || task.Progress != 1 {
		t.Errorf("task after result: %+v", task)
	}

	// bob sees neither the task nor can he cancel it.
	if r := e.userCall(t, "bob", "GET", "/task/"+strconv.FormatInt(id, 10), nil); r.HTTPStatus != http.StatusNotFound {
		t.Errorf("bob reads alice's task: %d", r.HTTPStatus)
	}
	r = e.userCall(t, "alice", "GET", "/task/"+strconv.FormatInt(id, 10), nil)
	if !strings.Contains(string(r.Data), `"STATUS_SUCCESSFUL"`) || strings.Contains(string(r.Data), "errorMessage\":\"") {
		t.Errorf("alice reads her task: %d %s", r.HTTPStatus, r.Data)
	}
}

func TestTaskInputValidation(t *testing.T) {
	e := newTPEnv(t, "34")
	for _, c := range []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"missing", map[string]any{}, `Missing key: "query"`},
		{"not text", map[string]any{"query": 3}, `Failed to validate input key "query": Non-text item provided for Text slot`},
		{"bad enum", map[string]any{"query": "x", "algorithm": "magic"}, `Wrong value given for Enum slot`},
	} {
		r := e.userCall(t, "alice", "POST", "/schedule", map[string]any{"type": "hybrid_search:search", "appId": "assistant", "input": c.input})
		if r.HTTPStatus != http.StatusBadRequest || !strings.Contains(string(r.Data), strings.ReplaceAll(c.want, `"`, `\"`)) {
			t.Errorf("%s: %d %s, want 400 %s", c.name, r.HTTPStatus, r.Data, c.want)
		}
	}
	if r := e.userCall(t, "alice", "POST", "/schedule", map[string]any{"type": "core:text2text", "appId": "a", "input": map[string]any{"input": "x"}}); r.HTTPStatus != http.StatusPreconditionFailed {
		t.Errorf("unknown type: %d, want 412", r.HTTPStatus)
	}
}

func TestTaskResultChecks(t *testing.T) {
	e := newTPEnv(t, "34")
	claim := func() int64 {
		id := e.schedule(t, "alice", map[string]any{"query": "q"})
		if r := e.appCall(t, "GET", nextPath([]string{"hs-search"}, []string{"hybrid_search:search"}), nil); r.HTTPStatus != http.StatusOK {
			t.Fatalf("next: %d", r.HTTPStatus)
		}
		return id
	}
	result := func(id int64) string {
		return "/ocs/v2.php/taskprocessing/tasks_provider/" + strconv.FormatInt(id, 10) + "/result"
	}
	// A file id that names nothing fails the task; a result posted again
	// replaces it (only a cancelled task is left alone).
	id := claim()
	e.appCall(t, "POST", result(id), map[string]any{"output": map[string]any{"results": "x", "files": []any{999999}}})
	if task, _ := e.s.Task(id); task.Status != "STATUS_FAILED" || task.ErrorMessage != taskOutputInvalid {
		t.Errorf("missing file: %+v", task)
	}
	e.appCall(t, "POST", result(id), map[string]any{"output": map[string]any{"results": "x"}})
	if task, _ := e.s.Task(id); task.Status != "STATUS_SUCCESSFUL" {
		t.Errorf("second result: %+v", task)
	}
	// Without the required output slot.
	id = claim()
	e.appCall(t, "POST", result(id), map[string]any{"output": map[string]any{"files": []any{}}})
	if task, _ := e.s.Task(id); task.Status != "STATUS_FAILED" {
		t.Errorf("no results slot: %+v", task)
	}
	// An error with a user-facing message (kept from 33 on).
	id = claim()
	r := e.appCall(t, "POST", result(id), map[string]any{"errorMessage": strings.Repeat("é", 1200), "userFacingErrorMessage": "The chat model is down."})
	task, _ := e.s.Task(id)
	if task.Status != "STATUS_FAILED" || len([]rune(task.ErrorMessage)) != 1000 || task.UserFacingError != "The chat model is down." {
		t.Errorf("failure: %+v", task)
	}
	if !strings.Contains(string(r.Data), `"userFacingErrorMessage":"The chat model is down."`) {
		t.Errorf("task JSON %s lacks the user-facing message", r.Data)
	}
	// Cancelled by the user while running: the result changes nothing.
	id = claim()
	if r := e.userCall(t, "alice", "POST", "/tasks/"+strconv.FormatInt(id, 10)+"/cancel", nil); r.HTTPStatus != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.HTTPStatus, r.Raw)
	}
	r = e.appCall(t, "POST", "/ocs/v2.php/taskprocessing/tasks_provider/"+strconv.FormatInt(id, 10)+"/progress", map[string]any{"progress": 0.3})
	if !strings.Contains(string(r.Data), `"STATUS_CANCELLED"`) {
		t.Errorf("progress after cancel answered %s, want the cancelled task", r.Data)
	}
	e.appCall(t, "POST", result(id), map[string]any{"output": map[string]any{"results": "late"}})
	if task, _ := e.s.Task(id); task.Status != "STATUS_CANCELLED" || task.Output != nil {
		t.Errorf("result after cancel: %+v", task)
	}
}

func TestTaskTriggerVersions(t *testing.T) {
	for _, v := range Versions {
		t.Run(v, func(t *testing.T) {
			e := newTPEnv(t, v)
			first := e.schedule(t, "alice", map[string]any{"query": "a"})
			e.appCall(t, "GET", nextPath([]string{"hs-search"}, []string{"hybrid_search:search"}), nil)
			// A task scheduled while one of the type runs triggers nothing.
			e.schedule(t, "alice", map[string]any{"query": "b"})
			want := 1
			if v == "32" {
				want = 0 // app_api v32 providers are not triggerable: the app polls
			}
			if got := len(e.app.Calls("/trigger")); got != want {
				t.Errorf("triggers = %d, want %d", got, want)
			}
			_ = first
		})
	}
}

func TestTaskProvidersFollowTheApp(t *testing.T) {
	e := newTPEnv(t, "34")
	if r := e.userCall(t, "alice", "GET", "/tasktypes", nil); !strings.Contains(string(r.Data), `"hybrid_search:search"`) || !strings.Contains(string(r.Data), `"type":"ListOfFiles"`) {
		t.Errorf("tasktypes: %s", r.Data)
	}
	e.s.setEnabled("hybrid_search", false)
	if r := e.userCall(t, "alice", "GET", "/tasktypes", nil); strings.Contains(string(r.Data), "hybrid_search") {
		t.Errorf("a disabled app's type is offered: %s", r.Data)
	}
	e.s.setEnabled("hybrid_search", true)
	reg := "/ocs/v1.php/apps/app_api/api/v1/ai_provider/task_processing"
	if r := e.appCall(t, "DELETE", reg+"?name=hs-search", nil); r.StatusCode != 100 {
		t.Errorf("unregister: %d %s", r.StatusCode, r.Raw)
	}
	if r := e.appCall(t, "DELETE", reg+"?name=hs-search", nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("unregister again: %d, want 404", r.StatusCode)
	}
	bad := tpProvider()
	bad["provider"].(map[string]any)["expected_runtime"] = "10"
	if r := e.appCall(t, "POST", reg, bad); r.StatusCode != http.StatusBadRequest {
		t.Errorf("bad provider: %d, want 400", r.StatusCode)
	}
	if len(e.s.TaskProviders("hybrid_search")) != 0 {
		t.Errorf("providers left: %+v", e.s.TaskProviders(""))
	}
}

func TestTaskScheduleRateLimit(t *testing.T) {
	e := newTPEnv(t, "34")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e.s.Now = func() time.Time { return now }
	for i := 0; i < 20; i++ {
		e.schedule(t, "bob", map[string]any{"query": "q"})
	}
	if r := e.userCall(t, "bob", "POST", "/schedule", map[string]any{"type": "hybrid_search:search", "appId": "a", "input": map[string]any{"query": "q"}}); r.HTTPStatus != http.StatusTooManyRequests {
		t.Errorf("21st schedule: %d, want 429", r.HTTPStatus)
	}
	now = now.Add(2 * time.Minute)
	e.schedule(t, "bob", map[string]any{"query": "q"})
}

// TestTaskTriggerTimeout: a slow /trigger holds the scheduling request for
// AppAPI's timeout at most; the task stays scheduled for the next look.
func TestTaskTriggerTimeout(t *testing.T) {
	s, ts := aaServer(t, func(s *Server) { s.ExAppRequestTimeout = 100 * time.Millisecond })
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	app := aaNewFakeApp(t, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		if r.URL.Path != "/trigger" {
			return false
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return true
	})
	env := aaRegister(t, s, app)
	aaEnable(t, s, "hybrid_search")
	e := &tpEnv{s: s, base: ts.URL, app: app, env: env}
	e.appCall(t, "POST", "/ocs/v1.php/apps/app_api/api/v1/ai_provider/task_processing", tpProvider())
	start := time.Now()
	id := e.schedule(t, "alice", map[string]any{"query": "q"})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("scheduling took %v behind a stuck trigger", d)
	}
	trig := s.TaskTriggers()
	if len(trig) != 1 || trig[0].Err == nil {
		t.Errorf("triggers %+v, want one that timed out", trig)
	}
	if task, _ := s.Task(id); task.Status != "STATUS_SCHEDULED" {
		t.Errorf("task %+v", task)
	}
}
