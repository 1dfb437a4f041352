package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// Publisher queues index jobs; it returns once the queue has them durably.
type Publisher interface {
	Publish(ctx context.Context, jobs ...hs.IndexJob) error
}

// WebhookPath is where the app takes webhook_listeners' deliveries: the
// uri its webhooks are registered with (exapp.WebhookURI). It lies outside
// every route of appinfo/info.xml on purpose. AppAPI delivers a webhook to
// an ExApp with exAppRequest, straight to the app and signed as the user
// who caused the event (nextcloud/server PR #52699, in every release from
// 32; "" for events without a user), without looking at the routes; HaRP
// also lets AppAPI-signed requests skip them (haproxy_agent.py
// _exapps_msg). A signed-in user's request through AppAPI's proxy or HaRP
// carries that user's AppAPI signature too, so a route matching this path
// would let any user forge file events: on AppAPI up to 32.0.8 and 33.0.2
// a denied route falls through to the next one (the old /api/webhook
// behind an ADMIN route fell through to api/.* for every user). With no
// route, the proxy answers 404 and HaRP "no defined route" on every
// version, and every valid AppAPI signature here is Nextcloud's own.
const WebhookPath = "/webhook"

// publishTimeout keeps the webhook answer inside Nextcloud's 3 s budget.
const publishTimeout = 2 * time.Second

// deleteGrace delays jobs of BeforeNodeDeletedEvent until the delete has
// happened (the event fires before it).
const deleteGrace = 3 * time.Second

// DeliveryRecorder hears of each webhook the app took: the event's time
// (whole seconds, as the envelope has it) and when it arrived.
type DeliveryRecorder interface {
	Delivered(event, arrived time.Time)
}

// webhookEnvelope is what webhook_listeners sends (protocol §6.2, §6.3).
type webhookEnvelope struct {
	Event *struct {
		Class  string       `json:"class"`
		Node   *webhookNode `json:"node"`
		Source *webhookNode `json:"source"`
		Target *webhookNode `json:"target"`
	} `json:"event"`
	User *struct {
		UID string `json:"uid"`
	} `json:"user"`
	Time int64 `json:"time"`
}

type webhookNode struct {
	ID   int64  `json:"id"` // 0 when Nextcloud omitted it (the node is gone)
	Path string `json:"path"`
}

// webhookResponse tells Nextcloud (and logs) what was queued.
type webhookResponse struct {
	Queued int `json:"queued"`
}

// handleWebhook answers POST /webhook: it turns one file event into index
// jobs and answers after the queue acknowledged them. Any valid AppAPI
// signature is accepted, with or without a user, and whoever it names
// (see WebhookPath for why only Nextcloud can sign here): the user
// Nextcloud passes is the acting user on 32+, the webhook's registrant on
// older patch levels, and the envelope's user.uid may name another user
// still. Neither decides anything: each job belongs to the owner named by
// the node's path, and the pipeline re-reads the file as that owner.
func (s *Server) handleWebhook(c echo.Context) error {
	arrived := time.Now()
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // the body limit gives 413
	}
	env, err := parseWebhook(body)
	if err != nil {
		return err
	}
	jobs, err := webhookJobs(env, arrived)
	if err != nil {
		return err
	}
	if len(jobs) > 0 {
		ctx, cancel := context.WithTimeout(c.Request().Context(), publishTimeout)
		defer cancel()
		if err := s.publish.Publish(ctx, jobs...); err != nil {
			return hs.WrapError(hs.EUNAVAILABLE, err, "could not queue the event")
		}
	}
	if s.observer != nil {
		fe, _ := hs.FileEventByClass(env.Event.Class)
		s.observer.WebhookReceived(fe.Name)
	}
	if s.live != nil && env.Time > 0 {
		s.live.Delivered(time.Unix(env.Time, 0), arrived)
	}
	return c.JSON(http.StatusOK, webhookResponse{Queued: len(jobs)})
}

