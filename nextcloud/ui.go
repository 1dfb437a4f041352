package nextcloud

import (
	"context"
	"net/http"
	"net/url"

	hs "github.com/hybrid-search/hybridsearch"
)

// SettingsForm is a declarative settings form (Nextcloud's
// IDeclarativeSettingsForm schema). AppAPI stores it as given, forces
// storage_type "external" and keeps the values itself: an admin form's in
// the app config (read them with GetAppConfig), a personal form's in each
// user's preferences (GetUserPreferences). Field ids must be unique across
// the app's forms.
type SettingsForm struct {
	ID          string          `json:"id"`
	Priority    int             `json:"priority"`
	SectionType string          `json:"section_type"` // "admin" or "personal"
	SectionID   string          `json:"section_id"`   // AppAPI's "declarative_settings" or "ai_integration_team"
	StorageType string          `json:"storage_type"` // AppAPI sets "external"
	Title       string          `json:"title"`
	Description string          `json:"description,omitempty"`
	DocURL      string          `json:"doc_url,omitempty"`
	Fields      []SettingsField `json:"fields"`
}

// SettingsField is one field of a SettingsForm. Type is one of text,
// password, email, tel, url, number, checkbox, select, multi-select,
// radio, multi-checkbox; the last four need Options. Sensitive (text and
// password only) makes AppAPI store the value encrypted, and then
// GetAppConfig returns the encrypted text: keep secrets out of forms.
type SettingsField struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Type        string `json:"type"`
	Placeholder string `json:"placeholder,omitempty"`
	Label       string `json:"label,omitempty"`
	Options     any    `json:"options,omitempty"` // []string for select, []SettingsOption otherwise
	Default     any    `json:"default,omitempty"`
	Sensitive   bool   `json:"sensitive,omitempty"`
}

// SettingsOption is a named choice of a radio or multi-checkbox field.
type SettingsOption struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// RegisterSettingsForm adds or replaces a declarative settings form
// (POST /api/v1/ui/settings). Made with no user.
func (c *Client) RegisterSettingsForm(ctx context.Context, f SettingsForm) error {
	if f.ID == "" || (f.SectionType != "admin" && f.SectionType != "personal") {
		return errorf(hs.EINVALID, "register settings form: an id and a section type admin or personal are required")
	}
	if f.StorageType == "" {
		f.StorageType = "external"
	}
	return c.ocs(ctx, "", http.MethodPost, appAPI+"/api/v1/ui/settings", nil, map[string]any{"formScheme": f}, nil)
}

// UnregisterSettingsForm removes a form. ENOTFOUND if there is none.
func (c *Client) UnregisterSettingsForm(ctx context.Context, formID string) error {
	return c.ocs(ctx, "", http.MethodDelete, appAPI+"/api/v1/ui/settings", url.Values{"formId": {formID}}, nil, nil)
}

// FileAction is an entry in the Files app's action menu (AppAPI's
// files-actions-menu, version 2.0). Clicking it POSTs {"files": [node...]}
// to ActionHandler through the AppAPI proxy, as the logged-in user; an
// answer {"redirect_handler": "x"} sends the browser to the app's page
// /apps/app_api/embedded/<app>/x?fileIds=<ids>.
type FileAction struct {
	Name          string // unique per app
	DisplayName   string
	ActionHandler string // route on the app, e.g. "api/files/similar"
	Icon          string // path relative to the app root; "" = AppAPI's icon
	// MIME lists comma-separated parts of MIME types; the action shows for
	// files whose type contains one of them ("text/, application/pdf").
	MIME  string
	Order int
}

// RegisterFileAction adds or replaces a version 2.0 file action
// (POST /api/v2/ui/files-actions-menu). Made with no user.
func (c *Client) RegisterFileAction(ctx context.Context, a FileAction) error {
	if a.Name == "" || a.DisplayName == "" || a.ActionHandler == "" {
		return errorf(hs.EINVALID, "register file action: name, display name and handler are required")
	}
	body := map[string]any{"name": a.Name, "displayName": a.DisplayName, "actionHandler": a.ActionHandler,
		"icon": a.Icon, "mime": a.MIME, "permissions": 1, "order": a.Order}
	return c.ocs(ctx, "", http.MethodPost, "/ocs/v1.php/apps/app_api/api/v2/ui/files-actions-menu", nil, body, nil)
}

// UnregisterFileAction removes a file action. ENOTFOUND if there is none.
func (c *Client) UnregisterFileAction(ctx context.Context, name string) error {
	return c.ocs(ctx, "", http.MethodDelete, appAPI+"/api/v1/ui/files-actions-menu", url.Values{"name": {name}}, nil, nil)
}
