package ncsim

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// webhookState holds listeners, queued jobs and the record of deliveries.
// Guarded by Server.mu, except runMu.
type webhookState struct {
	listeners  []*webhookListener
	nextID     int
	queue      []webhookJob
	deliveries []WebhookDelivery
	paused     bool
	appOff     bool // webhook_listeners is disabled (SetWebhookListenersEnabled)
	dropNext   int
	delay      time.Duration
	timer      *time.Timer // the pending cron run, nil when none
	runMu      sync.Mutex  // serialises job runs (cron and FlushWebhooks)
	// eventsCache is webhook_listeners' per-user cache of the event
	// classes that have webhooks (webhook_events.go).
	eventsCache map[string]eventsCacheEntry
	// sessionUsers counts in-flight requests per user that arrived with a
	// session cookie (bootWebhookListeners).
	sessionUsers map[string]int
}

// webhookJob is a queued WebhookCall job: the envelope, the listener id
// and a random string. WebhooksEventListener adds bin2hex(random_bytes(5))
// to the job argument "to avoid collision with another job with the same
// parameters": IJobList::add skips a job whose argument equals a queued
// one, and two identical events in the same second would otherwise become
// one delivery. So every event is its own job, run once, never retried.
type webhookJob struct {
	listenerID int
	random     string
	event      string
	body       []byte
	// user is the envelope's user.uid, "" for an event without a user:
	// the user WebhookCall passes to exAppRequest.
	user   string
	queued time.Time // wall clock, for DelayWebhooks
}

// WebhookDelivery records one run of a queued webhook job.
type WebhookDelivery struct {
	ListenerID int
	AppID      string // the listener's ExApp, "" for webhooks to absolute URLs
	// User is the AppAPI user of a delivery to an ExApp: who caused the
	// event, "" for none.
	User   string
	Event  string // event class
	Method string
	URL    string      // what was called; "" if nothing was sent
	Header http.Header // headers sent (Go's transport adds Content-Length and Accept-Encoding)
	Body   []byte      // the JSON envelope
	Status int         // HTTP status of the answer; 0 if none
	// Err says why the call failed or what Nextcloud would log; "" for a 2xx answer.
	Err       string
	Dropped   bool // lost on purpose by DropNextWebhooks
	Queued    time.Time
	Delivered time.Time
}

// webhookEnvelope is the payload webhook_listeners sends, in PHP's key
// order: the event's own fields, then "class".
type webhookEnvelope struct {
	Event webhookEventJSON `json:"event"`
	User  *webhookUserJSON `json:"user"`
	Time  int64            `json:"time"`
}

type webhookEventJSON struct {
	Node   *Node  `json:"node,omitempty"`
	Source *Node  `json:"source,omitempty"`
	Target *Node  `json:"target,omitempty"`
	Class  string `json:"class"`
}

type webhookUserJSON struct {
	UID         string `json:"uid"`
	DisplayName string `json:"displayName"`
}

// queueWebhooks is the WebhooksEventListener: for each listener on ev's
// class whose userIdFilter is empty or the acting user and whose eventFilter
// matches the envelope, it queues one job. It runs from Server.emit.
func (s *Server) queueWebhooks(ev Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.hooks.webhooks.appOff {
		return // a disabled app's listeners are not registered
	}
	if !s.listenedEventsLocked(s.bootUserLocked(ev.User))[ev.Class] {
		// Application::boot registered no listener for this class in this
		// request: the user's cached set predates the webhook.
		return
	}
	var env *webhookEnvelope
	var doc any
	for _, l := range s.hooks.webhooks.listeners {
		if l.Event != ev.Class || (l.UserIDFilter != "" && l.UserIDFilter != ev.User) {
			continue
		}
		if env == nil {
			env = s.envelopeLocked(ev)
			raw, err := phpJSON(env, false)
			if err != nil {
				s.logf("ncsim: webhook envelope for %s: %v", ev.Class, err)
				return
			}
			if doc, err = decodeJSONValue(raw); err != nil {
				return
			}
		}
		ok, err := mongoMatch(l.filter, doc)
		if err != nil {
			// Nextcloud throws here, failing the request that fired the event.
			s.logf("ncsim: webhook %d eventFilter error (Nextcloud would fail the request): %v", l.ID, err)
			continue
		}
		if !ok {
			continue
		}
		body, _ := phpJSON(env, false)
		s.hooks.webhooks.queue = append(s.hooks.webhooks.queue, webhookJob{
			listenerID: l.ID, random: hex.EncodeToString(randomBytes(5)), event: ev.Class, body: body, user: ev.User, queued: time.Now(),
		})
	}
	s.scheduleCronLocked()
}

