package ncsim

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// aaHookApp starts an enabled ExApp and registers webhooks as it would.
func aaHookApp(t *testing.T, s *Server, baseURL string, handle func(w http.ResponseWriter, r *http.Request, body []byte) bool, hooks ...map[string]any) *aaFakeApp {
	t.Helper()
	f := aaNewFakeApp(t, handle)
	env := aaRegister(t, s, f)
	aaEnable(t, s, "hybrid_search")
	for _, h := range hooks {
		if got := aaDo(t, http.MethodPost, baseURL+aaHooksV2, aaAppHeader(env, ""), h); got.HTTPStatus != 200 {
			t.Fatalf("create webhook %v: %d %s", h, got.HTTPStatus, got.Raw)
		}
	}
	return f
}

var aaFixedTime = time.Unix(1700100000, 0)

func TestWebhookDeliveryToExApp(t *testing.T) {
	s, ts := aaServer(t, func(s *Server) { s.Now = func() time.Time { return aaFixedTime } })
	f := aaHookApp(t, s, ts.URL, nil,
		map[string]any{"httpMethod": "POST", "uri": "/api/webhook", "event": NodeWrittenEvent,
			"eventFilter": map[string]any{"event.node.path": `/^\/[^\/]+\/files\//`}},
		map[string]any{"httpMethod": "POST", "uri": "/api/webhook", "event": NodeCreatedEvent, "userIdFilter": "bob"},
		map[string]any{"httpMethod": "POST", "uri": "/api/webhook", "event": NodeRenamedEvent},
	)
	s.emit(Event{Class: NodeWrittenEvent, Node: &Node{ID: 7, Path: "/alice/files/Notes/a.md"}, User: "alice"})
	s.emit(Event{Class: NodeWrittenEvent, Node: &Node{ID: 8, Path: "/alice/appdata_x/cache"}, User: "alice"}) // filtered out
	s.emit(Event{Class: NodeCreatedEvent, Node: &Node{ID: 9, Path: "/alice/files/b.md"}, User: "alice"})      // userIdFilter
	// A userIdFilter webhook is in the set webhook_listeners boots with only
	// for requests logged in at boot time, that is with a session cookie.
	bobSession := httptest.NewRequest(http.MethodGet, "/", nil)
	bobSession.AddCookie(s.NewSession("bob"))
	done := s.bootWebhookListeners(bobSession)
	s.emit(Event{Class: NodeCreatedEvent, Node: &Node{ID: 10, Path: "/bob/files/c.md"}, User: "bob"})
	done()
	s.emit(Event{Class: NodeCreatedEvent, Node: &Node{ID: 12, Path: "/bob/files/d.md"}, User: "bob"}) // no session: not listened
	s.emit(Event{Class: NodeRenamedEvent, Source: &Node{Path: "/alice/files/old.txt"},
		Target: &Node{ID: 11, Path: "/alice/files/new.txt"}})
	s.emit(Event{Class: NodeDeletedEvent, Node: &Node{Path: "/alice/files/x"}, User: "alice"}) // no listener

	aaAwait(t, "3 deliveries", func() bool { return len(s.Deliveries()) == 3 })
	want := []string{
		`{"event":{"node":{"id":7,"path":"\/alice\/files\/Notes\/a.md"},"class":"OCP\\Files\\Events\\Node\\NodeWrittenEvent"},"user":{"uid":"alice","displayName":"Alice A."},"time":1700100000}`,
		`{"event":{"node":{"id":10,"path":"\/bob\/files\/c.md"},"class":"OCP\\Files\\Events\\Node\\NodeCreatedEvent"},"user":{"uid":"bob","displayName":"Bob B."},"time":1700100000}`,
		`{"event":{"source":{"path":"\/alice\/files\/old.txt"},"target":{"id":11,"path":"\/alice\/files\/new.txt"},"class":"OCP\\Files\\Events\\Node\\NodeRenamedEvent"},"user":null,"time":1700100000}`,
	}
	calls := f.Calls("/api/webhook")
	if len(calls) != 3 {
		t.Fatalf("app got %d webhook calls, want 3", len(calls))
	}
	secret := s.ExAppEnv("hybrid_search").Get("APP_SECRET")
	// WebhookCall passes the user who caused the event to exAppRequest
	// (server PR #52699), "" for an event without one.
	users := []string{"alice", "bob", ""}
	for i, c := range calls {
		if string(c.Body) != want[i] {
			t.Errorf("body %d = %s\nwant     %s", i, c.Body, want[i])
		}
		if c.Method != http.MethodPost || c.Header.Get("Content-Type") != "" {
			t.Errorf("call %d: method %s, Content-Type %q (want none)", i, c.Method, c.Header.Get("Content-Type"))
		}
		for k, v := range map[string]string{
			"User-Agent": "Nextcloud-Server-Crawler/34.0.0", "Ex-App-Id": "hybrid_search", "Aa-Request-Id": "CLI",
			"Authorization-App-Api": b64(users[i] + ":" + secret), "Aa-Version": "34.0.0",
		} {
			if got := c.Header.Get(k); got != v {
				t.Errorf("call %d header %s = %q, want %q", i, k, got, v)
			}
		}
	}
	for _, d := range s.Deliveries() {
		if d.Status != 200 || d.Err != "" || d.AppID != "hybrid_search" || d.URL != f.srv.URL+"/api/webhook" {
			t.Errorf("delivery = %+v", d)
		}
	}
}

