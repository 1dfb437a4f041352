package nextcloud

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	hs "github.com/hybrid-search/hybridsearch"
)

// appAPI is the OCS base of AppAPI's endpoints. v1, as nc_py_api uses.
const appAPI = "/ocs/v1.php/apps/app_api"

// SetInitProgress reports init progress (0..100) to AppAPI. At 100 AppAPI
// enables the app and calls its /enabled endpoint. Made with no user.
func (c *Client) SetInitProgress(ctx context.Context, progress int) error {
	if progress < 0 || progress > 100 {
		return errorf(hs.EINVALID, "set init progress: %d outside 0..100", progress)
	}
	body := map[string]any{"progress": progress}
	if err := c.ocs(ctx, "", http.MethodPut, appAPI+"/ex-app/status", nil, body, nil); err != nil {
		return err
	}
	return nil
}

// SetInitError reports that init failed with msg. AppAPI keeps the
// progress and shows msg to the admin. Made with no user.
func (c *Client) SetInitError(ctx context.Context, msg string) error {
	if msg == "" {
		return errorf(hs.EINVALID, "set init error: empty message")
	}
	body := map[string]any{"progress": 0, "error": msg}
	return c.ocs(ctx, "", http.MethodPut, appAPI+"/ex-app/status", nil, body, nil)
}

// AppEnabled reports whether AppAPI has this app enabled. It works while
// the app is disabled too.
func (c *Client) AppEnabled(ctx context.Context) (bool, error) {
	var enabled json.RawMessage // the DB column: 1 or 0, or a bool
	err := c.ocs(ctx, "", http.MethodGet, appAPI+"/ex-app/state", nil, nil, &enabled)
	return jsonBool(enabled), err
}

// TopMenu is an entry in Nextcloud's top navigation that opens an
// embedded page of the app.
type TopMenu struct {
	Name          string // unique per app, part of the page URL
	DisplayName   string
	Icon          string // path relative to the app root, e.g. "img/app.svg"; "" = default
	AdminRequired bool   // only admins see it
}

// RegisterTopMenu adds or replaces a top-menu entry.
func (c *Client) RegisterTopMenu(ctx context.Context, m TopMenu) error {
	if m.Name == "" || m.DisplayName == "" {
		return errorf(hs.EINVALID, "register top menu: name and display name are required")
	}
	admin := 0
	if m.AdminRequired {
		admin = 1
	}
	body := map[string]any{"name": m.Name, "displayName": m.DisplayName, "icon": m.Icon, "adminRequired": admin}
	return c.ocs(ctx, "", http.MethodPost, appAPI+"/api/v1/ui/top-menu", nil, body, nil)
}

// UnregisterTopMenu removes a top-menu entry with its initial states,
// scripts and styles. ENOTFOUND if there is none.
func (c *Client) UnregisterTopMenu(ctx context.Context, name string) error {
	q := url.Values{"name": {name}}
	return c.ocs(ctx, "", http.MethodDelete, appAPI+"/api/v1/ui/top-menu", q, nil, nil)
}

// SetInitialState sets state key of the top-menu page menu to value, which
// must encode as a JSON object or array. The page reads it with
// loadState('app_api', key).
func (c *Client) SetInitialState(ctx context.Context, menu, key string, value any) error {
	body := map[string]any{"type": "top_menu", "name": menu, "key": key, "value": value}
	return c.ocs(ctx, "", http.MethodPost, appAPI+"/api/v1/ui/initial-state", nil, body, nil)
}

// UnsetInitialState removes state key of the page menu.
func (c *Client) UnsetInitialState(ctx context.Context, menu, key string) error {
	q := url.Values{"type": {"top_menu"}, "name": {menu}, "key": {key}}
	return c.ocs(ctx, "", http.MethodDelete, appAPI+"/api/v1/ui/initial-state", q, nil, nil)
}

// RegisterScript makes the page menu load the app's script at path
// (e.g. "js/app-main", without ".js"), after afterAppID's scripts if set.
func (c *Client) RegisterScript(ctx context.Context, menu, path, afterAppID string) error {
	body := map[string]any{"type": "top_menu", "name": menu, "path": path, "afterAppId": afterAppID}
	return c.ocs(ctx, "", http.MethodPost, appAPI+"/api/v1/ui/script", nil, body, nil)
}

