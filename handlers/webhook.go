package handlers

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// Publisher queues index jobs; it returns once the queue has them durably.
type Publisher interface {
	Publish(ctx context.Context, jobs ...hs.IndexJob) error
}

// publishTimeout keeps the webhook answer inside Nextcloud's 3 s budget.
const publishTimeout = 2 * time.Second

// deleteGrace delays jobs of BeforeNodeDeletedEvent until the delete has
// happened (the event fires before it).
const deleteGrace = 3 * time.Second

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

// handleWebhook answers POST /api/webhook: it turns one file event into
// index jobs and answers after the queue acknowledged them.
func (s *Server) handleWebhook(c echo.Context) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // the body limit gives 413
	}
	var env webhookEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return hs.Errorf(hs.EINVALID, "webhook body is not a webhook_listeners event: %v", err)
	}
	jobs, err := webhookJobs(env, time.Now())
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
	switch name {
	case "NodeCreatedEvent", "NodeWrittenEvent", "NodeTouchedEvent", "NodeUpdatedEvent", "NodeDeletedEvent", "BeforeNodeDeletedEvent":
		if ev.Node == nil || ev.Node.Path == "" {
			return nil, hs.Errorf(hs.EINVALID, "%s without a node path", name)
		}
		if j, ok := job(ev.Node, nil); ok {
			if name == "BeforeNodeDeletedEvent" {
				j.NotBefore = now.Add(deleteGrace)
			}
			jobs = append(jobs, j)
		}
	case "NodeRenamedEvent", "NodeCopiedEvent", "NodeRestoredEvent":
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
	case "BeforeNodeCreatedEvent", "BeforeNodeWrittenEvent", "BeforeNodeTouchedEvent", "BeforeNodeUpdatedEvent",
		"BeforeNodeRenamedEvent", "BeforeNodeCopiedEvent", "BeforeNodeRestoredEvent", "BeforeNodeReadEvent":
		// The change has not happened yet; its after-event follows.
	default:
		return nil, hs.Errorf(hs.EINVALID, "unsupported event class %q", ev.Class)
	}
	return jobs, nil
}