func (s *Server) envelopeLocked(ev Event) *webhookEnvelope {
	env := &webhookEnvelope{
		Event: webhookEventJSON{Node: ev.Node, Source: ev.Source, Target: ev.Target, Class: ev.Class},
		Time:  ev.Time.Unix(),
	}
	if ev.User != "" {
		name := ev.User
		if u, ok := s.users[ev.User]; ok {
			name = u.displayName
		}
		env.User = &webhookUserJSON{UID: ev.User, DisplayName: name}
	}
	return env
}

// scheduleCronLocked arms the simulated cron if jobs wait and it is idle.
func (s *Server) scheduleCronLocked() {
	wh := &s.hooks.webhooks
	if s.closed || wh.paused || wh.appOff || wh.timer != nil || len(wh.queue) == 0 {
		return
	}
	d := s.webhookInterval()
	if wh.delay > 0 {
		if wait := time.Until(wh.queue[0].queued.Add(wh.delay)); wait > d {
			d = wait
		}
	}
	wh.timer = time.AfterFunc(d, s.runCron)
}

func (s *Server) stopWebhookCronLocked() {
	if t := s.hooks.webhooks.timer; t != nil {
		t.Stop()
		s.hooks.webhooks.timer = nil
	}
}

func (s *Server) runCron() {
	s.mu.Lock()
	s.hooks.webhooks.timer = nil
	s.mu.Unlock()
	s.runWebhookJobs(s.baseCtx, false)
	s.mu.Lock()
	s.scheduleCronLocked()
	s.mu.Unlock()
}

// runWebhookJobs runs queued jobs in order, one attempt each. Unless all
// is set it skips everything while paused and jobs younger than the delay.
func (s *Server) runWebhookJobs(ctx context.Context, all bool) {
	wh := &s.hooks.webhooks
	wh.runMu.Lock()
	defer wh.runMu.Unlock()
	s.mu.Lock()
	if !all && wh.paused {
		s.mu.Unlock()
		return
	}
	var run, keep []webhookJob
	for _, j := range wh.queue {
		if all || time.Since(j.queued) >= wh.delay {
			run = append(run, j)
		} else {
			keep = append(keep, j)
		}
	}
	wh.queue = keep
	s.mu.Unlock()
	for _, j := range run {
		if ctx.Err() != nil {
			return
		}
		d := s.runWebhookJob(ctx, j)
		s.mu.Lock()
		wh.deliveries = append(wh.deliveries, d)
		s.mu.Unlock()
	}
}

// runWebhookJob is BackgroundJobs\WebhookCall::run.
func (s *Server) runWebhookJob(ctx context.Context, j webhookJob) WebhookDelivery {
	d := WebhookDelivery{ListenerID: j.listenerID, Event: j.event, Body: j.body, Queued: j.queued, Delivered: time.Now()}
	s.mu.Lock()
	if s.hooks.webhooks.dropNext > 0 {
		s.hooks.webhooks.dropNext--
		s.mu.Unlock()
		d.Dropped, d.Err = true, "dropped by DropNextWebhooks"
		return d
	}
	l := s.webhookLocked(j.listenerID)
	var lc webhookListener
	if l != nil {
		lc = *l
	}
	s.mu.Unlock()
	if l == nil {
		d.Err = fmt.Sprintf("webhook listener %d does not exist any more", j.listenerID)
		return d
	}
	d.Method, d.AppID = lc.HTTPMethod, lc.AppID
	header := http.Header{}
	for k, v := range lc.Headers {
		header[k] = []string{v}
	}
	if lc.AuthMethod == "header" {
		for k, v := range lc.AuthData {
			header[k] = []string{v}
		}
	}
	var resp *http.Response
	var cancel context.CancelFunc
	var err error
	if lc.appIDSet && strings.HasPrefix(lc.URI, "/") {
		resp, cancel, err = s.deliverToExApp(ctx, &d, lc, header, j)
	} else {
		resp, cancel, err = s.deliverToURL(ctx, &d, lc, header, j.body)
	}
	if err != nil {
		d.Err = fmt.Sprintf("Webhook(%d) call failed: %v", lc.ID, err)
		s.logf("ncsim: %s", d.Err)
		return d
	}
	defer cancel()
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	d.Status = resp.StatusCode
	d.Header = resp.Request.Header.Clone()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		d.Err = fmt.Sprintf("Webhook(%d) returned unexpected status code %d", lc.ID, resp.StatusCode)
		s.logf("ncsim: %s", d.Err)
	}
	return d
}