// UnregisterScript removes a script registered with RegisterScript.
func (c *Client) UnregisterScript(ctx context.Context, menu, path string) error {
	q := url.Values{"type": {"top_menu"}, "name": {menu}, "path": {path}}
	return c.ocs(ctx, "", http.MethodDelete, appAPI+"/api/v1/ui/script", q, nil, nil)
}

// RegisterStyle makes the page menu load the app's stylesheet at path
// (e.g. "css/style", without ".css").
func (c *Client) RegisterStyle(ctx context.Context, menu, path string) error {
	body := map[string]any{"type": "top_menu", "name": menu, "path": path}
	return c.ocs(ctx, "", http.MethodPost, appAPI+"/api/v1/ui/style", nil, body, nil)
}

// UnregisterStyle removes a stylesheet registered with RegisterStyle.
func (c *Client) UnregisterStyle(ctx context.Context, menu, path string) error {
	q := url.Values{"type": {"top_menu"}, "name": {menu}, "path": {path}}
	return c.ocs(ctx, "", http.MethodDelete, appAPI+"/api/v1/ui/style", q, nil, nil)
}

// ListUsers returns the ids of all Nextcloud users.
func (c *Client) ListUsers(ctx context.Context) ([]hs.UserID, error) {
	var ids []hs.UserID
	if err := c.ocs(ctx, "", http.MethodGet, appAPI+"/api/v1/users", nil, nil, &ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// Nextcloud log levels for Log.
const (
	LogDebug   = 0
	LogInfo    = 1
	LogWarning = 2
	LogError   = 3
	LogFatal   = 4
)

// Log writes msg to Nextcloud's log at level (LogDebug..LogFatal).
func (c *Client) Log(ctx context.Context, level int, msg string) error {
	if level < LogDebug || level > LogFatal {
		return errorf(hs.EINVALID, "log: level %d outside 0..4", level)
	}
	body := map[string]any{"level": level, "message": msg}
	return c.ocs(ctx, "", http.MethodPost, appAPI+"/api/v1/log", nil, body, nil)
}

// configValue is one entry of the config and preference get-values answers.
type configValue struct {
	Key   string          `json:"configkey"`
	Value json.RawMessage `json:"configvalue"`
}

// SetAppConfig stores an app config value (where admin settings live).
// sensitive values are stored encrypted.
func (c *Client) SetAppConfig(ctx context.Context, key, value string, sensitive bool) error {
	body := map[string]any{"configKey": key, "configValue": value, "sensitive": sensitive}
	return c.ocs(ctx, "", http.MethodPost, appAPI+"/api/v1/ex-app/config", nil, body, nil)
}

// GetAppConfig returns the app config values of keys; keys without a
// value are absent from the map.
func (c *Client) GetAppConfig(ctx context.Context, keys ...string) (map[string]string, error) {
	return c.getValues(ctx, "", appAPI+"/api/v1/ex-app/config/get-values", keys)
}

// SetUserPreference stores a preference of user (where personal settings
// live).
func (c *Client) SetUserPreference(ctx context.Context, user hs.UserID, key, value string) error {
	if err := requireUser("set user preference", user); err != nil {
		return err
	}
	body := map[string]any{"configKey": key, "configValue": value}
	return c.ocs(ctx, user, http.MethodPost, appAPI+"/api/v1/ex-app/preference", nil, body, nil)
}

// GetUserPreferences returns user's preferences of keys; keys without a
// value are absent from the map.
func (c *Client) GetUserPreferences(ctx context.Context, user hs.UserID, keys ...string) (map[string]string, error) {
	if err := requireUser("get user preferences", user); err != nil {
		return nil, err
	}
	return c.getValues(ctx, user, appAPI+"/api/v1/ex-app/preference/get-values", keys)
}

func (c *Client) getValues(ctx context.Context, user hs.UserID, path string, keys []string) (map[string]string, error) {
	if keys == nil {
		keys = []string{}
	}
	var vals []configValue
	if err := c.ocs(ctx, user, http.MethodPost, path, nil, map[string]any{"configKeys": keys}, &vals); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(vals))
	for _, v := range vals {
		out[v.Key] = jsonString(v.Value)
	}
	return out, nil
}
