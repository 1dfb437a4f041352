package ncsim

import (
	"net/http"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim/shell"
)

// appAPIState holds the AppAPI side: UI registrations, app config and
// preferences, webhooks and deliveries, brute-force counters. Guarded by
// Server.mu (webhooks.runMu aside).
type appAPIState struct {
	ui            uiState
	webhooks      webhookState
	appConfig     map[string]map[string]*configValue // app id -> key -> value
	prefs         map[string]map[string]*configValue // app id NUL uid -> key -> value
	logs          []ExAppLog
	notifications []Notification
	throttle      map[string]int               // action|ip -> failed attempts
	l10n          map[string]map[string][]byte // app id -> installed l10n file -> content
	// changed is closed and replaced whenever an app's state changes.
	changed chan struct{}
}

func (s *Server) initAppAPI() {
	s.hooks.appConfig = map[string]map[string]*configValue{}
	s.hooks.prefs = map[string]map[string]*configValue{}
	s.hooks.throttle = map[string]int{}
	s.hooks.changed = make(chan struct{})
	// No one else can reach s yet: init runs under initOnce.
	s.subs = append(s.subs, s.queueWebhooks)
}

// ocsRoute registers h for method on path under both /ocs/v1.php and
// /ocs/v2.php.
func ocsRoute(mux *http.ServeMux, method, path string, h http.HandlerFunc) {
	mux.HandleFunc(method+" /ocs/v1.php"+path, h)
	mux.HandleFunc(method+" /ocs/v2.php"+path, h)
}

// routesAppAPI lists AppAPI's and webhook_listeners' routes. The proxy
// (/index.php/apps/app_api/proxy/) and HaRP (/exapps/) are dispatched in
// ServeHTTP.
func (s *Server) routesAppAPI(mux *http.ServeMux) {
	const aa = "/apps/app_api"
	api := s.appAPIAuth
	ocsRoute(mux, "PUT", aa+"/ex-app/status", api(s.handleInitStatus))
	ocsRoute(mux, "PUT", aa+"/apps/status/{appId}", api(s.handleInitStatusDeprecated))
	ocsRoute(mux, "GET", aa+"/ex-app/state", api(s.handleEnabledState))
	ocsRoute(mux, "POST", aa+"/api/v1/log", api(s.handleLog))
	ocsRoute(mux, "GET", aa+"/api/v1/users", api(s.handleUsersList))
	ocsRoute(mux, "POST", aa+"/api/v1/notification", api(s.handleNotification))

	ocsRoute(mux, "POST", aa+"/api/v1/ui/top-menu", api(s.handleTopMenuSet))
	ocsRoute(mux, "DELETE", aa+"/api/v1/ui/top-menu", api(s.handleTopMenuDelete))
	ocsRoute(mux, "GET", aa+"/api/v1/ui/top-menu", api(s.handleTopMenuGet))
	ocsRoute(mux, "POST", aa+"/api/v1/ui/initial-state", api(s.handleInitialStateSet))
	ocsRoute(mux, "DELETE", aa+"/api/v1/ui/initial-state", api(s.handleInitialStateDelete))
	ocsRoute(mux, "POST", aa+"/api/v1/ui/script", api(s.handleScriptSet))
	ocsRoute(mux, "DELETE", aa+"/api/v1/ui/script", api(s.handleScriptDelete))
	ocsRoute(mux, "POST", aa+"/api/v1/ui/style", api(s.handleStyleSet))
	ocsRoute(mux, "DELETE", aa+"/api/v1/ui/style", api(s.handleStyleDelete))
	ocsRoute(mux, "POST", aa+"/api/v1/ui/files-actions-menu", api(s.fileActionHandler("1.0")))
	ocsRoute(mux, "POST", aa+"/api/v2/ui/files-actions-menu", api(s.fileActionHandler("2.0")))
	ocsRoute(mux, "DELETE", aa+"/api/v1/ui/files-actions-menu", api(s.handleFileActionDelete))
	ocsRoute(mux, "POST", aa+"/api/v1/ui/settings", api(s.handleSettingsSet))
	ocsRoute(mux, "DELETE", aa+"/api/v1/ui/settings", api(s.handleSettingsDelete))

	setCfg, getCfg, delCfg := s.configHandlers(false)
	ocsRoute(mux, "POST", aa+"/api/v1/ex-app/config", api(setCfg))
	ocsRoute(mux, "POST", aa+"/api/v1/ex-app/config/get-values", api(getCfg))
	ocsRoute(mux, "DELETE", aa+"/api/v1/ex-app/config", api(delCfg))
	setPref, getPref, delPref := s.configHandlers(true)
	ocsRoute(mux, "POST", aa+"/api/v1/ex-app/preference", api(setPref))
	ocsRoute(mux, "POST", aa+"/api/v1/ex-app/preference/get-values", api(getPref))
	ocsRoute(mux, "DELETE", aa+"/api/v1/ex-app/preference", api(delPref))

	const wh = "/apps/webhook_listeners/api/v1/webhooks"
	hook := s.webhooksAuth
	ocsRoute(mux, "GET", wh, hook(s.handleWebhooksList))
	ocsRoute(mux, "POST", wh, hook(s.handleWebhookCreate))
	ocsRoute(mux, "GET", wh+"/{id}", hook(s.handleWebhookGet))
	ocsRoute(mux, "POST", wh+"/{id}", hook(s.handleWebhookUpdate))
	ocsRoute(mux, "DELETE", wh+"/{id}", hook(s.handleWebhookDelete))
	ocsRoute(mux, "DELETE", wh+"/byappid/{appid}", hook(s.handleWebhooksDeleteByApp))

	mux.HandleFunc("GET "+harpUserInfoPath, s.handleHaRPUserInfo)
	mux.HandleFunc("GET /index.php/apps/app_api/embedded/{appId}/{name}", s.handleEmbeddedPage)
	mux.HandleFunc("GET /index.php/apps/app_api/embedded/{appId}/{name}/{other...}", s.handleEmbeddedPage)
}

