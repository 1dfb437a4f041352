package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
)

func TestWebhookJobs(t *testing.T) {
	const ns = `OCP\\Files\\Events\\Node\\`
	tests := []struct {
		name string
		body string
		want []hs.IndexJob // Time and NotBefore are checked separately
	}{
		{"written", `{"event":{"class":"` + ns + `NodeWrittenEvent","node":{"id":437,"path":"/alice/files/Notes/Shopping.md"}},"user":{"uid":"alice","displayName":"Alice"},"time":1700100000}`,
			[]hs.IndexJob{{FileID: 437, User: "alice", Path: "/Notes/Shopping.md", Event: "NodeWrittenEvent", Reason: hs.ReasonEvent}}},
		{"created with null user", `{"event":{"class":"` + ns + `NodeCreatedEvent","node":{"id":5,"path":"/bob/files/a b.txt"}},"user":null,"time":1700100000}`,
			[]hs.IndexJob{{FileID: 5, User: "bob", Path: "/a b.txt", Event: "NodeCreatedEvent", Reason: hs.ReasonEvent}}},
		{"deleted without id", `{"event":{"class":"` + ns + `NodeDeletedEvent","node":{"path":"/alice/files/x.md"}},"user":{"uid":"alice"},"time":1}`,
			[]hs.IndexJob{{User: "alice", Path: "/x.md", Event: "NodeDeletedEvent", Reason: hs.ReasonEvent}}},
		{"renamed", `{"event":{"class":"` + ns + `NodeRenamedEvent","source":{"path":"/alice/files/old.txt"},"target":{"id":599,"path":"/alice/files/new.txt"}},"user":{"uid":"alice"},"time":1}`,
			[]hs.IndexJob{{FileID: 599, User: "alice", Path: "/new.txt", OldPath: "/old.txt", Event: "NodeRenamedEvent", Reason: hs.ReasonEvent}}},
		{"restored from trash", `{"event":{"class":"OCA\\Files_Trashbin\\Events\\NodeRestoredEvent","source":{"path":"/alice/files_trashbin/files/x.md.d123"},"target":{"id":7,"path":"/alice/files/x.md"}},"user":{"uid":"alice"},"time":1}`,
			[]hs.IndexJob{{FileID: 7, User: "alice", Path: "/x.md", Event: "NodeRestoredEvent", Reason: hs.ReasonEvent}}},
		{"copied", `{"event":{"class":"` + ns + `NodeCopiedEvent","source":{"id":7,"path":"/alice/files/x.md"},"target":{"id":8,"path":"/alice/files/y.md"}},"user":{"uid":"alice"},"time":1}`,
			[]hs.IndexJob{{FileID: 8, User: "alice", Path: "/y.md", OldPath: "/x.md", Event: "NodeCopiedEvent", Reason: hs.ReasonEvent}}},
		{"moved to appdata", `{"event":{"class":"` + ns + `NodeRenamedEvent","source":{"path":"/alice/files/x.md"},"target":{"id":9,"path":"/appdata_oc1/x.md"}},"user":{"uid":"alice"},"time":1}`,
			[]hs.IndexJob{{User: "alice", Path: "/x.md", Event: "NodeRenamedEvent", Reason: hs.ReasonEvent}}},
		{"updated (Nextcloud 34)", `{"event":{"class":"` + ns + `NodeUpdatedEvent","node":{"id":437,"path":"/alice/files/a.md"}},"user":{"uid":"alice"},"time":1}`,
			[]hs.IndexJob{{FileID: 437, User: "alice", Path: "/a.md", Event: "NodeUpdatedEvent", Reason: hs.ReasonEvent}}},
		{"outside files", `{"event":{"class":"` + ns + `NodeWrittenEvent","node":{"id":3,"path":"/appdata_oc1/preview/3.png"}},"user":null,"time":1}`, nil},
		{"trash path", `{"event":{"class":"` + ns + `NodeDeletedEvent","node":{"id":3,"path":"/alice/files_trashbin/files/x.d1"}},"user":null,"time":1}`, nil},
		{"before written is ignored", `{"event":{"class":"` + ns + `BeforeNodeWrittenEvent","node":{"id":3,"path":"/alice/files/x"}},"user":null,"time":1}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &fakeQueue{}
			h := newServerQ(t, &fakeLifecycle{}, fakeStatus{}, q)
			rec := do(h, signed(httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(tt.body)), ""))
			if rec.Code != http.StatusOK {
				t.Fatalf("POST /webhook = %d %s", rec.Code, rec.Body.String())
			}
			if len(q.jobs) != len(tt.want) {
				t.Fatalf("jobs = %+v, want %+v", q.jobs, tt.want)
			}
			for i, got := range q.jobs {
				got.Time = time.Time{}
				if got != tt.want[i] {
					t.Errorf("job %d = %+v, want %+v", i, got, tt.want[i])
				}
			}
		})
	}
}

// TestWebhookActingUser: since nextcloud/server PR #52699 (in every
// release from 32) webhook_listeners delivers to an ExApp as the user who
// caused the event ("" for cron, occ and background jobs); before it, as
// the webhook's registrant, which is "" for this app's registrations and
// may be an admin for a webhook registered by hand. Every valid AppAPI
// caller is accepted, whoever it names: the route is reachable only by
// AppAPI's own requests (no info.xml route matches it), and the job's
// owner comes from the node path, whose file the pipeline re-reads as
// that owner. A caller that differs from the envelope's user grants
// nothing either way.
func TestWebhookActingUser(t *testing.T) {
	const written = `{"event":{"class":"OCP\\Files\\Events\\Node\\NodeWrittenEvent","node":{"id":4,"path":"/bob/files/Shared/plan.md"}},"user":%s,"time":1700100000}`
	tests := []struct{ name, caller, envUser string }{
		{"the acting user (Nextcloud 32+)", "alice", `{"uid":"alice","displayName":"Alice"}`},
		{"no user: cron, occ", "", "null"},
		{"the registrant, before PR 52699", "", `{"uid":"alice","displayName":"Alice"}`},
		{"an admin registrant, before PR 52699", "admin", `{"uid":"alice","displayName":"Alice"}`},
		{"a caller the envelope does not name", "mallory", "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &fakeQueue{}
			h := newServerQ(t, &fakeLifecycle{}, fakeStatus{}, q)
			body := strings.Replace(written, "%s", tt.envUser, 1)
			rec := do(h, signed(httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body)), tt.caller))
			if rec.Code != http.StatusOK {
				t.Fatalf("POST /webhook as %q = %d %s, want 200", tt.caller, rec.Code, rec.Body.String())
			}
			if len(q.jobs) != 1 || q.jobs[0].User != "bob" || q.jobs[0].Path != "/Shared/plan.md" {
				t.Fatalf("jobs = %+v, want one for the path's owner bob", q.jobs)
			}
		})
	}
}

func TestWebhookBeforeDeleteIsDelayed(t *testing.T) {
	q := &fakeQueue{}
	h := newServerQ(t, &fakeLifecycle{}, fakeStatus{}, q)
	body := `{"event":{"class":"OCP\\Files\\Events\\Node\\BeforeNodeDeletedEvent","node":{"id":11,"path":"/alice/files/x.md"}},"user":{"uid":"alice"},"time":1}`
	before := time.Now()
	rec := do(h, signed(httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body)), ""))
	if rec.Code != 200 || len(q.jobs) != 1 {
		t.Fatalf("got %d, jobs %+v", rec.Code, q.jobs)
	}
	if j := q.jobs[0]; j.FileID != 11 || !j.NotBefore.After(before) {
		t.Errorf("job = %+v, want file 11 with NotBefore in the future", j)
	}
}

func TestWebhookBadInput(t *testing.T) {
	tests := []struct {
		name, body, user string
		qerr             error
		want             int
		wantMsg          string
	}{
		{"not json", `{"event":`, "", nil, 400, "not a webhook_listeners event"},
		{"no class", `{"event":{"node":{"path":"/a/files/x"}}}`, "", nil, 400, "no event class"},
		{"share event", `{"event":{"class":"OCP\\Share\\Events\\ShareCreatedEvent"}}`, "", nil, 400, "unsupported event class"},
		{"unknown node event", `{"event":{"class":"OCP\\Files\\Events\\Node\\NodeFrobbedEvent","node":{"path":"/a/files/x"}}}`, "", nil, 400, "unsupported event class"},
		{"restore event in a namespace Nextcloud lacks", `{"event":{"class":"OCP\\Files\\Events\\Node\\NodeRestoredEvent","source":{"path":"/a/files_trashbin/files/x.d1"},"target":{"id":1,"path":"/a/files/x"}}}`, "", nil, 400, "unsupported event class"},
		{"node without path", `{"event":{"class":"OCP\\Files\\Events\\Node\\NodeWrittenEvent","node":{"id":1}}}`, "", nil, 400, "without a node path"},
		{"rename without source", `{"event":{"class":"OCP\\Files\\Events\\Node\\NodeRenamedEvent","target":{"id":1,"path":"/a/files/x"}}}`, "", nil, 400, "without source and target"},
		{"queue down", `{"event":{"class":"OCP\\Files\\Events\\Node\\NodeWrittenEvent","node":{"id":1,"path":"/a/files/x"}}}`, "", hs.Errorf(hs.EUNAVAILABLE, "nats: timeout"), 503, "could not queue"},
		{"oversized", `{"event":{"class":"` + strings.Repeat("x", 1<<20) + `"}}`, "", nil, 413, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &fakeQueue{err: tt.qerr}
			h := newServerQ(t, &fakeLifecycle{}, fakeStatus{}, q)
			rec := do(h, signed(httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(tt.body)), tt.user))
			if rec.Code != tt.want || !strings.Contains(rec.Body.String(), tt.wantMsg) {
				t.Fatalf("POST /webhook = %d %s, want %d with %q", rec.Code, rec.Body.String(), tt.want, tt.wantMsg)
			}
			if len(q.jobs) != 0 {
				t.Errorf("published %d jobs on bad input", len(q.jobs))
			}
		})
	}
	// Unsigned deliveries are refused.
	h := newServer(t, &fakeLifecycle{}, fakeStatus{})
	rec := do(h, httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(`{}`)))
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("unsigned webhook = %d, want 401", rec.Code)
	}
}

// recorder is a DeliveryRecorder.
type recorder struct{ event, arrived []time.Time }

func (r *recorder) Delivered(event, arrived time.Time) {
	r.event, r.arrived = append(r.event, event), append(r.arrived, arrived)
}

// TestWebhookDelayRecorded: each accepted delivery reports its event's
// time and its arrival, for the delay figures of the status; a refused
// one reports nothing.
func TestWebhookDelayRecorded(t *testing.T) {
	rec := &recorder{}
	s, err := handlers.New(handlers.Deps{AppID: testAppID, AppSecret: testSecret, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{},
		Publish: &fakeQueue{}, Operator: &fakeOperator{}, Assets: fstest.MapFS{}, Live: rec})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	body := `{"event":{"class":"OCP\\Files\\Events\\Node\\NodeWrittenEvent","node":{"id":4,"path":"/alice/files/a.md"}},"user":{"uid":"alice"},"time":1700100000}`
	before := time.Now()
	if w := do(h, signed(httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body)), "alice")); w.Code != 200 {
		t.Fatalf("POST /webhook = %d %s", w.Code, w.Body.String())
	}
	_ = do(h, signed(httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(`{"event":{}}`)), "alice"))
	if len(rec.event) != 1 || !rec.event[0].Equal(time.Unix(1700100000, 0)) || rec.arrived[0].Before(before) {
		t.Errorf("recorded events %v arrived %v; want one at 1700100000", rec.event, rec.arrived)
	}
}
