package assistant_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/assistant"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

// fakeTasks is a task queue with the server's rules: next claims the
// oldest scheduled task of the type, a result ends a running task (and
// replaces an earlier result), a cancelled task keeps its state.
type fakeTasks struct {
	mu         sync.Mutex
	tasks      []*nextcloud.Task
	registered map[string]nextcloud.TaskProvider
	missing    map[int64]bool // file ids that do not exist
	nextErr    error
	posts      []string // "result <id>" / "fail <id>: <user message>"
	changed    chan struct{}
}

func newFakeTasks() *fakeTasks {
	return &fakeTasks{registered: map[string]nextcloud.TaskProvider{}, missing: map[int64]bool{}, changed: make(chan struct{}, 100)}
}

func (f *fakeTasks) add(typ string, user hs.UserID, input map[string]any) *nextcloud.Task {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &nextcloud.Task{ID: int64(len(f.tasks) + 1), Type: typ, User: user, Status: nextcloud.TaskScheduled, Input: input}
	f.tasks = append(f.tasks, t)
	return t
}

func (f *fakeTasks) get(id int64) nextcloud.Task {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.tasks[id-1]
}

func (f *fakeTasks) RegisterTaskProvider(ctx context.Context, p nextcloud.TaskProvider) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.registered[p.ID] = p
	return nil
}

func (f *fakeTasks) UnregisterTaskProvider(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.registered[id]; !ok {
		return hs.Errorf(hs.ENOTFOUND, "no provider")
	}
	delete(f.registered, id)
	return nil
}

func (f *fakeTasks) NextTask(ctx context.Context, providers, types []string) (*nextcloud.Task, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nextErr != nil {
		return nil, "", f.nextErr
	}
	for _, t := range f.tasks {
		if t.Status == nextcloud.TaskScheduled && slices.Contains(types, t.Type) {
			if _, ok := f.registered[providers[0]]; !ok {
				return nil, "", nil
			}
			t.Status = nextcloud.TaskRunning
			c := *t
			return &c, providers[0], nil
		}
	}
	return nil, "", nil
}

func (f *fakeTasks) SetTaskProgress(ctx context.Context, id int64, p float64) (nextcloud.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tasks[id-1]
	if t.Status != nextcloud.TaskCancelled {
		t.Progress = p
	}
	return *t, nil
}

func (f *fakeTasks) SetTaskResult(ctx context.Context, id int64, output map[string]any) (nextcloud.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() { f.changed <- struct{}{} }()
	t := f.tasks[id-1]
	f.posts = append(f.posts, "result "+strings.TrimSpace(string(rune('0'+id))))
	if t.Status == nextcloud.TaskCancelled {
		return *t, nil
	}
	for _, key := range []string{assistant.SlotFiles, assistant.SlotSources} {
		ids, _ := output[key].([]int64)
		for _, id := range ids {
			if f.missing[id] {
				t.Status = nextcloud.TaskFailed
				return *t, nil
			}
		}
	}
	t.Status, t.Output = nextcloud.TaskSuccessful, output
	return *t, nil
}

func (f *fakeTasks) FailTask(ctx context.Context, id int64, msg, userMsg string) (nextcloud.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() { f.changed <- struct{}{} }()
	t := f.tasks[id-1]
	f.posts = append(f.posts, "fail: "+userMsg)
	if t.Status != nextcloud.TaskCancelled {
		t.Status = nextcloud.TaskFailed
	}
	return *t, nil
}

func (f *fakeTasks) await(t *testing.T, id int64, status string) nextcloud.Task {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if got := f.get(id); got.Status == status {
			return got
		}
		select {
		case <-f.changed:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatalf("task %d: status %s, want %s (posts %v)", id, f.get(id).Status, status, f.posts)
		}
	}
}

// userSearch answers each user from their own documents.
type userSearch struct {
	mu    sync.Mutex
	users []hs.UserID
	block chan struct{} // if non-nil, searches wait for it
}

func (s *userSearch) Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error) {
	s.mu.Lock()
	s.users = append(s.users, user)
	block := s.block
	s.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return hs.SearchResult{}, ctx.Err()
		}
	}
	if req.Query == "broken" {
		return hs.SearchResult{}, hs.Errorf(hs.EUNAVAILABLE, "search: store down at qdrant:6334")
	}
	id := hs.FileID(100)
	if user == "bob" {
		id = 200
	}
	return hs.SearchResult{Results: []hs.DocumentResult{{FileID: id, Title: string(user) + "'s notes", Path: "/Notes/" + string(user) + ".md",
		Link: "https://cloud.example/index.php/f/" + string(rune('0'+id/100)), Excerpt: hs.Excerpt{Text: "The " + req.Query + " plan for " + string(user)}}}}, nil
}