// webhookJobs maps one event to jobs. Paths outside /<uid>/files/ give none.
func webhookJobs(env webhookEnvelope, now time.Time) ([]hs.IndexJob, error) {
	if env.Event == nil || env.Event.Class == "" {
		return nil, hs.Errorf(hs.EINVALID, "webhook body has no event class")
	}
	ev := env.Event
	fe, ok := hs.FileEventByClass(ev.Class)
	if !ok {
		return nil, hs.Errorf(hs.EINVALID, "unsupported event class %q: only file node events are handled", ev.Class)
	}
	name := fe.Name
	// The job's time is when the event arrived, to the nanosecond, not
	// the envelope's whole-second time: the queue drops a job identical to
	// one published in the last two minutes, and two writes in the same
	// second are different changes.
	at := now
	job := func(n *webhookNode, old *webhookNode) (hs.IndexJob, bool) {
		user, rel, ok := hs.SplitNodePath(n.Path)
		if !ok {
			return hs.IndexJob{}, false
		}
		j := hs.IndexJob{FileID: hs.FileID(n.ID), User: user, Path: rel, Event: name, Reason: hs.ReasonEvent, Time: at}
		if old != nil {
			if _, oldRel, ok := hs.SplitNodePath(old.Path); ok {
				j.OldPath = oldRel
			}
		}
		return j, true
	}
	var jobs []hs.IndexJob
	// Which events exist and how they are shaped is hs.FileEvents' to say.
	switch {
	case fe.Announces():
		// The change has not happened yet; its after-event follows.
	case fe.TwoNodes():
		if ev.Target == nil || ev.Target.Path == "" || ev.Source == nil || ev.Source.Path == "" {
			return nil, hs.Errorf(hs.EINVALID, "%s without source and target paths", name)
		}
		j, ok := job(ev.Target, ev.Source)
		if ok {
			jobs = append(jobs, j)
		}
		if name == "NodeRenamedEvent" && !ok {
			// Moved out of the user's files: the old path is gone.
			if j, ok := job(ev.Source, nil); ok {
				jobs = append(jobs, j)
			}
		}
	default:
		if ev.Node == nil || ev.Node.Path == "" {
			return nil, hs.Errorf(hs.EINVALID, "%s without a node path", name)
		}
		if j, ok := job(ev.Node, nil); ok {
			if name == "BeforeNodeDeletedEvent" {
				j.NotBefore = now.Add(deleteGrace)
			}
			jobs = append(jobs, j)
		}
	}
	return jobs, nil
}

// Webhook limits, after Nextcloud's own: a user id has at most 64
// characters (oc_users.uid), a file name at most 250 bytes and no control
// characters, and never is "." or ".." ([SRV] lib/private/Files/
// FilenameValidator.php validateFilename, lib/private/User/Manager.php
// validateUserId); a stored path at most 4000 bytes (oc_filecache.path),
// so a node path "/<uid>/files/<path>" stays under 4096.
const (
	maxWebhookUID      = 64
	maxWebhookName     = 250
	maxWebhookPath     = 4096
	maxWebhookClassLen = 256
)