func TestWebhookQueueControls(t *testing.T) {
	s, ts := aaServer(t, func(s *Server) { s.WebhookInterval = 150 * time.Millisecond })
	f := aaHookApp(t, s, ts.URL, nil, map[string]any{"httpMethod": "POST", "uri": "/api/webhook", "event": NodeWrittenEvent})
	write := func(id int64) {
		s.emit(Event{Class: NodeWrittenEvent, Node: &Node{ID: id, Path: "/alice/files/f"}, User: "alice"})
	}

	// Delivery is asynchronous: nothing has been sent when emit returns.
	write(1)
	write(2)
	if n, q := len(s.Deliveries()), s.QueuedWebhooks(); n != 0 || q != 2 {
		t.Fatalf("right after emit: %d delivered, %d queued; want 0, 2", n, q)
	}
	aaAwait(t, "batch", func() bool { return len(s.Deliveries()) == 2 })

	// Paused: jobs stay queued; Flush runs them now; Drop loses one.
	s.PauseWebhooks()
	write(3)
	write(4)
	write(5)
	time.Sleep(200 * time.Millisecond) // more than a cron interval
	if q := s.QueuedWebhooks(); q != 3 || len(s.Deliveries()) != 2 {
		t.Fatalf("paused: %d queued, %d delivered", q, len(s.Deliveries()))
	}
	s.DropNextWebhooks(1)
	if err := s.FlushWebhooks(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := s.Deliveries()
	if len(d) != 5 || !d[2].Dropped || d[3].Dropped || s.QueuedWebhooks() != 0 {
		t.Fatalf("after flush: %+v", d)
	}
	if n := len(f.Calls("/api/webhook")); n != 4 {
		t.Errorf("app got %d calls, want 4 (one dropped)", n)
	}
	if !strings.Contains(string(d[3].Body), `"id":4`) {
		t.Errorf("the dropped job was not the first: %s", d[3].Body)
	}

	// Delayed: the cron leaves jobs until they are old enough.
	s.ResumeWebhooks()
	s.DelayWebhooks(400 * time.Millisecond)
	write(6)
	time.Sleep(200 * time.Millisecond) // past the cron interval, not the delay
	if s.QueuedWebhooks() != 1 {
		t.Fatalf("delayed job ran early")
	}
	aaAwait(t, "delayed delivery", func() bool { return len(s.Deliveries()) == 6 })
	if last := s.Deliveries()[5]; last.Delivered.Sub(last.Queued) < 400*time.Millisecond {
		t.Errorf("delayed job ran after %v", last.Delivered.Sub(last.Queued))
	}
}

func TestWebhookOneAttempt(t *testing.T) {
	tests := []struct {
		name    string
		handle  func(w http.ResponseWriter, r *http.Request, body []byte) bool
		wantErr string
		status  int
	}{
		{
			name: "slower than the AppAPI timeout",
			handle: func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
				if r.URL.Path == "/api/webhook" {
					select {
					case <-r.Context().Done():
					case <-time.After(2 * time.Second):
					}
					return true
				}
				return false
			},
			wantErr: "Error during request to ExApp(hybrid_search)",
		},
		{
			name: "500 answer",
			handle: func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
				if r.URL.Path == "/api/webhook" {
					w.WriteHeader(http.StatusInternalServerError)
					return true
				}
				return false
			},
			wantErr: "returned unexpected status code 500",
			status:  500,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ts := aaServer(t, func(s *Server) { s.ExAppRequestTimeout = 100 * time.Millisecond })
			f := aaHookApp(t, s, ts.URL, tt.handle, map[string]any{"httpMethod": "POST", "uri": "/api/webhook", "event": NodeWrittenEvent})
			s.emit(Event{Class: NodeWrittenEvent, Node: &Node{ID: 1, Path: "/alice/files/f"}, User: "alice"})
			start := time.Now()
			aaAwait(t, "delivery", func() bool { return len(s.Deliveries()) == 1 })
			if tt.status == 0 && time.Since(start) > time.Second {
				t.Errorf("timeout not applied: took %v", time.Since(start))
			}
			d := s.Deliveries()[0]
			if !strings.Contains(d.Err, tt.wantErr) || d.Status != tt.status {
				t.Errorf("delivery = %+v, want error %q status %d", d, tt.wantErr, tt.status)
			}
			time.Sleep(60 * time.Millisecond) // more cron runs: no retry
			if n := len(f.Calls("/api/webhook")); n != 1 || len(s.Deliveries()) != 1 {
				t.Errorf("calls = %d, deliveries = %d, want one attempt", n, len(s.Deliveries()))
			}
		})
	}
	if got := (&Server{}).exAppRequestTimeout(); got != 3*time.Second {
		t.Errorf("default ExApp request timeout = %v, want 3s", got)
	}
}

