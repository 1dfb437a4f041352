package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
)

// fakeAsker answers from a per-user passage and records who asked.
type fakeAsker struct {
	mu    sync.Mutex
	users []hs.UserID
	early error // failure before any event
	late  error // failure after the passages
}

func (f *fakeAsker) Ask(ctx context.Context, user hs.UserID, req hs.AskRequest, stream hs.AnswerStream) (hs.Answer, error) {
	f.mu.Lock()
	f.users = append(f.users, user)
	early, late := f.early, f.late
	f.mu.Unlock()
	if early != nil {
		return hs.Answer{}, early
	}
	p := []hs.Passage{{N: 1, FileID: 7, Title: string(user) + " notes", Text: "line one\nline two"}}
	if stream != nil {
		stream.Passages(p)
	}
	if late != nil {
		return hs.Answer{}, late
	}
	for _, piece := range []string{"Backups ", "at two ", "[1]."} {
		if stream != nil {
			stream.Text(piece)
		}
	}
	return hs.Answer{Question: req.Question, Text: "Backups at two [1].", Answered: true, Passages: p,
		Citations: []hs.Citation{{N: 1, FileID: 7}}}, nil
}

type fakeTrigger struct {
	mu  sync.Mutex
	ids []string
}

func (f *fakeTrigger) Trigger(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != "hybrid_search-search" {
		return hs.Errorf(hs.ENOTFOUND, "no task provider %q", id)
	}
	f.ids = append(f.ids, id)
	return nil
}

func askServer(t *testing.T, ask handlers.Asker, tr handlers.TaskTrigger) http.Handler {
	t.Helper()
	s, err := handlers.New(handlers.Deps{AppID: testAppID, AppSecret: testSecret, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{},
		Publish: &fakeQueue{}, Operator: &fakeOperator{}, Assets: fstest.MapFS{}, Ask: ask, Tasks: tr})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}

func askReq(user, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/api/ask", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return signed(r, user)
}

type sseEvent struct {
	name string
	data json.RawMessage
}

func readEvents(t *testing.T, body string) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = json.RawMessage(strings.TrimPrefix(line, "data: "))
		case line == "":
			if cur.name != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		}
	}
	return out
}

func TestAskStreams(t *testing.T) {
	ask := &fakeAsker{}
	h := askServer(t, ask, nil)
	w := do(h, askReq("alice", `{"question":"When do backups run?"}`))
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/event-stream; charset=utf-8" || w.Header().Get("X-Accel-Buffering") != "no" {
		t.Fatalf("status %d headers %v", w.Code, w.Header())
	}
	evs := readEvents(t, w.Body.String())
	var names []string
	var text strings.Builder
	for _, e := range evs {
		names = append(names, e.name)
		if e.name == "text" {
			var d struct{ Text string }
			_ = json.Unmarshal(e.data, &d)
			text.WriteString(d.Text)
		}
	}
	if strings.Join(names, ",") != "passages,text,text,text,done" || text.String() != "Backups at two [1]." {
		t.Errorf("events %v, text %q", names, text.String())
	}
	var done hs.Answer
	if err := json.Unmarshal(evs[len(evs)-1].data, &done); err != nil || !done.Answered || done.Citations[0].FileID != 7 {
		t.Errorf("done %+v %v", done, err)
	}
	if !strings.Contains(string(evs[0].data), `line one\nline two`) {
		t.Errorf("passages %s", evs[0].data)
	}
	if ask.users[0] != "alice" {
		t.Errorf("asked as %q", ask.users[0])
	}
}

func TestAskJSONAndErrors(t *testing.T) {
	ask := &fakeAsker{}
	h := askServer(t, ask, nil)
	w := do(h, askReq("bob", `{"question":"Q?","stream":false}`))
	var a hs.Answer
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &a) != nil || a.Text != "Backups at two [1]." {
		t.Errorf("JSON answer %d %s", w.Code, w.Body)
	}
	tests := []struct {
		name   string
		h      http.Handler
		req    *http.Request
		status int
		code   string
	}{
		{"no chat model", askServer(t, &fakeAsker{early: &hs.AskError{Code: hs.AskOff, Err: hs.Errorf(hs.ENOTFOUND, "asking your files is off")}}, nil),
			askReq("bob", `{"question":"Q?"}`), http.StatusNotFound, hs.AskOff},
		{"no asker", askServer(t, nil, nil), askReq("bob", `{"question":"Q?"}`), http.StatusNotFound, hs.AskOff},
		{"busy", askServer(t, &fakeAsker{early: &hs.AskError{Code: hs.AskBusy, Err: hs.Errorf(hs.EUNAVAILABLE, "busy")}}, nil),
			askReq("bob", `{"question":"Q?"}`), http.StatusServiceUnavailable, hs.AskBusy},
		{"unknown field", h, askReq("bob", `{"question":"Q?","top_k":3}`), http.StatusBadRequest, hs.AskInvalid},
		{"model down at an address", askServer(t, &fakeAsker{early: &hs.AskError{Code: hs.AskModelUnavailable, Err: hs.Errorf(hs.EUNAVAILABLE, "chat: ollama on http://10.0.0.5:11434 unreachable")}}, nil),
			askReq("bob", `{"question":"Q?"}`), http.StatusServiceUnavailable, hs.AskModelUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(tt.h, tt.req)
			var b struct{ Error, Kind, Code string }
			if w.Code != tt.status || json.Unmarshal(w.Body.Bytes(), &b) != nil || b.Code != tt.code {
				t.Errorf("%d %s, want %d code %s", w.Code, w.Body, tt.status, tt.code)
			}
			if strings.Contains(b.Error, "10.0.0.5") {
				t.Errorf("the error names an internal address: %s", b.Error)
			}
		})
	}
	// Only users ask; AppAPI without a user cannot.
	if w := do(h, askReq("", `{"question":"Q?"}`)); w.Code != http.StatusForbidden && w.Code != http.StatusUnauthorized {
		t.Errorf("without a user: %d", w.Code)
	}
}

func TestAskFailsMidStream(t *testing.T) {
	h := askServer(t, &fakeAsker{late: &hs.AskError{Code: hs.AskModelTimeout, Err: hs.Errorf(hs.EUNAVAILABLE, "the chat model took longer than 5m0s")}}, nil)
	w := do(h, askReq("alice", `{"question":"Q?"}`))
	evs := readEvents(t, w.Body.String())
	if len(evs) != 2 || evs[1].name != "error" || !strings.Contains(string(evs[1].data), `"code":"model_timeout"`) {
		t.Errorf("events %+v", evs)
	}
}

func TestTrigger(t *testing.T) {
	tr := &fakeTrigger{}
	h := askServer(t, nil, tr)
	req := func(user, id string) *http.Request {
		return signed(httptest.NewRequest(http.MethodPost, "/trigger?providerId="+id, nil), user)
	}
	if w := do(h, req("", "hybrid_search-search")); w.Code != http.StatusOK || len(tr.ids) != 1 {
		t.Errorf("trigger: %d %s", w.Code, w.Body)
	}
	if w := do(h, req("alice", "hybrid_search-search")); w.Code != http.StatusForbidden {
		t.Errorf("trigger as a user: %d", w.Code)
	}
	if w := do(h, req("", "nope")); w.Code != http.StatusNotFound {
		t.Errorf("unknown provider: %d", w.Code)
	}
	if w := do(h, httptest.NewRequest(http.MethodPost, "/trigger?providerId=hybrid_search-search", nil)); w.Code != http.StatusUnauthorized {
		t.Errorf("unsigned: %d", w.Code)
	}
}
