package ncsim

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// WebhookListener is a webhook_listeners registration.
type WebhookListener struct {
	ID           int
	AppID        string // the ExApp that registered it (EX-APP-ID), "" if none
	UserID       string // the registering user, "" if none (null in JSON)
	HTTPMethod   string
	URI          string
	Event        string
	EventFilter  json.RawMessage // as stored; "[]" when empty
	UserIDFilter string
	Headers      map[string]string
	AuthMethod   string // "none" or "header"
	AuthData     map[string]string
}

// webhookListener is the stored form. Guarded by Server.mu.
type webhookListener struct {
	WebhookListener
	appIDSet, userIDSet bool
	headersRaw          json.RawMessage // "null", "[]" or an object
	filter              any             // EventFilter decoded for matching; nil when empty
	authDataEnc         string          // opaque "encrypted" authData, "" when null
}

// webhookInfo is WebhookListener::jsonSerialize(), in field order.
type webhookInfo struct {
	ID           int             `json:"id"`
	AppID        *string         `json:"appId"`
	UserID       *string         `json:"userId"`
	HTTPMethod   string          `json:"httpMethod"`
	URI          string          `json:"uri"`
	Event        string          `json:"event"`
	EventFilter  json.RawMessage `json:"eventFilter"`
	UserIDFilter string          `json:"userIdFilter"`
	Headers      json.RawMessage `json:"headers"`
	AuthMethod   string          `json:"authMethod"`
	AuthData     *string         `json:"authData"`
}

func (l *webhookListener) info() webhookInfo {
	out := webhookInfo{ID: l.ID, HTTPMethod: l.HTTPMethod, URI: l.URI, Event: l.Event,
		EventFilter: l.EventFilter, UserIDFilter: l.UserIDFilter, Headers: l.headersRaw, AuthMethod: l.AuthMethod}
	if l.appIDSet {
		out.AppID = &l.AppID
	}
	if l.userIDSet {
		out.UserID = &l.UserID
	}
	if l.authDataEnc != "" {
		out.AuthData = &l.authDataEnc
	}
	return out
}

// Webhooks returns every registered webhook listener, by id.
func (s *Server) Webhooks() []WebhookListener {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]WebhookListener, 0, len(s.hooks.webhooks.listeners))
	for _, l := range s.hooks.webhooks.listeners {
		out = append(out, l.WebhookListener)
	}
	return out
}

// webhooksAuth wraps h with webhook_listeners' access rules
// (#[AuthorizedAdminSetting] + #[AppApiAdminAccessWithoutUser]): an admin,
// or an ExApp calling without a user. Others get 401 or 403.
func (s *Server) webhooksAuth(h appAPIHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		off := s.hooks.webhooks.appOff
		s.mu.Unlock()
		if off {
			writeOCSRouteNotFound(w, r)
			return
		}
		p := s.authenticate(r)
		switch {
		case !p.loggedIn():
			writeOCS(w, r, http.StatusUnauthorized, "Current user is not logged in", nil)
		case p.exApp() && p.uid == "":
			h(w, r, p)
		case !s.isAdmin(p.uid):
			writeOCS(w, r, http.StatusForbidden, "Logged in account must be an admin or have authorization to edit this setting.", nil)
		default:
			h(w, r, p)
		}
	}
}

// handleWebhooksList serves GET /ocs/v{1,2}.php/apps/webhook_listeners/api/v1/webhooks
// (optionally ?uri=<exact uri>): every webhook, not only the caller's.
func (s *Server) handleWebhooksList(w http.ResponseWriter, r *http.Request, _ principal) {
	uri, byURI := r.URL.Query()["uri"]
	out := []webhookInfo{}
	s.mu.Lock()
	for _, l := range s.hooks.webhooks.listeners {
		if byURI && l.URI != uri[0] {
			continue
		}
		out = append(out, l.info())
	}
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", out)
}