func TestWebhookDeliveryFailures(t *testing.T) {
	s, ts := aaServer(t)
	f := aaHookApp(t, s, ts.URL, nil,
		map[string]any{"httpMethod": "post", "uri": "/api/webhook", "event": NodeCreatedEvent},
		map[string]any{"httpMethod": "POST", "uri": "/api/webhook", "event": NodeWrittenEvent})
	s.PauseWebhooks()
	s.emit(Event{Class: NodeCreatedEvent, Node: &Node{ID: 1, Path: "/alice/files/f"}, User: "alice"})
	s.emit(Event{Class: NodeWrittenEvent, Node: &Node{ID: 1, Path: "/alice/files/f"}, User: "alice"})
	if err := s.Disable(context.Background(), "hybrid_search"); err != nil {
		t.Fatal(err)
	}
	if err := s.FlushWebhooks(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := s.Deliveries()
	if len(d) != 2 || !strings.Contains(d[0].Err, "disabled") || !strings.Contains(d[1].Err, "disabled") {
		t.Errorf("deliveries to a disabled app = %+v", d)
	}
	aaEnable(t, s, "hybrid_search")
	s.emit(Event{Class: NodeCreatedEvent, Node: &Node{ID: 1, Path: "/alice/files/f"}, User: "alice"})
	_ = s.FlushWebhooks(context.Background())
	if d := s.Deliveries(); len(d) != 3 || !strings.Contains(d[2].Err, "Bad HTTP method") {
		t.Errorf("lowercase method = %+v", d[len(d)-1])
	}
	if n := len(f.Calls("/api/webhook")); n != 0 {
		t.Errorf("app got %d webhook calls, want 0", n)
	}
}

func TestWebhookToURL(t *testing.T) {
	s, ts := aaServer(t)
	target := aaNewFakeApp(t, nil)
	got := aaDo(t, http.MethodPost, ts.URL+aaHooksV2, aaBasic("alice", "alice"), map[string]any{
		"httpMethod": "PUT", "uri": target.srv.URL + "/hook", "event": NodeWrittenEvent,
		"headers":    map[string]any{"Content-Type": "application/json", "X-A": "1"},
		"authMethod": "header", "authData": map[string]any{"Authorization": "Bearer t0k"},
	})
	if got.HTTPStatus != 200 {
		t.Fatalf("create: %s", got.Raw)
	}
	s.emit(Event{Class: NodeWrittenEvent, Node: &Node{ID: 1, Path: "/bob/files/f"}, User: "bob"})
	_ = s.FlushWebhooks(context.Background())
	calls := target.Calls("/hook")
	if len(calls) != 1 {
		t.Fatalf("calls = %+v", calls)
	}
	c := calls[0]
	if c.Method != http.MethodPut || c.Header.Get("Content-Type") != "application/json" || c.Header.Get("X-A") != "1" ||
		c.Header.Get("Authorization") != "Bearer t0k" || c.Header.Get("Ex-App-Id") != "" {
		t.Errorf("URL webhook call = %s %v", c.Method, c.Header)
	}
	if d := s.Deliveries(); len(d) != 1 || d[0].AppID != "" || d[0].Status != 200 {
		t.Errorf("deliveries = %+v", d)
	}
}