func newService(t *testing.T, f *fakeTasks, search assistant.Searcher, ask assistant.Answerer, slots int) (*assistant.Service, context.CancelFunc) {
	t.Helper()
	svc, err := assistant.New(assistant.Options{AppID: "hybrid_search", Tasks: f, Search: search, Ask: ask, SearchSlots: slots,
		Poll: 20 * time.Millisecond, ProgressEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		svc.Run(ctx)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return svc, func() {
		cancel()
		<-done
	}
}

func TestSearchTasksRunAsTheirUser(t *testing.T) {
	f := newFakeTasks()
	search := &userSearch{}
	svc, _ := newService(t, f, search, nil, 2)
	if err := svc.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.registered["hybrid_search-search"]; !ok || len(f.registered) != 1 {
		t.Fatalf("registered %v: want the search provider only (no chat model)", f.registered)
	}
	a := f.add("hybrid_search:search", "alice", map[string]any{"query": "kubernetes", "folder": "/Notes"})
	b := f.add("hybrid_search:search", "bob", map[string]any{"query": "kubernetes"})
	if err := svc.Trigger("hybrid_search-search"); err != nil {
		t.Fatal(err)
	}
	got := f.await(t, a.ID, nextcloud.TaskSuccessful)
	text := got.Output[assistant.SlotResults].(string)
	if !strings.Contains(text, "alice's notes") || strings.Contains(text, "bob") || !strings.Contains(text, "/Notes/alice.md") {
		t.Errorf("alice's result:\n%s", text)
	}
	if files := got.Output[assistant.SlotFiles].([]int64); len(files) != 1 || files[0] != 100 {
		t.Errorf("alice's files %v", files)
	}
	if got := f.await(t, b.ID, nextcloud.TaskSuccessful); strings.Contains(got.Output[assistant.SlotResults].(string), "alice") {
		t.Errorf("bob's result mentions alice")
	}
	if err := svc.Trigger("other"); hs.ErrorKind(err) != hs.ENOTFOUND {
		t.Errorf("unknown provider: %v", err)
	}
}

func TestSearchTaskFailures(t *testing.T) {
	f := newFakeTasks()
	svc, _ := newService(t, f, &userSearch{}, nil, 2)
	_ = svc.Sync(context.Background())
	noUser := f.add("hybrid_search:search", "", map[string]any{"query": "x"})
	broken := f.add("hybrid_search:search", "alice", map[string]any{"query": "broken"})
	gone := f.add("hybrid_search:search", "alice", map[string]any{"query": "x"})
	f.missing[100] = true // deleted between the search and the result
	svc.Trigger("hybrid_search-search")
	f.await(t, noUser.ID, nextcloud.TaskFailed)
	f.await(t, broken.ID, nextcloud.TaskFailed)
	if got := f.await(t, gone.ID, nextcloud.TaskSuccessful); got.Output[assistant.SlotFiles] != nil {
		t.Errorf("the refused file list is still there: %v", got.Output)
	}
	joined := strings.Join(f.posts, "\n")
	if !strings.Contains(joined, "signed-in user") || !strings.Contains(joined, "cannot be searched right now") || strings.Contains(joined, "qdrant") {
		t.Errorf("posts:\n%s", joined)
	}
}

// TestLanesTakeOnlyWhatTheyCanRun: with its one slot busy, the search
// lane polls (on synctest's clock) and leaves the second task scheduled.
func TestLanesTakeOnlyWhatTheyCanRun(t *testing.T) { synctest.Test(t, testLanesTakeOnlyWhatTheyCanRun) }

func testLanesTakeOnlyWhatTheyCanRun(t *testing.T) {
	f := newFakeTasks()
	search := &userSearch{block: make(chan struct{})}
	svc, _ := newService(t, f, search, nil, 1)
	_ = svc.Sync(context.Background())
	one := f.add("hybrid_search:search", "alice", map[string]any{"query": "a"})
	two := f.add("hybrid_search:search", "alice", map[string]any{"query": "b"})
	svc.Trigger("hybrid_search-search")
	f.await(t, one.ID, nextcloud.TaskRunning)
	time.Sleep(100 * time.Millisecond) // five polls
	synctest.Wait()
	if got := f.get(two.ID).Status; got != nextcloud.TaskScheduled {
		t.Errorf("second task %s with one slot busy, want it left scheduled", got)
	}
	close(search.block)
	f.await(t, two.ID, nextcloud.TaskSuccessful)
}

func TestShutdownEndsRunningTasks(t *testing.T) {
	f := newFakeTasks()
	search := &userSearch{block: make(chan struct{})}
	svc, stop := newService(t, f, search, nil, 2)
	_ = svc.Sync(context.Background())
	task := f.add("hybrid_search:search", "alice", map[string]any{"query": "a"})
	svc.Trigger("hybrid_search-search")
	f.await(t, task.ID, nextcloud.TaskRunning)
	stop()
	if got := f.get(task.ID); got.Status != nextcloud.TaskFailed || !strings.Contains(strings.Join(f.posts, ""), "stopping") {
		t.Errorf("after shutdown: %+v, posts %v", got, f.posts)
	}
}

// fakeAsk answers with a fixed answer, or waits for ctx.
type fakeAsk struct {
	mu     sync.Mutex
	free   int
	slow   bool
	users  []hs.UserID
	result hs.Answer
	err    error
}

func (a *fakeAsk) Reserve() (assistant.Asking, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.free == 0 {
		return nil, false
	}
	a.free--
	return &fakeSlot{a: a}, true
}

type fakeSlot struct {
	a    *fakeAsk
	once sync.Once
}

func (s *fakeSlot) Release() { s.once.Do(func() { s.a.mu.Lock(); s.a.free++; s.a.mu.Unlock() }) }

func (s *fakeSlot) Ask(ctx context.Context, user hs.UserID, req hs.AskRequest, stream hs.AnswerStream) (hs.Answer, error) {
	defer s.Release()
	s.a.mu.Lock()
	s.a.users = append(s.a.users, user)
	slow, res, err := s.a.slow, s.a.result, s.a.err
	s.a.mu.Unlock()
	stream.Passages(res.Passages)
	if slow {
		<-ctx.Done()
		return hs.Answer{}, &hs.AskError{Code: hs.AskCancelled, Err: ctx.Err()}
	}
	stream.Text(res.Text)
	return res, err
}

func TestAskTasks(t *testing.T) {
	f := newFakeTasks()
	ask := &fakeAsk{free: 1, result: hs.Answer{Text: "Backups run at two [1].", Answered: true,
		Citations: []hs.Citation{{N: 1, FileID: 7, Title: "Backups", Path: "/Ops/backups.md", Link: "https://cloud.example/index.php/f/7"}}}}
	svc, _ := newService(t, f, &userSearch{}, ask, 2)
	_ = svc.Sync(context.Background())
	if _, ok := f.registered["hybrid_search-ask"]; ok {
		t.Fatal("the ask provider is registered without a chat model")
	}
	svc.SetAsk(true)
	_ = svc.Sync(context.Background())
	if p, ok := f.registered["hybrid_search-ask"]; !ok || p.CustomTaskType.ID != "hybrid_search:ask" {
		t.Fatalf("registered %v", f.registered)
	}
	task := f.add("hybrid_search:ask", "alice", map[string]any{"question": "When do backups run?"})
	svc.Trigger("hybrid_search-ask")
	got := f.await(t, task.ID, nextcloud.TaskSuccessful)
	text := got.Output[assistant.SlotAnswer].(string)
	if !strings.Contains(text, "Backups run at two [1].") || !strings.Contains(text, "[1] Backups — /Ops/backups.md") || !strings.Contains(text, "https://cloud.example/index.php/f/7") {
		t.Errorf("answer:\n%s", text)
	}
	if ids := got.Output[assistant.SlotSources].([]int64); len(ids) != 1 || ids[0] != 7 {
		t.Errorf("sources %v", ids)
	}

	// The model fails: the task fails with a message for the user.
	ask.mu.Lock()
	ask.err = &hs.AskError{Code: hs.AskModelUnavailable, Err: hs.Errorf(hs.EUNAVAILABLE, "chat: ollama at 10.0.0.5:11434 unreachable")}
	ask.mu.Unlock()
	failed := f.add("hybrid_search:ask", "bob", map[string]any{"question": "Q?"})
	svc.Trigger("hybrid_search-ask")
	f.await(t, failed.ID, nextcloud.TaskFailed)
	if last := f.posts[len(f.posts)-1]; !strings.Contains(last, "not reachable right now") || strings.Contains(last, "10.0.0.5") {
		t.Errorf("user message %q", last)
	}

	// Off again: the provider goes, and no task is taken.
	svc.SetAsk(false)
	_ = svc.Sync(context.Background())
	if _, ok := f.registered["hybrid_search-ask"]; ok {
		t.Error("the ask provider stayed after the chat model went")
	}
	if err := svc.Remove(context.Background()); err != nil || len(f.registered) != 0 {
		t.Errorf("Remove: %v, left %v", err, f.registered)
	}
}

func TestAskTaskCancelledByTheUser(t *testing.T) {
	f := newFakeTasks()
	ask := &fakeAsk{free: 1, slow: true}
	svc, _ := newService(t, f, &userSearch{}, ask, 2)
	svc.SetAsk(true)
	_ = svc.Sync(context.Background())
	task := f.add("hybrid_search:ask", "alice", map[string]any{"question": "Q?"})
	svc.Trigger("hybrid_search-ask")
	f.await(t, task.ID, nextcloud.TaskRunning)
	f.mu.Lock()
	f.tasks[0].Status = nextcloud.TaskCancelled
	f.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ask.mu.Lock()
		free := ask.free
		ask.mu.Unlock()
		if free == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled answer still holds its slot")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := f.get(task.ID); got.Status != nextcloud.TaskCancelled {
		t.Errorf("status %s", got.Status)
	}
}
