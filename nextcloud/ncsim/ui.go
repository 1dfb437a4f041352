package ncsim

import (
	"encoding/json"
	"net/http"
	"strings"
)

// TopMenuEntry is a top-menu entry an ExApp registered
// (POST /api/v1/ui/top-menu).
type TopMenuEntry struct {
	ID            int    `json:"id"`
	AppID         string `json:"appid"`
	Name          string `json:"name"`
	DisplayName   string `json:"display_name"`
	Icon          string `json:"icon"` // relative to the app root, leading "/" trimmed
	AdminRequired int    `json:"admin_required"`
}

// UIInitialState is an initial state an ExApp provides to one of its pages
// (POST /api/v1/ui/initial-state).
type UIInitialState struct {
	ID    int             `json:"id"`
	AppID string          `json:"appid"`
	Type  string          `json:"type"` // "top_menu"
	Name  string          `json:"name"` // the menu entry
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"` // a JSON object or array
}

// UIScript is a script an ExApp loads on one of its pages
// (POST /api/v1/ui/script). Path has no ".js".
type UIScript struct {
	ID         int    `json:"id"`
	AppID      string `json:"appid"`
	Type       string `json:"type"`
	Name       string `json:"name"`
	Path       string `json:"path"`
	AfterAppID string `json:"after_app_id"`
}

// UIStyle is a stylesheet an ExApp loads on one of its pages
// (POST /api/v1/ui/style). Path has no ".css".
type UIStyle struct {
	ID    int    `json:"id"`
	AppID string `json:"appid"`
	Type  string `json:"type"`
	Name  string `json:"name"`
	Path  string `json:"path"`
}

// FileAction is a Files app action an ExApp registered
// (POST /api/v1/ui/files-actions-menu, or /api/v2/... for Version "2.0").
type FileAction struct {
	ID            int    `json:"id"`
	AppID         string `json:"appid"`
	Name          string `json:"name"`
	DisplayName   string `json:"display_name"`
	Mime          string `json:"mime"`
	Permissions   int    `json:"permissions"`
	Order         int    `json:"order"`
	Icon          string `json:"icon"`
	ActionHandler string `json:"action_handler"`
	Version       string `json:"version"`
	DefaultAction string `json:"default_action,omitempty"`
}

// SettingsForm is a declarative settings form an ExApp registered
// (POST /api/v1/ui/settings).
type SettingsForm struct {
	AppID  string
	FormID string
	Scheme json.RawMessage // the formScheme, storage_type forced to "external"
}

// uiState holds every app's UI registrations, in registration order.
// Guarded by Server.mu.
type uiState struct {
	nextID        int
	topMenus      []TopMenuEntry
	initialStates []UIInitialState
	scripts       []UIScript
	styles        []UIStyle
	fileActions   []FileAction
	forms         []SettingsForm
}

func (u *uiState) id() int {
	u.nextID++
	return u.nextID
}

// uiUpsert replaces the element of list that matches, keeping its id and
// position, or appends item with a new id. It returns the stored item.
func uiUpsert[T any](u *uiState, list *[]T, item T, match func(T) bool, setID func(*T, int), getID func(T) int) T {
	for i, old := range *list {
		if match(old) {
			setID(&item, getID(old))
			(*list)[i] = item
			return item
		}
	}
	setID(&item, u.id())
	*list = append(*list, item)
	return item
}

// uiRemove deletes the elements of list that match and reports how many.
func uiRemove[T any](list *[]T, match func(T) bool) int {
	kept := (*list)[:0]
	n := 0
	for _, e := range *list {
		if match(e) {
			n++
			continue
		}
		kept = append(kept, e)
	}
	*list = kept
	return n
}

func uiFind[T any](list []T, match func(T) bool) (T, bool) {
	for _, e := range list {
		if match(e) {
			return e, true
		}
	}
	var zero T
	return zero, false
}

