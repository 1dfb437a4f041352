package nextcloud

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	hs "github.com/hybrid-search/hybridsearch"
)

// webhooksPath is webhook_listeners' OCS base.
const webhooksPath = "/ocs/v2.php/apps/webhook_listeners/api/v1/webhooks"

// Webhook is a webhook_listeners registration, as Nextcloud reports it.
type Webhook struct {
	ID         int    `json:"id"`
	AppID      string `json:"appId"`  // the ExApp that registered it, "" otherwise
	UserID     string `json:"userId"` // the registrant, "" when an ExApp registered it without a user
	HTTPMethod string `json:"httpMethod"`
	URI        string `json:"uri"` // relative ("/webhook") for ExApp targets
	Event      string `json:"event"`
	// EventFilter is the Mongo-style filter; nil when there is none
	// (Nextcloud sends [] then).
	EventFilter  map[string]any    `json:"eventFilter"`
	UserIDFilter string            `json:"userIdFilter"`
	Headers      map[string]string `json:"headers"`
	AuthMethod   string            `json:"authMethod"` // "none" or "header"
	// AuthData is the encrypted auth data Nextcloud stores, or "".
	AuthData string `json:"authData"`
	// TokenNeeded is NC 33+'s ephemeral token request, raw; nil if absent.
	TokenNeeded json.RawMessage `json:"tokenNeeded,omitempty"`
}