// deliverToExApp calls the listener's ExApp through AppAPI with AppAPI's
// default 3 s timeout, as the user who caused the event ("" for none):
// WebhookCall::run passes $data['user']['uid'] to exAppRequest since
// nextcloud/server PR #52699 ("fix(webhooks_listener): correctly set userId
// from event", merged 2025-05-09 into master, backported to 30 and 31, so
// in every release from 32.0.0; app_api issue #576). Before it, the
// listener's registrant was passed ($webhookListener->getUserId(), index
// copy 1862656750 of WebhookCall.php).
func (s *Server) deliverToExApp(ctx context.Context, d *WebhookDelivery, l webhookListener, header http.Header, j webhookJob) (*http.Response, context.CancelFunc, error) {
	ref, ok := s.exAppRef(l.AppID)
	switch {
	case !ok:
		return nil, nil, fmt.Errorf("ExApp %s is missing.", l.AppID)
	case !ref.enabled:
		return nil, nil, fmt.Errorf("ExApp %s is disabled.", l.AppID)
	}
	switch l.HTTPMethod {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete:
	default:
		return nil, nil, fmt.Errorf("Error during request to ExApp(%s): Bad HTTP method", l.AppID)
	}
	d.URL, d.User = ref.baseURL+l.URI, j.user
	resp, cancel, err := s.callExApp(ctx, ref, exAppCall{
		method: l.HTTPMethod, route: l.URI, uid: j.user, header: header,
		body: bytes.NewReader(j.body), timeout: s.exAppRequestTimeout(),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("Error during request to ExApp(%s): %w", l.AppID, err)
	}
	return resp, cancel, nil
}

// deliverToURL calls an absolute webhook URL with Nextcloud's HTTP client.
func (s *Server) deliverToURL(ctx context.Context, d *WebhookDelivery, l webhookListener, header http.Header, body []byte) (*http.Response, context.CancelFunc, error) {
	d.URL = l.URI
	ctx, cancel := context.WithTimeout(ctx, s.webhookURLTimeout())
	req, err := http.NewRequestWithContext(ctx, l.HTTPMethod, l.URI, bytes.NewReader(body))
	if err != nil {
		cancel()
		return nil, nil, err
	}
	req.Header = header
	s.setUserAgent(req.Header)
	resp, err := s.client.Do(req)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return resp, cancel, nil
}

// PauseWebhooks stops the simulated cron: jobs queue up until
// ResumeWebhooks or FlushWebhooks.
func (s *Server) PauseWebhooks() {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks.webhooks.paused = true
	s.stopWebhookCronLocked()
}

// ResumeWebhooks restarts the simulated cron after PauseWebhooks.
func (s *Server) ResumeWebhooks() {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks.webhooks.paused = false
	s.scheduleCronLocked()
}

// FlushWebhooks runs every job queued so far now, in the calling
// goroutine, ignoring PauseWebhooks and DelayWebhooks. It returns ctx's
// error if ctx ends first.
func (s *Server) FlushWebhooks(ctx context.Context) error {
	s.init()
	s.runWebhookJobs(ctx, true)
	return ctx.Err()
}

// DropNextWebhooks makes the next n jobs to run vanish without a request,
// like a lost background job. They are recorded with Dropped set.
func (s *Server) DropNextWebhooks(n int) {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks.webhooks.dropNext += n
}

// DelayWebhooks makes the simulated cron leave jobs queued until they are
// at least d old (real cron runs every 5 minutes). 0 removes the delay.
func (s *Server) DelayWebhooks(d time.Duration) {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks.webhooks.delay = d
	s.stopWebhookCronLocked()
	s.scheduleCronLocked()
}

// QueuedWebhooks returns how many webhook jobs wait for the cron.
func (s *Server) QueuedWebhooks() int {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.hooks.webhooks.queue)
}

// ForgetHistory drops the record of events fired and webhook jobs run
// (what Events and Deliveries return); a long load test calls it so that
// the simulator's own bookkeeping does not grow with every edit.
func (s *Server) ForgetHistory() {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = nil
	s.hooks.webhooks.deliveries = nil
}

// Deliveries returns every webhook job run so far, in order.
func (s *Server) Deliveries() []WebhookDelivery {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]WebhookDelivery(nil), s.hooks.webhooks.deliveries...)
}