// routesCore lists the core routes: status.php, the user and capabilities
// OCS endpoints, login, logout and the landing pages. It ends with the
// catch-all that answers 501 and records the request.
func (s *Server) routesCore(mux *http.ServeMux) {
	mux.HandleFunc("GET /status.php", s.handleStatusPHP)
	ocsRoute(mux, "GET", "/cloud/user", s.handleCloudUser)
	ocsRoute(mux, "GET", "/cloud/capabilities", s.handleCapabilities)
	ocsRoute(mux, "GET", "/cloud/users", s.handleCloudUsers)
	ocsRoute(mux, "PUT", "/cloud/users/{userId}", s.handleEditUser)
	ocsRoute(mux, "PUT", "/apps/theming/api/v1/theme/{themeId}/enable", s.handleThemeEnable)
	ocsRoute(mux, "DELETE", "/apps/theming/api/v1/theme/{themeId}", s.handleThemeDisable)
	mux.HandleFunc("GET /apps/{appId}/l10n/{file}", s.handleAppL10N)
	mux.HandleFunc("GET /index.php/settings/admin", s.handleAdminSettings)
	mux.HandleFunc("GET /index.php/settings/admin/{section}", s.handleAdminSettings)
	mux.HandleFunc("GET /index.php/settings/user", s.handlePersonalSettings)
	mux.HandleFunc("GET /index.php/settings/user/{section}", s.handlePersonalSettings)
	ocsRoute(mux, "POST", "/settings/api/declarative/value", s.handleDeclarativeSetValue)
	ocsRoute(mux, "POST", "/settings/api/declarative/value-sensitive", s.handleDeclarativeSetValue)
	ocsRoute(mux, "GET", "/settings/api/declarative/forms", s.handleDeclarativeForms)
	shell.Routes(mux)
	mux.HandleFunc("GET /index.php/login", s.handleLoginPage)
	mux.HandleFunc("POST /index.php/login", s.handleLogin)
	mux.HandleFunc("GET /index.php/logout", s.handleLogout)
	mux.HandleFunc("GET /{$}", s.handleRoot)
	mux.HandleFunc("GET /index.php/{$}", s.handleRoot)
	mux.HandleFunc("GET /index.php/apps/files/{$}", s.handleFilesPage)
	mux.HandleFunc("GET /index.php/apps/files/files/{fileid}", s.handleFilesPage)
	mux.HandleFunc("GET /index.php/f/{fileid}", s.handlePermalink)
	mux.HandleFunc("GET /index.php/core/preview", s.handlePreview)
	mux.HandleFunc("GET /index.php/apps/notes/note/{id}", s.handleNotePage)
	mux.HandleFunc("GET /.well-known/", s.handleWellKnown)
	mux.HandleFunc("/", s.notImplemented)
}
