package ncsim

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// appAPIHandler is an AppAPI OCS endpoint (#[AppAPIAuth] #[PublicPage]):
// it runs only for a caller that passed AppAPI authentication.
type appAPIHandler func(w http.ResponseWriter, r *http.Request, p principal)

// appAPIAuth wraps h with AppAPIAuthMiddleware: a missing or invalid
// AppAPI signature gets HTTP 401, OCS 997 "AppAPI authentication failed".
func (s *Server) appAPIAuth(h appAPIHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := s.authenticate(r)
		if !p.exApp() {
			writeOCS(w, r, http.StatusUnauthorized, "AppAPI authentication failed", nil)
			return
		}
		h(w, r, p)
	}
}

// ExAppLog is a message an ExApp logged through POST /api/v1/log.
type ExAppLog struct {
	AppID   string
	Level   int // 0 debug .. 4 fatal
	Message string
	Time    time.Time
}

// Notification is a notification an ExApp sent through POST
// /api/v1/notification.
type Notification struct {
	App        string `json:"app"`
	User       string `json:"user"`
	DateTime   string `json:"datetime"`
	ObjectType string `json:"object_type"`
	ObjectID   string `json:"object_id"`
	Subject    string `json:"subject"`
	Message    string `json:"message"`
	Link       string `json:"link"`
	Icon       string `json:"icon"`
}

// ExAppLogs returns what appID logged through the log endpoint.
func (s *Server) ExAppLogs(appID string) []ExAppLog {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return uiFilter(s.hooks.logs, func(l ExAppLog) bool { return l.AppID == appID })
}

// Notifications returns every notification ExApps sent.
func (s *Server) Notifications() []Notification {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Notification(nil), s.hooks.notifications...)
}

// handleInitStatus serves PUT /ocs/v{1,2}.php/apps/app_api/ex-app/status
// {progress, error}. Progress 100 runs the enable step (heartbeat, PUT
// /enabled) before this request is answered, as AppAPI does.
func (s *Server) handleInitStatus(w http.ResponseWriter, r *http.Request, p principal) {
	s.setInitStatus(w, r, p.appID)
}

// handleInitStatusDeprecated serves PUT .../apps/app_api/apps/status/{appId}.
func (s *Server) handleInitStatusDeprecated(w http.ResponseWriter, r *http.Request, _ principal) {
	s.setInitStatus(w, r, r.PathValue("appId"))
}

