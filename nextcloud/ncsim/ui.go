package ncsim

import "encoding/json"

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