// parseWebhook decodes and checks a webhook body strictly: valid UTF-8,
// exactly one JSON object with fields of the right types, and every user
// id, node path and node id within what Nextcloud itself can produce (see
// checkWebhook). Anything else is EINVALID (400), before a job is made.
func parseWebhook(body []byte) (webhookEnvelope, error) {
	var env webhookEnvelope
	if !utf8.Valid(body) {
		return env, hs.Errorf(hs.EINVALID, "webhook body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&env); err != nil {
		return env, hs.Errorf(hs.EINVALID, "webhook body is not a webhook_listeners event: %v", err)
	}
	if err := dec.Decode(&json.RawMessage{}); err != io.EOF {
		return env, hs.Errorf(hs.EINVALID, "webhook body is not a webhook_listeners event: data after the JSON object")
	}
	if err := checkWebhook(env); err != nil {
		return env, err
	}
	if hasReplacement(env) && !bytes.Contains(body, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`)) {
		// encoding/json turns a lone UTF-16 surrogate escape into U+FFFD;
		// json_encode never writes one.
		return env, hs.Errorf(hs.EINVALID, "webhook body has an invalid \\u escape (a lone surrogate)")
	}
	return env, nil
}

// hasReplacement reports whether a decoded webhook's strings hold U+FFFD.
func hasReplacement(env webhookEnvelope) bool {
	ss := []string{}
	if env.User != nil {
		ss = append(ss, env.User.UID)
	}
	if ev := env.Event; ev != nil {
		ss = append(ss, ev.Class)
		for _, n := range []*webhookNode{ev.Node, ev.Source, ev.Target} {
			if n != nil {
				ss = append(ss, n.Path)
			}
		}
	}
	for _, s := range ss {
		if strings.ContainsRune(s, utf8.RuneError) {
			return true
		}
	}
	return false
}

// checkWebhook enforces the limits on a decoded webhook.
func checkWebhook(env webhookEnvelope) error {
	if env.Time < 0 {
		return hs.Errorf(hs.EINVALID, "webhook time %d is negative", env.Time)
	}
	if env.User != nil && env.User.UID != "" {
		if err := checkWebhookUID(env.User.UID); err != nil {
			return hs.Errorf(hs.EINVALID, "webhook user: %s", err.Message)
		}
	}
	if env.Event == nil {
		return nil // webhookJobs names what is missing
	}
	if len(env.Event.Class) > maxWebhookClassLen || hasControl(env.Event.Class) {
		return hs.Errorf(hs.EINVALID, "webhook event class is malformed")
	}
	for _, n := range []struct {
		name string
		node *webhookNode
	}{{"node", env.Event.Node}, {"source", env.Event.Source}, {"target", env.Event.Target}} {
		if n.node == nil {
			continue
		}
		if n.node.ID < 0 {
			return hs.Errorf(hs.EINVALID, "webhook %s id %d is negative", n.name, n.node.ID)
		}
		if n.node.Path == "" {
			continue // webhookJobs says whether the event needs it
		}
		if err := checkWebhookPath(n.node.Path); err != nil {
			return hs.Errorf(hs.EINVALID, "webhook %s path: %s", n.name, err.Message)
		}
	}
	return nil
}

// checkWebhookPath checks a node path "/<uid>/<...>": absolute, at most
// maxWebhookPath bytes, no empty, "." or ".." segment, no segment over
// maxWebhookName bytes, no control characters, and a well-formed uid.
func checkWebhookPath(p string) *hs.Error {
	if len(p) > maxWebhookPath {
		return hs.Errorf(hs.EINVALID, "longer than %d bytes", maxWebhookPath)
	}
	rest, ok := strings.CutPrefix(p, "/")
	if !ok {
		return hs.Errorf(hs.EINVALID, "%q is not absolute", p)
	}
	rest = strings.TrimSuffix(rest, "/") // a folder may be named with a trailing slash
	for i, seg := range strings.Split(rest, "/") {
		switch {
		case seg == "":
			return hs.Errorf(hs.EINVALID, "empty segment")
		case seg == "." || seg == "..":
			return hs.Errorf(hs.EINVALID, "%q segment", seg)
		case len(seg) > maxWebhookName:
			return hs.Errorf(hs.EINVALID, "a name longer than %d bytes", maxWebhookName)
		case hasControl(seg):
			return hs.Errorf(hs.EINVALID, "control characters")
		case i == 0:
			if err := checkWebhookUID(seg); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkWebhookUID checks a user id: 1 to maxWebhookUID bytes, no control
// characters, slashes or backslashes, no surrounding space, not "." or
// "..".
func checkWebhookUID(uid string) *hs.Error {
	switch {
	case uid == "" || len(uid) > maxWebhookUID:
		return hs.Errorf(hs.EINVALID, "user id must have 1 to %d bytes", maxWebhookUID)
	case uid == "." || uid == ".." || strings.TrimSpace(uid) != uid || strings.ContainsAny(uid, `/\`) || hasControl(uid):
		return hs.Errorf(hs.EINVALID, "user id %q is malformed", uid)
	}
	return nil
}

// hasControl reports whether s has a C0 or C1 control character or DEL.
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}
