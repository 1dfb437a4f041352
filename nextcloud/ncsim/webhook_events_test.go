package ncsim

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestWebhookEventClassesPerVersion: webhook_listeners accepts exactly the
// IWebhookCompatibleEvent classes of the simulated version and answers OCS
// 400 for anything else, the non-existent OCP\Files\Events\Node\
// NodeRestoredEvent among them.
func TestWebhookEventClassesPerVersion(t *testing.T) {
	tests := []struct {
		class string
		ok    map[string]bool // version -> accepted
	}{
		{`OCA\Files_Trashbin\Events\NodeRestoredEvent`, map[string]bool{"32": true, "33": true, "34": true, "35": true}},
		{`\OCA\Files_Trashbin\Events\BeforeNodeRestoredEvent`, map[string]bool{"32": true, "33": true, "34": true, "35": true}},
		{`OCP\Files\Events\Node\NodeRestoredEvent`, map[string]bool{}},
		{`OCP\Files\Events\Node\BeforeNodeRestoredEvent`, map[string]bool{}},
		{`OCP\Files\Events\Node\NodeWrittenEvent`, map[string]bool{"32": true, "33": true, "34": true, "35": true}},
		{`OCP\Files\Events\Node\BeforeNodeReadEvent`, map[string]bool{"32": true, "33": true, "34": true, "35": true}},
		{`OCP\Files\Events\Node\NodeReadEvent`, map[string]bool{}},
		{`OCP\Files\Events\Node\NodeUpdatedEvent`, map[string]bool{"34": true, "35": true}},
		{`OCP\Files\Events\Node\BeforeNodeUpdatedEvent`, map[string]bool{"34": true, "35": true}},
		{`OCP\Files\Events\Node\FilesystemTornDownEvent`, map[string]bool{}},
		{`OCP\SystemTag\TagAssignedEvent`, map[string]bool{"32": true, "33": true, "34": true, "35": true}},
		{`OCP\Share\Events\ShareCreatedEvent`, map[string]bool{}},
		{`OCA\Files_Trashbin\Events\NodeDeletedEvent`, map[string]bool{}},
	}
	for _, v := range Versions {
		s, ts := aaServer(t, func(s *Server) { s.NextcloudVersion = v })
		env := aaRegister(t, s, aaNewFakeApp(t, nil))
		aaEnable(t, s, "hybrid_search")
		for _, tt := range tests {
			got := aaDo(t, http.MethodPost, ts.URL+aaHooksV2, aaAppHeader(env, ""),
				map[string]any{"httpMethod": "POST", "uri": "/api/webhook", "event": tt.class})
			want := http.StatusBadRequest
			if tt.ok[v] {
				want = http.StatusOK
			}
			if got.HTTPStatus != want {
				t.Errorf("%s: register %s = %d %s, want %d", v, tt.class, got.HTTPStatus, got.Message, want)
			}
		}
	}
}

// TestUpdateEventsFrom34: from Nextcloud 34 a write to an existing file
// fires (Before)NodeUpdatedEvent before the (Before)NodeWrittenEvent that
// every version fires; creating a file fires no update event.
func TestUpdateEventsFrom34(t *testing.T) {
	for _, v := range Versions {
		f := newFixtureOn(t, v, "alice")
		id := f.s.SeedFile("alice", "/a.txt", []byte("old")).ID
		mark := len(f.s.Events())
		mustStatus(t, f.do("PUT", davURL("alice", "/a.txt"), "alice", "new"), http.StatusNoContent)
		want := []string{
			fmt.Sprintf("BeforeNodeWrittenEvent /alice/files/a.txt#%d by alice", id),
			fmt.Sprintf("NodeWrittenEvent /alice/files/a.txt#%d by alice", id),
		}
		if v >= "34" {
			want = []string{
				fmt.Sprintf("BeforeNodeUpdatedEvent /alice/files/a.txt#%d by alice", id),
				fmt.Sprintf("BeforeNodeWrittenEvent /alice/files/a.txt#%d by alice", id),
				fmt.Sprintf("NodeUpdatedEvent /alice/files/a.txt#%d by alice", id),
				fmt.Sprintf("NodeWrittenEvent /alice/files/a.txt#%d by alice", id),
			}
		}
		if got := f.eventsSince(mark); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s overwrite events:\n got %v\nwant %v", v, got, want)
		}
		mark = len(f.s.Events())
		mustStatus(t, f.do("PUT", davURL("alice", "/b.txt"), "alice", "new"), http.StatusCreated)
		for _, ev := range f.s.Events()[mark:] {
			if ev.Class == NodeUpdatedEvent || ev.Class == BeforeNodeUpdatedEvent {
				t.Errorf("%s: creating a file fired %s", v, ev.Class)
			}
		}
	}
}

