package handlers

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/webhook"
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

// DeliveryRecorder hears of each webhook the app took: the event's time
// (whole seconds, as the envelope has it) and when it arrived.
type DeliveryRecorder interface {
	Delivered(event, arrived time.Time)
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
	env, err := webhook.Parse(body)
	if err != nil {
		return err
	}
	jobs, err := webhook.Jobs(env, arrived)
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
		fe, _ := webhook.FileEventByClass(env.Event.Class)
		s.observer.WebhookReceived(fe.Name)
	}
	if s.live != nil && env.Time > 0 {
		s.live.Delivered(time.Unix(env.Time, 0), arrived)
	}
	return c.JSON(http.StatusOK, webhookResponse{Queued: len(jobs)})
}