func uiFilter[T any](list []T, match func(T) bool) []T {
	var out []T
	for _, e := range list {
		if match(e) {
			out = append(out, e)
		}
	}
	return out
}

func (u *uiState) removeApp(appID string) {
	uiRemove(&u.topMenus, func(e TopMenuEntry) bool { return e.AppID == appID })
	uiRemove(&u.initialStates, func(e UIInitialState) bool { return e.AppID == appID })
	uiRemove(&u.scripts, func(e UIScript) bool { return e.AppID == appID })
	uiRemove(&u.styles, func(e UIStyle) bool { return e.AppID == appID })
	uiRemove(&u.fileActions, func(e FileAction) bool { return e.AppID == appID })
	uiRemove(&u.forms, func(e SettingsForm) bool { return e.AppID == appID })
}

// TopMenus returns the top-menu entries appID registered.
func (s *Server) TopMenus(appID string) []TopMenuEntry {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return uiFilter(s.hooks.ui.topMenus, func(e TopMenuEntry) bool { return e.AppID == appID })
}

// InitialStates returns the initial states appID registered.
func (s *Server) InitialStates(appID string) []UIInitialState {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return uiFilter(s.hooks.ui.initialStates, func(e UIInitialState) bool { return e.AppID == appID })
}

// Scripts returns the scripts appID registered.
func (s *Server) Scripts(appID string) []UIScript {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return uiFilter(s.hooks.ui.scripts, func(e UIScript) bool { return e.AppID == appID })
}

// Styles returns the stylesheets appID registered.
func (s *Server) Styles(appID string) []UIStyle {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return uiFilter(s.hooks.ui.styles, func(e UIStyle) bool { return e.AppID == appID })
}

// FileActions returns the Files app actions appID registered.
func (s *Server) FileActions(appID string) []FileAction {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return uiFilter(s.hooks.ui.fileActions, func(e FileAction) bool { return e.AppID == appID })
}

// SettingsForms returns the declarative settings forms appID registered.
func (s *Server) SettingsForms(appID string) []SettingsForm {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return uiFilter(s.hooks.ui.forms, func(e SettingsForm) bool { return e.AppID == appID })
}

// uiParams reads the request parameters of a UI endpoint and the required
// string parameters names. A missing required parameter is a TypeError in
// Nextcloud's dispatcher, so the answer is an OCS 500.
func uiParams(w http.ResponseWriter, r *http.Request, names ...string) (map[string]any, []string, bool) {
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return nil, nil, false
	}
	vals := make([]string, len(names))
	for i, n := range names {
		v, ok := paramString(params, n)
		if !ok {
			writeOCS(w, r, ocsServerError, "Internal Server Error: missing parameter "+n, nil)
			return nil, nil, false
		}
		vals[i] = v
	}
	return params, vals, true
}

func paramStringOr(params map[string]any, key, def string) string {
	if v, ok := paramString(params, key); ok {
		return v
	}
	return def
}

func paramIntOr(params map[string]any, key string, def int) int {
	if v, ok := paramInt(params, key); ok {
		return v
	}
	return def
}