func (s *Server) setInitStatus(w http.ResponseWriter, r *http.Request, appID string) {
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	progress, ok := paramInt(params, "progress")
	if !ok {
		writeOCS(w, r, ocsServerError, "Internal Server Error", nil)
		return
	}
	msg := paramStringOr(params, "error", "")
	if _, ok := s.exAppRef(appID); !ok {
		writeOCS(w, r, http.StatusNotFound, "", nil)
		return
	}
	// The enable step outlives the ExApp's request, as PHP keeps running.
	err = s.setInitProgress(context.WithoutCancel(r.Context()), appID, progress, msg)
	if errors.Is(err, errInvalidProgress) {
		s.logf("ncsim: ExApp %s reported progress %d: %v", appID, progress, err)
		writeOCS(w, r, ocsServerError, "Internal Server Error", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleEnabledState serves GET .../apps/app_api/ex-app/state: data is the
// enabled flag as AppAPI stores it, the integer 1 or 0. It works while the
// app is disabled.
func (s *Server) handleEnabledState(w http.ResponseWriter, r *http.Request, p principal) {
	s.mu.Lock()
	a, ok := s.apps[p.appID]
	enabled := ok && a.enabled
	s.mu.Unlock()
	if !ok {
		writeOCS(w, r, http.StatusNotFound, "", nil)
		return
	}
	n := 0
	if enabled {
		n = 1
	}
	writeOCS(w, r, http.StatusOK, "", n)
}

// handleLog serves POST .../api/v1/log {level 0..4, message}.
func (s *Server) handleLog(w http.ResponseWriter, r *http.Request, p principal) {
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	level, ok := paramInt(params, "level")
	msg, ok2 := paramString(params, "message")
	if !ok || !ok2 {
		writeOCS(w, r, ocsServerError, "Internal Server Error", nil)
		return
	}
	if level < 0 || level > 4 {
		writeOCS(w, r, http.StatusBadRequest, "Invalid log level", nil)
		return
	}
	s.mu.Lock()
	s.hooks.logs = append(s.hooks.logs, ExAppLog{AppID: p.appID, Level: level, Message: msg, Time: s.now()})
	s.mu.Unlock()
	s.logf("ncsim: [%s] log level %d: %s", p.appID, level, msg)
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleUsersList serves GET .../api/v1/users: every user id.
func (s *Server) handleUsersList(w http.ResponseWriter, r *http.Request, _ principal) {
	writeOCS(w, r, http.StatusOK, "", s.Users())
}

// handleNotification serves POST .../api/v1/notification {params:{object,
// object_id, subject_type, subject_params}} for the acting user.
func (s *Server) handleNotification(w http.ResponseWriter, r *http.Request, p principal) {
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	np, ok := params["params"].(map[string]any)
	if !ok {
		writeOCS(w, r, ocsServerError, "Internal Server Error", nil)
		return
	}
	sp, _ := np["subject_params"].(map[string]any)
	n := Notification{
		App: p.appID, User: p.uid, DateTime: s.now().Format(time.RFC3339),
		ObjectType: paramStringOr(np, "object", ""), ObjectID: paramStringOr(np, "object_id", ""),
		Subject: paramStringOr(sp, "rich_subject", ""), Message: paramStringOr(sp, "rich_message", ""),
		Link: paramStringOr(sp, "link", ""), Icon: paramStringOr(sp, "icon", ""),
	}
	s.mu.Lock()
	s.hooks.notifications = append(s.hooks.notifications, n)
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", n)
}

// configValue is one appconfig_ex or preferences_ex row.
type configValue struct {
	id        int
	value     string
	sensitive int
}

// appConfigJSON and prefJSON are the entities AppAPI answers with.
type appConfigJSON struct {
	ID          int    `json:"id"`
	AppID       string `json:"appid"`
	ConfigKey   string `json:"configkey"`
	ConfigValue string `json:"configvalue"`
	Sensitive   int    `json:"sensitive"`
}

type prefJSON struct {
	ID          int    `json:"id"`
	UserID      string `json:"userid"`
	AppID       string `json:"appid"`
	ConfigKey   string `json:"configkey"`
	ConfigValue string `json:"configvalue"`
}

type keyValueJSON struct {
	ConfigKey   string `json:"configkey"`
	ConfigValue string `json:"configvalue"`
}

// configString stores a config value as AppAPI does: strings as they are,
// anything else JSON-encoded.
func configString(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	}
	if s, ok := paramString(map[string]any{"v": v}, "v"); ok {
		return s
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// configTableLocked returns the key/value table of appID (preferences of uid
// when prefs is true), creating it.
func (s *Server) configTableLocked(appID, uid string, prefs bool) map[string]*configValue {
	key := appID
	if prefs {
		key = appID + "\x00" + uid
	}
	tables := s.hooks.appConfig
	if prefs {
		tables = s.hooks.prefs
	}
	t, ok := tables[key]
	if !ok {
		t = map[string]*configValue{}
		tables[key] = t
	}
	return t
}

// configHandlers returns the set, get-values and delete handlers of
// /api/v1/ex-app/config (prefs false) or /api/v1/ex-app/preference.
func (s *Server) configHandlers(prefs bool) (set, get, del appAPIHandler) {
	needUser := func(w http.ResponseWriter, r *http.Request, p principal) bool {
		if prefs && p.uid == "" {
			// $this->userId is null: a TypeError in Nextcloud.
			writeOCS(w, r, ocsServerError, "Internal Server Error", nil)
			return false
		}
		return true
	}
	set = func(w http.ResponseWriter, r *http.Request, p principal) {
		params, _, ok := uiParams(w, r, "configKey")
		if !ok || !needUser(w, r, p) {
			return
		}
		k := paramStringOr(params, "configKey", "")
		if k == "" {
			writeOCS(w, r, http.StatusBadRequest, "Config key cannot be empty", nil)
			return
		}
		s.mu.Lock()
		t := s.configTableLocked(p.appID, p.uid, prefs)
		cv, exists := t[k]
		if !exists {
			s.hooks.ui.nextID++
			cv = &configValue{id: s.hooks.ui.nextID}
			t[k] = cv
		}
		cv.value = configString(params["configValue"])
		if sens, ok := paramInt(params, "sensitive"); ok {
			cv.sensitive = sens
		}
		var out any = appConfigJSON{ID: cv.id, AppID: p.appID, ConfigKey: k, ConfigValue: cv.value, Sensitive: cv.sensitive}
		if prefs {
			out = prefJSON{ID: cv.id, UserID: p.uid, AppID: p.appID, ConfigKey: k, ConfigValue: cv.value}
		}
		s.mu.Unlock()
		writeOCS(w, r, http.StatusOK, "", out)
	}
	get = func(w http.ResponseWriter, r *http.Request, p principal) {
		params, err := readParams(r)
		if err != nil {
			writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
			return
		}
		keys, ok := paramStringList(params, "configKeys")
		if !ok {
			writeOCS(w, r, ocsServerError, "Internal Server Error", nil)
			return
		}
		if !needUser(w, r, p) {
			return
		}
		out := []keyValueJSON{}
		s.mu.Lock()
		t := s.configTableLocked(p.appID, p.uid, prefs)
		for _, k := range keys {
			if cv, ok := t[k]; ok {
				out = append(out, keyValueJSON{ConfigKey: k, ConfigValue: cv.value})
			}
		}
		s.mu.Unlock()
		writeOCS(w, r, http.StatusOK, "", out)
	}
	del = func(w http.ResponseWriter, r *http.Request, p principal) {
		params, err := readParams(r)
		if err != nil {
			writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
			return
		}
		keys, ok := paramStringList(params, "configKeys")
		if !ok {
			writeOCS(w, r, ocsServerError, "Internal Server Error", nil)
			return
		}
		if !needUser(w, r, p) {
			return
		}
		n := 0
		s.mu.Lock()
		t := s.configTableLocked(p.appID, p.uid, prefs)
		for _, k := range keys {
			if _, ok := t[k]; ok {
				delete(t, k)
				n++
			}
		}
		s.mu.Unlock()
		if n == 0 {
			msg := "No appconfig_ex values deleted"
			if prefs {
				msg = "No preferences_ex values deleted"
			}
			writeOCS(w, r, http.StatusNotFound, msg, nil)
			return
		}
		writeOCS(w, r, http.StatusOK, "", n)
	}
	return set, get, del
}

// AppConfig returns appID's app config values (appconfig_ex).
func (s *Server) AppConfig(appID string) map[string]string {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.hooks.appConfig[appID] {
		out[k] = v.value
	}
	return out
}

// Preferences returns the values appID stored for uid (preferences_ex).
func (s *Server) Preferences(appID, uid string) map[string]string {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.hooks.prefs[appID+"\x00"+uid] {
		out[k] = v.value
	}
	return out
}