// UnmarshalJSON reads Nextcloud's loosely typed WebhookInfo.
func (w *Webhook) UnmarshalJSON(b []byte) error {
	var raw struct {
		ID           json.RawMessage `json:"id"`
		AppID        json.RawMessage `json:"appId"`
		UserID       json.RawMessage `json:"userId"`
		HTTPMethod   json.RawMessage `json:"httpMethod"`
		URI          json.RawMessage `json:"uri"`
		Event        json.RawMessage `json:"event"`
		EventFilter  json.RawMessage `json:"eventFilter"`
		UserIDFilter json.RawMessage `json:"userIdFilter"`
		Headers      json.RawMessage `json:"headers"`
		AuthMethod   json.RawMessage `json:"authMethod"`
		AuthData     json.RawMessage `json:"authData"`
		TokenNeeded  json.RawMessage `json:"tokenNeeded"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*w = Webhook{
		ID:           int(jsonInt(raw.ID)),
		AppID:        jsonString(raw.AppID),
		UserID:       jsonString(raw.UserID),
		HTTPMethod:   jsonString(raw.HTTPMethod),
		URI:          jsonString(raw.URI),
		Event:        jsonString(raw.Event),
		EventFilter:  jsonObject(raw.EventFilter),
		UserIDFilter: jsonString(raw.UserIDFilter),
		Headers:      jsonStringMap(raw.Headers),
		AuthMethod:   jsonString(raw.AuthMethod),
		AuthData:     jsonString(raw.AuthData),
	}
	if !isEmptyData(raw.TokenNeeded) {
		w.TokenNeeded = raw.TokenNeeded
	}
	return nil
}

// WebhookSpec describes a webhook to create.
type WebhookSpec struct {
	HTTPMethod string // GET, POST, PUT or DELETE; "" means POST
	// URI is where Nextcloud sends the event. For an ExApp it is a path on
	// the app ("/webhook"), delivered through AppAPI with its headers.
	URI string
	// Event is the fully qualified event class, e.g.
	// `OCP\Files\Events\Node\NodeWrittenEvent`.
	Event string
	// EventFilter, if non-nil, is a Mongo-style filter over the payload,
	// e.g. map[string]any{"event.node.path": `/^\/[^\/]+\/files\//`}.
	EventFilter any
	// UserIDFilter, if set, fires only for events of that acting user.
	UserIDFilter string
	// Headers are added to every delivery (e.g. Content-Type).
	Headers map[string]string
	// AuthMethod is "none" (or "") or "header"; with "header", AuthData
	// is merged into the delivery headers.
	AuthMethod string
	AuthData   map[string]string
}

// ErrWebhookListenersDisabled is the cause of a webhook API call that
// failed because webhook_listeners' API does not exist: the Nextcloud app
// is disabled (or missing). Its routes are loaded only while it is enabled
// (server lib/private/Route/Router.php loadRoutes), so Nextcloud answers
// OCS 998, HTTP 404 on v2. It is enabled by default on new installs since
// Nextcloud 30 (server PR #47532); an upgraded instance may have it off.
var ErrWebhookListenersDisabled = errors.New("the Nextcloud app webhook_listeners is disabled, so Nextcloud sends no file changes; run: occ app:enable webhook_listeners")

// webhooksMissing turns a not-found answer of a webhook_listeners
// collection route (list, create, delete by app), which exists whenever
// the app is enabled, into ErrWebhookListenersDisabled.
func webhooksMissing(err error) error {
	if hs.ErrorKind(err) == hs.ENOTFOUND {
		return errorf(hs.EUNAVAILABLE, "%w (%s)", ErrWebhookListenersDisabled, hs.ErrorMessage(err))
	}
	return err
}

// ListWebhooks returns every webhook (not only this app's) or, if uri is
// set, those whose URI equals it. Made with no user.
func (c *Client) ListWebhooks(ctx context.Context, uri string) ([]Webhook, error) {
	var q url.Values
	if uri != "" {
		q = url.Values{"uri": {uri}}
	}
	var hooks []Webhook
	if err := c.ocs(ctx, "", http.MethodGet, webhooksPath, q, nil, &hooks); err != nil {
		return nil, webhooksMissing(err)
	}
	return hooks, nil
}

// GetWebhook returns one webhook; ENOTFOUND if it does not exist.
func (c *Client) GetWebhook(ctx context.Context, id int) (Webhook, error) {
	var w Webhook
	err := c.ocs(ctx, "", http.MethodGet, webhooksPath+"/"+strconv.Itoa(id), nil, nil, &w)
	return w, err
}

// CreateWebhook registers a webhook for this app. Nextcloud answers
// EINVALID for event classes that cannot be webhooks (share and user
// events) and for unknown auth methods.
func (c *Client) CreateWebhook(ctx context.Context, s WebhookSpec) (Webhook, error) {
	if s.URI == "" || s.Event == "" {
		return Webhook{}, errorf(hs.EINVALID, "create webhook: uri and event are required")
	}
	method := s.HTTPMethod
	if method == "" {
		method = http.MethodPost
	}
	auth := s.AuthMethod
	if auth == "" {
		auth = "none"
	}
	body := map[string]any{"httpMethod": method, "uri": s.URI, "event": s.Event, "authMethod": auth}
	if s.EventFilter != nil {
		body["eventFilter"] = s.EventFilter
	}
	if s.UserIDFilter != "" {
		body["userIdFilter"] = s.UserIDFilter
	}
	if len(s.Headers) > 0 {
		body["headers"] = s.Headers
	}
	if len(s.AuthData) > 0 {
		body["authData"] = s.AuthData
	}
	var w Webhook
	if err := c.ocs(ctx, "", http.MethodPost, webhooksPath, nil, body, &w); err != nil {
		return Webhook{}, webhooksMissing(err)
	}
	return w, nil
}

// DeleteWebhook removes one webhook; ENOTFOUND if it did not exist.
func (c *Client) DeleteWebhook(ctx context.Context, id int) error {
	path := webhooksPath + "/" + strconv.Itoa(id)
	var deleted json.RawMessage
	if err := c.ocs(ctx, "", http.MethodDelete, path, nil, nil, &deleted); err != nil {
		return err
	}
	if !jsonBool(deleted) {
		return errorf(hs.ENOTFOUND, "%s %s: no such webhook", http.MethodDelete, path)
	}
	return nil
}

// DeleteWebhooksByApp removes every webhook registered by appID and
// returns how many there were.
func (c *Client) DeleteWebhooksByApp(ctx context.Context, appID string) (int, error) {
	if appID == "" {
		return 0, errorf(hs.EINVALID, "delete webhooks by app: empty app id")
	}
	var n json.RawMessage
	err := c.ocs(ctx, "", http.MethodDelete, webhooksPath+"/byappid/"+url.PathEscape(appID), nil, nil, &n)
	if err != nil {
		return 0, webhooksMissing(err)
	}
	return int(jsonInt(n)), nil
}