// TestWebhookEventsCache: a user whose browser session cached their set of
// webhook event classes before a webhook was registered fires no webhook
// from that session for up to five minutes; requests without a session
// (WebDAV with an app password, AppAPI) use the no-user key, which the
// registration cleared, and are heard at once.
func TestWebhookEventsCache(t *testing.T) {
	clock := time.Unix(1_700_000_000, 0)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	s, ts := aaServer(t, func(s *Server) { s.Now = now })
	f := aaNewFakeApp(t, nil)
	env := aaRegister(t, s, f)
	aaEnable(t, s, "hybrid_search")
	session := http.Header{"Cookie": {s.NewSession("bob").String()}}
	put := func(h http.Header, name string) {
		t.Helper()
		if resp, _ := aaProxyDo(t, http.MethodPut, ts.URL+"/remote.php/dav/files/bob/"+name, h, "x"); resp.StatusCode != http.StatusCreated {
			t.Fatalf("PUT %s = %d", name, resp.StatusCode)
		}
	}

	// bob browses: webhook_listeners boots with bob logged in and caches
	// bob's set, empty so far.
	if got := aaDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/cloud/user", session, nil); got.HTTPStatus != 200 {
		t.Fatalf("cloud/user = %d", got.HTTPStatus)
	}
	if got := aaDo(t, http.MethodPost, ts.URL+aaHooksV2, aaAppHeader(env, ""),
		map[string]any{"httpMethod": "POST", "uri": "/api/webhook", "event": NodeCreatedEvent}); got.HTTPStatus != 200 {
		t.Fatalf("register = %d %s", got.HTTPStatus, got.Raw)
	}
	put(session, "silent.txt")
	put(aaBasic("bob", "bob"), "heard.txt")
	if err := s.FlushWebhooks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(f.Calls("/api/webhook")); got != 1 {
		t.Fatalf("deliveries = %d, want 1 (the Basic-auth upload; the session's cached set predates the webhook)", got)
	}
	advance(eventsCacheTTL - time.Second)
	put(session, "still-silent.txt")
	advance(2 * time.Second)
	put(session, "heard-too.txt")
	if err := s.FlushWebhooks(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(f.Calls("/api/webhook")); got != 2 {
		t.Errorf("deliveries after the cache expired = %d, want 2", got)
	}
}

// TestWebhookNoDeduplication: two identical events in the same second are
// two jobs and two deliveries (each job argument carries random bytes).
func TestWebhookNoDeduplication(t *testing.T) {
	clock := time.Unix(1_700_000_000, 0)
	s, ts := aaServer(t, func(s *Server) { s.Now = func() time.Time { return clock } })
	f := aaNewFakeApp(t, nil)
	env := aaRegister(t, s, f)
	aaEnable(t, s, "hybrid_search")
	aaDo(t, http.MethodPost, ts.URL+aaHooksV2, aaAppHeader(env, ""),
		map[string]any{"httpMethod": "POST", "uri": "/api/webhook", "event": NodeWrittenEvent})
	s.SeedFile("alice", "/a.txt", []byte("x"))
	s.PauseWebhooks()
	s.PutFile("alice", "/a.txt", []byte("same"))
	s.PutFile("alice", "/a.txt", []byte("same"))
	if n := s.QueuedWebhooks(); n != 2 {
		t.Fatalf("queued = %d, want 2", n)
	}
	if err := s.FlushWebhooks(context.Background()); err != nil {
		t.Fatal(err)
	}
	calls := f.Calls("/api/webhook")
	if len(calls) != 2 || string(calls[0].Body) != string(calls[1].Body) {
		t.Errorf("deliveries = %d, want 2 identical ones", len(calls))
	}
}
