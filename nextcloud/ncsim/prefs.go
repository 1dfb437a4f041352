package ncsim

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim/shell"
)

// themes are the themes a user may enable (shell.Themes).
var themes = shell.Themes()

// SetUserValue stores a user preference, as IConfig::setUserValue does
// (oc_preferences). The page shell reads two of them: core/lang (the
// user's language, e.g. "de") and theming/enabled-themes (a JSON list such
// as ["dark"]). It panics if the user is unknown.
func (s *Server) SetUserValue(uid, app, key, value string) {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[uid]
	if !ok {
		panic("ncsim: SetUserValue: no user " + uid)
	}
	if u.prefs == nil {
		u.prefs = map[string]map[string]string{}
	}
	if u.prefs[app] == nil {
		u.prefs[app] = map[string]string{}
	}
	u.prefs[app][key] = value
}

// UserValue returns a user preference, or def when it is not set.
func (s *Server) UserValue(uid, app, key, def string) string {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	if u, ok := s.users[uid]; ok {
		if v, ok := u.prefs[app][key]; ok {
			return v
		}
	}
	return def
}

// language is the language of uid's pages: the core/lang preference, else
// the first language the browser accepts, else "en" (a trimmed
// L10N\Factory::findLanguage: no default_language or force_language).
func (s *Server) language(uid string, r *http.Request) string {
	if lang := s.UserValue(uid, "core", "lang", ""); lang != "" {
		return lang
	}
	if r != nil {
		first, _, _ := strings.Cut(r.Header.Get("Accept-Language"), ",")
		first, _, _ = strings.Cut(strings.TrimSpace(first), ";")
		if first != "" && first != "*" {
			return strings.ReplaceAll(first, "-", "_")
		}
	}
	return "en"
}

// enabledThemes is theming/enabled-themes of uid, default ["default"]
// (ThemesService::getEnabledThemes).
func (s *Server) enabledThemes(uid string) []string {
	var out []string
	if err := json.Unmarshal([]byte(s.UserValue(uid, "theming", "enabled-themes", `["default"]`)), &out); err != nil {
		return []string{"default"}
	}
	return out
}

// handleThemeEnable serves PUT /ocs/v2.php/apps/theming/api/v1/theme/{themeId}/enable
// (UserThemeController::enableTheme, ThemesService::enableTheme): the
// theme replaces any enabled theme of the same type.
func (s *Server) handleThemeEnable(w http.ResponseWriter, r *http.Request) {
	s.changeTheme(w, r, true)
}

// handleThemeDisable serves DELETE /ocs/v2.php/apps/theming/api/v1/theme/{themeId}.
func (s *Server) handleThemeDisable(w http.ResponseWriter, r *http.Request) {
	s.changeTheme(w, r, false)
}

func (s *Server) changeTheme(w http.ResponseWriter, r *http.Request, enable bool) {
	p := s.authenticate(r)
	if !p.hasUser() {
		writeOCS(w, r, http.StatusUnauthorized, "Current user is not logged in", nil)
		return
	}
	id := r.PathValue("themeId")
	if !slices.Contains(themes, id) {
		writeOCS(w, r, http.StatusBadRequest, "Invalid theme id: "+id, nil)
		return
	}
	enabled := slices.DeleteFunc(s.enabledThemes(p.uid), func(t string) bool {
		return t == id || enable && slices.Contains(themes, t)
	})
	if enable {
		enabled = append(enabled, id)
	}
	raw, _ := json.Marshal(enabled)
	s.SetUserValue(p.uid, "theming", "enabled-themes", string(raw))
	writeOCS(w, r, http.StatusOK, "", nil)
}

// handleEditUser serves PUT /ocs/v{1,2}.php/cloud/users/{userId} with key
// "language" or "locale" for the logged-in user's own account (a part of
// provisioning_api UsersController::editUser).
func (s *Server) handleEditUser(w http.ResponseWriter, r *http.Request) {
	p := s.authenticate(r)
	if !p.hasUser() {
		writeOCS(w, r, http.StatusUnauthorized, "Current user is not logged in", nil)
		return
	}
	target := r.PathValue("userId")
	if target != p.uid && !s.isAdmin(p.uid) {
		writeOCS(w, r, http.StatusForbidden, "", nil)
		return
	}
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	key := paramStringOr(params, "key", "")
	value := paramStringOr(params, "value", "")
	switch key {
	case "language":
		s.SetUserValue(target, "core", "lang", value)
	case "locale":
		s.SetUserValue(target, "core", "locale", value)
	default:
		writeOCS(w, r, http.StatusBadRequest, "Unknown key "+key, nil) // the simulator knows only these two
		return
	}
	writeOCS(w, r, http.StatusOK, "", nil)
}