// handleWebhookGet serves GET .../webhooks/{id}.
func (s *Server) handleWebhookGet(w http.ResponseWriter, r *http.Request, _ principal) {
	id, _ := strconv.Atoi(r.PathValue("id"))
	s.mu.Lock()
	l := s.webhookLocked(id)
	var info webhookInfo
	if l != nil {
		info = l.info()
	}
	s.mu.Unlock()
	if l == nil {
		writeOCS(w, r, http.StatusNotFound, notFoundMessage(id), nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", info)
}

func notFoundMessage(id int) string {
	return fmt.Sprintf("Did expect one result but found none when executing: query \"SELECT * FROM `*PREFIX*webhook_listeners` WHERE `id` = %d\"", id)
}

// handleWebhookCreate serves POST .../webhooks.
func (s *Server) handleWebhookCreate(w http.ResponseWriter, r *http.Request, p principal) {
	l, ok := s.webhookFromRequest(w, r, p)
	if !ok {
		return
	}
	s.mu.Lock()
	wh := &s.hooks.webhooks
	wh.nextID++
	l.ID = wh.nextID
	wh.listeners = append(wh.listeners, l)
	s.forgetEventsCacheLocked(l.UserIDFilter)
	info := l.info()
	s.mu.Unlock()
	s.logf("ncsim: webhook %d registered: %s %s on %s (app %q)", l.ID, l.HTTPMethod, l.URI, l.Event, l.AppID)
	writeOCS(w, r, http.StatusOK, "", info)
}

// handleWebhookUpdate serves POST .../webhooks/{id}. Like Nextcloud's
// mapper update, an unknown id answers the would-be entity without storing it.
func (s *Server) handleWebhookUpdate(w http.ResponseWriter, r *http.Request, p principal) {
	l, ok := s.webhookFromRequest(w, r, p)
	if !ok {
		return
	}
	l.ID, _ = strconv.Atoi(r.PathValue("id"))
	s.mu.Lock()
	for i, old := range s.hooks.webhooks.listeners {
		if old.ID == l.ID {
			s.hooks.webhooks.listeners[i] = l
		}
	}
	s.forgetEventsCacheLocked(l.UserIDFilter)
	info := l.info()
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", info)
}

// handleWebhookDelete serves DELETE .../webhooks/{id}: data is whether
// something was deleted.
func (s *Server) handleWebhookDelete(w http.ResponseWriter, r *http.Request, _ principal) {
	id, _ := strconv.Atoi(r.PathValue("id"))
	s.mu.Lock()
	n := uiRemove(&s.hooks.webhooks.listeners, func(l *webhookListener) bool { return l.ID == id })
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", n > 0)
}

// handleWebhooksDeleteByApp serves DELETE .../webhooks/byappid/{appid}:
// data is the number deleted.
func (s *Server) handleWebhooksDeleteByApp(w http.ResponseWriter, r *http.Request, _ principal) {
	s.mu.Lock()
	n := s.deleteWebhooksByAppLocked(r.PathValue("appid"))
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", n)
}

func (s *Server) deleteWebhooksByAppLocked(appID string) int {
	return uiRemove(&s.hooks.webhooks.listeners, func(l *webhookListener) bool { return l.appIDSet && l.AppID == appID })
}

func (s *Server) webhookLocked(id int) *webhookListener {
	for _, l := range s.hooks.webhooks.listeners {
		if l.ID == id {
			return l
		}
	}
	return nil
}

// webhookFromRequest validates create/update parameters as
// WebhooksController and WebhookListenerMapper do.
func (s *Server) webhookFromRequest(w http.ResponseWriter, r *http.Request, p principal) (*webhookListener, bool) {
	params, v, ok := uiParams(w, r, "httpMethod", "uri", "event")
	if !ok {
		return nil, false
	}
	l := &webhookListener{}
	l.HTTPMethod, l.URI = v[0], v[1]
	l.Event = strings.TrimLeft(v[2], `\`)
	if p.exApp() {
		l.AppID, l.appIDSet = p.appID, true
	}
	if p.uid != "" {
		l.UserID, l.userIDSet = p.uid, true
	}
	method := paramStringOr(params, "authMethod", "none")
	if method != "none" && method != "header" {
		writeOCS(w, r, http.StatusBadRequest, "This auth method does not exist", nil)
		return nil, false
	}
	l.AuthMethod = method
	if !s.WebhookCompatible(l.Event) {
		writeOCS(w, r, http.StatusBadRequest, l.Event+" is not an event class compatible with webhooks", nil)
		return nil, false
	}
	var err error
	if l.EventFilter, l.filter, err = phpArrayParam(params, "eventFilter", true); err != nil {
		writeOCS(w, r, ocsServerError, "Internal Server Error: "+err.Error(), nil)
		return nil, false
	}
	l.UserIDFilter = paramStringOr(params, "userIdFilter", "")
	if l.headersRaw, _, err = phpArrayParam(params, "headers", false); err != nil {
		writeOCS(w, r, ocsServerError, "Internal Server Error: "+err.Error(), nil)
		return nil, false
	}
	l.Headers = stringMap(params["headers"])
	authData, hasAuth := params["authData"].(map[string]any)
	switch {
	case hasAuth:
		l.AuthData = stringMap(authData)
		l.authDataEnc = fakeEncrypt()
	case method == "header":
		writeOCS(w, r, http.StatusBadRequest, "Header auth method needs an associative array of headers as auth data", nil)
		return nil, false
	}
	return l, true
}

// phpArrayParam reads a ?array parameter: absent or null gives null (or
// "[]" when nullAsEmpty), an empty object or list gives "[]", other
// objects and lists are kept. It also returns the value decoded with
// json.Number for filter matching (nil when empty).
func phpArrayParam(params map[string]any, key string, nullAsEmpty bool) (json.RawMessage, any, error) {
	v, ok := params[key]
	if !ok || v == nil {
		if nullAsEmpty {
			return json.RawMessage("[]"), nil, nil
		}
		return json.RawMessage("null"), nil, nil
	}
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			return json.RawMessage("[]"), nil, nil
		}
	case []any:
		if len(t) == 0 {
			return json.RawMessage("[]"), nil, nil
		}
	default:
		return nil, nil, fmt.Errorf("%s must be an array", key)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	decoded, err := decodeJSONValue(raw)
	return raw, decoded, err
}

// stringMap converts a JSON object to string values ("" for non-strings).
func stringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		out[k], _ = paramString(map[string]any{"v": e}, "v")
	}
	return out
}

// fakeEncrypt returns an opaque string shaped like ICrypto::encrypt output.
func fakeEncrypt() string {
	b := make([]byte, 32+16+64)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:32]) + "|" + hex.EncodeToString(b[32:48]) + "|" + hex.EncodeToString(b[48:]) + "|3"
}

// SetWebhookListenersEnabled enables or disables the webhook_listeners app
// (occ app:enable / app:disable webhook_listeners). It is enabled by
// default on new installs since Nextcloud 30 (server PR #47532); an
// upgraded instance may have it off. While it is off its OCS routes do not
// exist (writeOCSRouteNotFound) and no event is queued; the webhooks
// stored in its table stay and work again once it is enabled.
func (s *Server) SetWebhookListenersEnabled(enabled bool) {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks.webhooks.appOff = !enabled
	if !enabled {
		s.stopWebhookCronLocked()
	} else {
		s.scheduleCronLocked()
	}
}

// writeOCSRouteNotFound is ocs/v1.php's (and v2.php's) answer to a path
// no loaded route matches, such as a disabled app's: ApiHelper::respond(
// RESPOND_NOT_FOUND, "Invalid query, …") (server ocs/v1.php,
// lib/private/OCS/ApiHelper.php @42c5a60c; the router loads an app's
// routes only while it is enabled, lib/private/Route/Router.php
// loadRoutes @00126022). ApiHelper takes the format from the format
// parameter alone (XML by default, whatever Accept says) and sets
// Content-Type text/xml for XML. v2 answers HTTP 404, v1 HTTP 200; both
// carry statuscode 998.
func writeOCSRouteNotFound(w http.ResponseWriter, r *http.Request) {
	const msg = "Invalid query, please check the syntax. API specifications are here: " +
		"http://www.freedesktop.org/wiki/Specifications/open-collaboration-services.\n"
	r = r.Clone(r.Context())
	r.Header.Del("Accept")
	writeOCS(xmlTypeWriter{w}, r, ocsNotFound, msg, nil)
}

// xmlTypeWriter sends an XML answer as text/xml, as ApiHelper::setContentType does.
type xmlTypeWriter struct{ http.ResponseWriter }

func (x xmlTypeWriter) WriteHeader(code int) {
	if strings.HasPrefix(x.Header().Get("Content-Type"), "application/xml") {
		x.Header().Set("Content-Type", "text/xml; charset=UTF-8")
	}
	x.ResponseWriter.WriteHeader(code)
}