// handleTopMenuSet serves POST /ocs/v{1,2}.php/apps/app_api/api/v1/ui/top-menu.
func (s *Server) handleTopMenuSet(w http.ResponseWriter, r *http.Request, p principal) {
	params, v, ok := uiParams(w, r, "name", "displayName")
	if !ok {
		return
	}
	e := TopMenuEntry{AppID: p.appID, Name: v[0], DisplayName: v[1],
		Icon: strings.TrimLeft(paramStringOr(params, "icon", ""), "/"), AdminRequired: paramIntOr(params, "adminRequired", 0)}
	s.mu.Lock()
	u := &s.hooks.ui
	uiUpsert(u, &u.topMenus, e, func(o TopMenuEntry) bool { return o.AppID == e.AppID && o.Name == e.Name },
		func(t *TopMenuEntry, id int) { t.ID = id }, func(t TopMenuEntry) int { return t.ID })
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleTopMenuDelete serves DELETE .../api/v1/ui/top-menu; it also removes
// the entry's initial states, scripts and styles.
func (s *Server) handleTopMenuDelete(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "name")
	if !ok {
		return
	}
	s.mu.Lock()
	u := &s.hooks.ui
	n := uiRemove(&u.topMenus, func(o TopMenuEntry) bool { return o.AppID == p.appID && o.Name == v[0] })
	if n > 0 {
		page := func(appID, typ, name string) bool { return appID == p.appID && typ == "top_menu" && name == v[0] }
		uiRemove(&u.initialStates, func(o UIInitialState) bool { return page(o.AppID, o.Type, o.Name) })
		uiRemove(&u.scripts, func(o UIScript) bool { return page(o.AppID, o.Type, o.Name) })
		uiRemove(&u.styles, func(o UIStyle) bool { return page(o.AppID, o.Type, o.Name) })
	}
	s.mu.Unlock()
	if n == 0 {
		writeOCS(w, r, http.StatusNotFound, "No such Top Menu entry", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleTopMenuGet serves GET .../api/v1/ui/top-menu.
func (s *Server) handleTopMenuGet(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "name")
	if !ok {
		return
	}
	s.mu.Lock()
	e, found := uiFind(s.hooks.ui.topMenus, func(o TopMenuEntry) bool { return o.AppID == p.appID && o.Name == v[0] })
	s.mu.Unlock()
	if !found {
		writeOCS(w, r, http.StatusNotFound, "No such Top Menu entry", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", e)
}

// handleInitialStateSet serves POST .../api/v1/ui/initial-state. value must
// be a JSON object or array.
func (s *Server) handleInitialStateSet(w http.ResponseWriter, r *http.Request, p principal) {
	params, v, ok := uiParams(w, r, "type", "name", "key")
	if !ok {
		return
	}
	switch params["value"].(type) {
	case map[string]any, []any:
	default:
		writeOCS(w, r, ocsServerError, "Internal Server Error: value must be an array", nil)
		return
	}
	raw, err := json.Marshal(params["value"])
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, "InitialState could not be set", nil)
		return
	}
	e := UIInitialState{AppID: p.appID, Type: v[0], Name: v[1], Key: v[2], Value: raw}
	s.mu.Lock()
	u := &s.hooks.ui
	uiUpsert(u, &u.initialStates, e, func(o UIInitialState) bool {
		return o.AppID == e.AppID && o.Type == e.Type && o.Name == e.Name && o.Key == e.Key
	}, func(t *UIInitialState, id int) { t.ID = id }, func(t UIInitialState) int { return t.ID })
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleInitialStateDelete serves DELETE .../api/v1/ui/initial-state.
func (s *Server) handleInitialStateDelete(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "type", "name", "key")
	if !ok {
		return
	}
	s.mu.Lock()
	n := uiRemove(&s.hooks.ui.initialStates, func(o UIInitialState) bool {
		return o.AppID == p.appID && o.Type == v[0] && o.Name == v[1] && o.Key == v[2]
	})
	s.mu.Unlock()
	if n == 0 {
		writeOCS(w, r, http.StatusNotFound, "No such InitialState", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleInitialStateGet serves GET .../api/v1/ui/initial-state.
func (s *Server) handleInitialStateGet(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "type", "name", "key")
	if !ok {
		return
	}
	s.mu.Lock()
	e, found := uiFind(s.hooks.ui.initialStates, func(o UIInitialState) bool {
		return o.AppID == p.appID && o.Type == v[0] && o.Name == v[1] && o.Key == v[2]
	})
	s.mu.Unlock()
	if !found {
		writeOCS(w, r, http.StatusNotFound, "No such InitialState", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", e)
}

// handleScriptSet serves POST .../api/v1/ui/script.
func (s *Server) handleScriptSet(w http.ResponseWriter, r *http.Request, p principal) {
	params, v, ok := uiParams(w, r, "type", "name", "path")
	if !ok {
		return
	}
	e := UIScript{AppID: p.appID, Type: v[0], Name: v[1], Path: strings.TrimLeft(v[2], "/"), AfterAppID: paramStringOr(params, "afterAppId", "")}
	s.mu.Lock()
	u := &s.hooks.ui
	uiUpsert(u, &u.scripts, e, func(o UIScript) bool {
		return o.AppID == e.AppID && o.Type == e.Type && o.Name == e.Name && o.Path == e.Path
	}, func(t *UIScript, id int) { t.ID = id }, func(t UIScript) int { return t.ID })
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleScriptDelete serves DELETE .../api/v1/ui/script.
func (s *Server) handleScriptDelete(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "type", "name", "path")
	if !ok {
		return
	}
	path := strings.TrimLeft(v[2], "/")
	s.mu.Lock()
	n := uiRemove(&s.hooks.ui.scripts, func(o UIScript) bool {
		return o.AppID == p.appID && o.Type == v[0] && o.Name == v[1] && o.Path == path
	})
	s.mu.Unlock()
	if n == 0 {
		writeOCS(w, r, http.StatusNotFound, "No such Script", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleScriptGet serves GET .../api/v1/ui/script.
func (s *Server) handleScriptGet(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "type", "name", "path")
	if !ok {
		return
	}
	path := strings.TrimLeft(v[2], "/")
	s.mu.Lock()
	e, found := uiFind(s.hooks.ui.scripts, func(o UIScript) bool {
		return o.AppID == p.appID && o.Type == v[0] && o.Name == v[1] && o.Path == path
	})
	s.mu.Unlock()
	if !found {
		writeOCS(w, r, http.StatusNotFound, "No such Script", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", e)
}

// handleStyleSet serves POST .../api/v1/ui/style.
func (s *Server) handleStyleSet(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "type", "name", "path")
	if !ok {
		return
	}
	e := UIStyle{AppID: p.appID, Type: v[0], Name: v[1], Path: strings.TrimLeft(v[2], "/")}
	s.mu.Lock()
	u := &s.hooks.ui
	uiUpsert(u, &u.styles, e, func(o UIStyle) bool {
		return o.AppID == e.AppID && o.Type == e.Type && o.Name == e.Name && o.Path == e.Path
	}, func(t *UIStyle, id int) { t.ID = id }, func(t UIStyle) int { return t.ID })
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleStyleDelete serves DELETE .../api/v1/ui/style.
func (s *Server) handleStyleDelete(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "type", "name", "path")
	if !ok {
		return
	}
	path := strings.TrimLeft(v[2], "/")
	s.mu.Lock()
	n := uiRemove(&s.hooks.ui.styles, func(o UIStyle) bool {
		return o.AppID == p.appID && o.Type == v[0] && o.Name == v[1] && o.Path == path
	})
	s.mu.Unlock()
	if n == 0 {
		writeOCS(w, r, http.StatusNotFound, "No such Style", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleStyleGet serves GET .../api/v1/ui/style.
func (s *Server) handleStyleGet(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "type", "name", "path")
	if !ok {
		return
	}
	path := strings.TrimLeft(v[2], "/")
	s.mu.Lock()
	e, found := uiFind(s.hooks.ui.styles, func(o UIStyle) bool {
		return o.AppID == p.appID && o.Type == v[0] && o.Name == v[1] && o.Path == path
	})
	s.mu.Unlock()
	if !found {
		writeOCS(w, r, http.StatusNotFound, "No such Style", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", e)
}

// fileActionHandler serves POST .../api/v1/ui/files-actions-menu
// (version "1.0") and POST .../api/v2/ui/files-actions-menu ("2.0").
func (s *Server) fileActionHandler(version string) func(http.ResponseWriter, *http.Request, principal) {
	return func(w http.ResponseWriter, r *http.Request, p principal) {
		params, v, ok := uiParams(w, r, "name", "displayName", "actionHandler")
		if !ok {
			return
		}
		e := FileAction{AppID: p.appID, Name: v[0], DisplayName: v[1], ActionHandler: v[2],
			Icon: paramStringOr(params, "icon", ""), Mime: paramStringOr(params, "mime", "file"),
			Permissions: paramIntOr(params, "permissions", 31), Order: paramIntOr(params, "order", 0), Version: version}
		if version == "2.0" {
			e.DefaultAction = paramStringOr(params, "defaultAction", "")
		}
		s.mu.Lock()
		u := &s.hooks.ui
		uiUpsert(u, &u.fileActions, e, func(o FileAction) bool { return o.AppID == e.AppID && o.Name == e.Name },
			func(t *FileAction, id int) { t.ID = id }, func(t FileAction) int { return t.ID })
		s.mu.Unlock()
		writeOCS(w, r, http.StatusOK, "", nil)
	}
}

// handleFileActionDelete serves DELETE .../api/v1/ui/files-actions-menu.
func (s *Server) handleFileActionDelete(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "name")
	if !ok {
		return
	}
	s.mu.Lock()
	n := uiRemove(&s.hooks.ui.fileActions, func(o FileAction) bool { return o.AppID == p.appID && o.Name == v[0] })
	s.mu.Unlock()
	if n == 0 {
		writeOCS(w, r, http.StatusNotFound, "FileActionMenu not found", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleFileActionGet serves GET .../api/v1/ui/files-actions-menu.
func (s *Server) handleFileActionGet(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "name")
	if !ok {
		return
	}
	s.mu.Lock()
	e, found := uiFind(s.hooks.ui.fileActions, func(o FileAction) bool { return o.AppID == p.appID && o.Name == v[0] })
	s.mu.Unlock()
	if !found {
		writeOCS(w, r, http.StatusNotFound, "FileActionMenu not found", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", e)
}

// handleSettingsSet serves POST .../api/v1/ui/settings: formScheme is an
// object with an "id"; AppAPI forces storage_type "external".
func (s *Server) handleSettingsSet(w http.ResponseWriter, r *http.Request, p principal) {
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	scheme, ok := params["formScheme"].(map[string]any)
	if !ok {
		writeOCS(w, r, ocsServerError, "Internal Server Error: formScheme must be an array", nil)
		return
	}
	id, ok := paramString(scheme, "id")
	if !ok || id == "" {
		writeOCS(w, r, http.StatusBadRequest, "Declarative settings form could not be registered", nil)
		return
	}
	scheme["storage_type"] = "external"
	raw, _ := json.Marshal(scheme)
	e := SettingsForm{AppID: p.appID, FormID: id, Scheme: raw}
	s.mu.Lock()
	u := &s.hooks.ui
	replaced := false
	for i, o := range u.forms {
		if o.AppID == e.AppID && o.FormID == e.FormID {
			u.forms[i], replaced = e, true
		}
	}
	if !replaced {
		u.forms = append(u.forms, e)
	}
	s.mu.Unlock()
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleSettingsDelete serves DELETE .../api/v1/ui/settings.
func (s *Server) handleSettingsDelete(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "formId")
	if !ok {
		return
	}
	s.mu.Lock()
	n := uiRemove(&s.hooks.ui.forms, func(o SettingsForm) bool { return o.AppID == p.appID && o.FormID == v[0] })
	s.mu.Unlock()
	if n == 0 {
		writeOCS(w, r, http.StatusNotFound, "Settings form not found", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleSettingsGet serves GET .../api/v1/ui/settings.
func (s *Server) handleSettingsGet(w http.ResponseWriter, r *http.Request, p principal) {
	_, v, ok := uiParams(w, r, "formId")
	if !ok {
		return
	}
	s.mu.Lock()
	e, found := uiFind(s.hooks.ui.forms, func(o SettingsForm) bool { return o.AppID == p.appID && o.FormID == v[0] })
	s.mu.Unlock()
	if !found {
		writeOCS(w, r, http.StatusNotFound, "Settings form not found", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", e.Scheme)
}
