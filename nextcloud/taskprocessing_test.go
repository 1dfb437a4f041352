package nextcloud_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

var testProvider = nextcloud.TaskProvider{
	ID: "hybrid_search-test", Name: "Test provider", TaskType: "hybrid_search:test", ExpectedRuntime: 5,
	OptionalInputShape:           []nextcloud.Shape{{Name: "mode", Description: "how", Type: nextcloud.ShapeEnum}},
	OptionalOutputShape:          []nextcloud.Shape{{Name: "files", Description: "files", Type: nextcloud.ShapeListOfFiles}},
	OptionalInputShapeEnumValues: map[string][]nextcloud.EnumValue{"mode": {{Name: "Fast", Value: "fast"}, {Name: "Slow", Value: "slow"}}},
	OptionalInputShapeDefaults:   map[string]any{"mode": "fast"},
	CustomTaskType: &nextcloud.TaskType{ID: "hybrid_search:test", Name: "Test", Description: "A test task type",
		InputShape:  []nextcloud.Shape{{Name: "query", Description: "the query", Type: nextcloud.ShapeText}},
		OutputShape: []nextcloud.Shape{{Name: "answer", Description: "the answer", Type: nextcloud.ShapeText}}},
}

// scheduleAs schedules a test task as user through the server's OCS API.
func scheduleAs(t *testing.T, e *env, user, query string) int64 {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"type": "hybrid_search:test", "appId": "assistant", "input": map[string]any{"query": query}})
	req, _ := http.NewRequest(http.MethodPost, e.url+"/ocs/v2.php/taskprocessing/schedule", bytes.NewReader(body))
	req.SetBasicAuth(user, user)
	req.Header.Set("OCS-APIRequest", "true")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		OCS struct {
			Data struct {
				Task struct {
					ID int64 `json:"id"`
				} `json:"task"`
			} `json:"data"`
		} `json:"ocs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("schedule: %d %v", resp.StatusCode, err)
	}
	return out.OCS.Data.Task.ID
}

func TestTaskProviderFlow(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	ctx := context.Background()
	if err := e.c.RegisterTaskProvider(ctx, testProvider); err != nil {
		t.Fatalf("RegisterTaskProvider: %v", err)
	}
	if got := sim.TaskProviders(testAppID); len(got) != 1 || got[0].CustomTaskType != "hybrid_search:test" {
		t.Fatalf("providers %+v", got)
	}
	task, _, err := e.c.NextTask(ctx, []string{testProvider.ID}, []string{testProvider.TaskType})
	if err != nil || task != nil {
		t.Fatalf("NextTask on an empty queue = %v, %v; want nil, nil", task, err)
	}
	id := scheduleAs(t, e, "alice", "kubernetes")
	task, provider, err := e.c.NextTask(ctx, []string{testProvider.ID}, []string{testProvider.TaskType})
	if err != nil || task == nil {
		t.Fatalf("NextTask = %v, %v", task, err)
	}
	if task.ID != id || task.User != "alice" || task.Input["query"] != "kubernetes" || task.Input["mode"] != "fast" || provider != testProvider.ID || task.Status != nextcloud.TaskRunning {
		t.Errorf("task %+v from %q", task, provider)
	}
	if got, err := e.c.SetTaskProgress(ctx, id, 0.5); err != nil || got.Status != nextcloud.TaskRunning || got.Progress != 0.5 {
		t.Errorf("SetTaskProgress = %+v, %v", got, err)
	}
	file := sim.PutFile("alice", "/a.md", []byte("a"))
	got, err := e.c.SetTaskResult(ctx, id, map[string]any{"answer": "42", "files": []int64{file.ID}})
	if err != nil || got.Status != nextcloud.TaskSuccessful || got.Output["answer"] != "42" {
		t.Errorf("SetTaskResult = %+v, %v", got, err)
	}

	id = scheduleAs(t, e, "bob", "x")
	if task, _, err = e.c.NextTask(ctx, []string{testProvider.ID}, []string{testProvider.TaskType}); err != nil || task.ID != id {
		t.Fatalf("NextTask = %v, %v", task, err)
	}
	got, err = e.c.FailTask(ctx, id, "ollama: connection refused", "The chat model is not reachable.")
	if err != nil || got.Status != nextcloud.TaskFailed {
		t.Errorf("FailTask = %+v, %v", got, err)
	}
	if info, _ := sim.Task(id); info.UserFacingError != "The chat model is not reachable." || info.ErrorMessage != "ollama: connection refused" {
		t.Errorf("failed task %+v", info)
	}
	if _, err := e.c.SetTaskProgress(ctx, 99999, 0.1); hs.ErrorKind(err) != hs.ENOTFOUND {
		t.Errorf("progress of an unknown task: %v, want not found", err)
	}

	if err := e.c.UnregisterTaskProvider(ctx, testProvider.ID); err != nil {
		t.Fatalf("UnregisterTaskProvider: %v", err)
	}
	wantKind(t, "unregister again", e.c.UnregisterTaskProvider(ctx, testProvider.ID), hs.ENOTFOUND)
	bad := testProvider
	bad.CustomTaskType = &nextcloud.TaskType{ID: "other"}
	wantKind(t, "mismatched custom type", e.c.RegisterTaskProvider(ctx, bad), hs.EINVALID)
}
