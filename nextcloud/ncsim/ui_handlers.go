package ncsim

import (
	"encoding/json"
	"net/http"
	"strings"
)

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
// be a JSON object or array. Setting a key again replaces its value in
// place, as app_api's InitialStateService::setExAppInitialState does
// (insertOrUpdate on the existing row's id; v34.0.3,
// lib/Service/UI/InitialStateService.php); the embedded page reads the
// states on every load (lib/Controller/TopMenuController.php).
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

// fileActionHandler serves POST .../api/v1/ui/files-actions-menu
// (version "1.0") and POST .../api/v2/ui/files-actions-menu ("2.0").
func (s *Server) fileActionHandler(version string) func(http.ResponseWriter, *http.Request, principal) {
	return func(w http.ResponseWriter, r *http.Request, p principal) {
		params, v, ok := uiParams(w, r, "name", "displayName", "actionHandler")
		if !ok {
			return
		}
		// FilesActionsMenuService::registerFileActionMenu trims the leading
		// "/" of the handler and the icon.
		e := FileAction{AppID: p.appID, Name: v[0], DisplayName: v[1], ActionHandler: strings.TrimLeft(v[2], "/"),
			Icon: strings.TrimLeft(paramStringOr(params, "icon", ""), "/"), Mime: paramStringOr(params, "mime", "file"),
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
