package ncsim

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// layoutTemplate is a trimmed core/templates/layout.user.php (server
// index copy 48343592, commit fc1bfee8): <html lang> and data-locale are
// the user's, the head carries the user and request token, the theming
// app's stylesheets (ThemeInjectionService::injectHeaders: the default
// theme on :root, the light and dark themes under their media queries,
// then every theme on [data-theme-<id>]), deferred classic scripts with the
// page nonce (Nextcloud adds type="module" only for .mjs files), the
// translation scripts ExAppUIL10NMiddleware inserts before </head>, and
// <body> has data-theme-<id> for each theme the user enabled. Initial
// states are hidden inputs with base64 JSON; the header has the logo, the
// app menu and the user menu; the page content sits in <main id="content">.
var layoutTemplate = template.Must(template.New("layout").Parse(`<!DOCTYPE html>
<html class="ng-csp" data-placeholder-focus="false" lang="{{.Lang}}" data-locale="{{.Locale}}" translate="no">
<head data-user="{{.UID}}" data-user-displayname="{{.DisplayName}}" data-requesttoken="{{.RequestToken}}">
<meta charset="utf-8">
<title>{{.Title}} - Nextcloud</title>
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="icon" href="/core/img/favicon.svg">
<link rel="stylesheet" href="/index.php/apps/theming/theme/default.css?plain=1" class="theme">
<link rel="stylesheet" href="/index.php/apps/theming/theme/light.css?plain=1" media="(prefers-color-scheme: light)" class="theme">
<link rel="stylesheet" href="/index.php/apps/theming/theme/dark.css?plain=1" media="(prefers-color-scheme: dark)" class="theme">
<link rel="stylesheet" href="/index.php/apps/theming/theme/light.css?plain=0" class="theme">
<link rel="stylesheet" href="/index.php/apps/theming/theme/dark.css?plain=0" class="theme">
<link rel="stylesheet" href="/core/css/ncsim-server.css">
{{range .Styles}}<link rel="stylesheet" href="{{.}}">
{{end}}<script nonce="{{.Nonce}}">
window._oc_webroot = "";
window._oc_appswebroots = {"app_api": "/apps/app_api", "files": "/apps/files", "settings": "/apps/settings"};
window.oc_config = {{.Config}};
window.OC = window.OC || {};
OC.webroot = "";
OC.config = window.oc_config;
OC.isUserAdmin = function () { return {{.Admin}}; };
OC.requestToken = {{.RequestToken}};
OC.getLanguage = function () { return document.documentElement.lang; };
OC.getLocale = function () { return document.documentElement.dataset.locale; };
` + l10nJS + `
</script>
{{range .Scripts}}<script nonce="{{$.Nonce}}" defer src="{{.}}"></script>
{{end}}{{range .L10NScripts}}<script nonce="{{$.Nonce}}" defer src="{{.}}"></script>
{{end}}</head>
<body id="body-user" {{.ThemeAttrs}}>
{{range .InitialStates}}<input type="hidden" id="initial-state-{{.ID}}" value="{{.Value}}">
{{end}}<div id="skip-actions"><a href="#app-content" class="button primary skip-navigation skip-content">Skip to main content</a></div>
<header id="header">
<div class="header-left"><a href="/index.php/apps/files/" id="nextcloud" aria-label="Go to Files"><div class="logo logo-icon"></div></a>
<nav id="header-left__appmenu" aria-label="Applications menu"><ul>
{{range .Nav}}<li><a id="{{.ID}}" href="{{.Href}}"{{if .Active}} class="active" aria-current="page"{{end}}><img src="{{.Icon}}" alt=""><span>{{.Name}}</span></a></li>
{{end}}</ul></nav></div>
<div class="header-right"><div id="user-menu"><details><summary aria-label="Settings menu"><span class="avatar" aria-hidden="true">{{.Initial}}</span></summary><ul>
<li><span class="user-menu__name">{{.DisplayName}}</span></li>
<li><a id="personal" href="/index.php/settings/user">Personal settings</a></li>
{{if .Admin}}<li><a id="admin_settings" href="/index.php/settings/admin/declarative_settings">Administration settings</a></li>
{{end}}<li><a id="logout" href="/index.php/logout">Log out</a></li>
</ul></details></div></div>
</header>
<main id="content" class="app-{{.AppID}}">
<h1 class="hidden-visually" id="page-heading-level-1">{{.Title}}</h1>
{{.Content}}
</main>
</body>
</html>
`))

// l10nJS is the part of core's OC.L10N that ExApp translation scripts use
// (core/src/OC/l10n.js, index copy 3344789958, and l10n-registry.js, index
// copy 3381148826): register() stores the bundle where @nextcloud/l10n
// reads it, with core's plural rule for the page language (_getPlural,
// the language groups the simulator's users need: one form for ja, zh,
// ko, ...; n != 1 for de, en, es, ...; the French rule for fr, pt_BR).
const l10nJS = `OC.L10N = {
  register: function (app, bundle) {
    window._oc_l10n_registry_translations = window._oc_l10n_registry_translations || {};
    window._oc_l10n_registry_plural_functions = window._oc_l10n_registry_plural_functions || {};
    window._oc_l10n_registry_translations[app] = Object.assign(window._oc_l10n_registry_translations[app] || {}, bundle);
    window._oc_l10n_registry_plural_functions[app] = OC.L10N._getPlural;
  },
  _getPlural: function (n) {
    var lang = (OC.getLanguage() || 'en').replace('-', '_').split('_')[0];
    if (['az', 'id', 'ja', 'ka', 'km', 'ko', 'ms', 'th', 'tr', 'vi', 'zh'].indexOf(lang) >= 0) { return 0; }
    if (['fr', 'hi', 'hy', 'ln', 'mg', 'ti', 'wa'].indexOf(lang) >= 0 || OC.getLanguage() === 'pt_BR') { return (n === 0 || n === 1) ? 0 : 1; }
    return n === 1 ? 0 : 1;
  }
};
OC.L10n = OC.L10N;`

// pageData fills layoutTemplate.
type pageData struct {
	Title, UID, DisplayName string
	Initial                 string // first letter of the display name, for the avatar
	Lang, Locale            string
	RequestToken, Nonce     string
	Admin                   bool
	Config                  template.JS
	Styles, Scripts         []string
	L10NScripts             []string
	ThemeAttrs              template.HTMLAttr // data-theme-<id> ... data-themes="..."
	InitialStates           []pageState
	Nav                     []navEntry
	AppID                   string
	Content                 template.HTML
}

type pageState struct{ ID, Value string }

// pageCSP is the Content-Security-Policy of a TemplateResponse (Nextcloud's
// default ContentSecurityPolicy with the page nonce; believed, not checked
// against a live server).
func pageCSP(nonce string) string {
	return "default-src 'none';base-uri 'none';manifest-src 'self';" +
		"script-src 'nonce-" + nonce + "';script-src-elem 'strict-dynamic' 'nonce-" + nonce + "';" +
		"style-src 'self' 'unsafe-inline';img-src 'self' data: blob:;font-src 'self' data:;" +
		"connect-src 'self';media-src 'self';frame-ancestors 'self';form-action 'self'"
}

// renderPage writes a logged-in page for uid, in uid's language and
// themes, with the app menu (Nav) filled in when the caller left it empty.
func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, status int, uid string, d pageData) {
	s.mu.Lock()
	u := s.users[uid]
	d.UID, d.DisplayName = uid, uid
	if u != nil {
		d.DisplayName = u.displayName
		d.Admin = u.admin
	}
	s.mu.Unlock()
	if rs := []rune(d.DisplayName); len(rs) > 0 {
		d.Initial = strings.ToUpper(string(rs[0]))
	}
	d.Lang = s.language(uid, r)
	d.Locale = s.UserValue(uid, "core", "locale", d.Lang)
	d.L10NScripts = s.l10nScripts(r.URL.RequestURI(), d.Lang)
	var attrs []string
	enabled := s.enabledThemes(uid)
	for _, t := range enabled {
		if slices.Contains(themes, t) {
			attrs = append(attrs, "data-theme-"+t)
		}
	}
	d.ThemeAttrs = template.HTMLAttr(strings.Join(attrs, " ") + ` data-themes="` + template.HTMLEscapeString(strings.Join(enabled, ",")) + `"`)
	if d.Nav == nil {
		d.Nav = s.navEntries(uid, "")
	}
	d.Nonce = randomNonce()
	d.RequestToken = s.requestToken(uid)
	cfg, _ := json.Marshal(map[string]any{
		"modRewriteWorking": s.PrettyURLs, "version": s.ServerVersion + ".0", "versionstring": s.ServerVersion,
		"session_lifetime": 86400, "session_keepalive": true, "enable_non-accessible_features": true,
	})
	d.Config = template.JS(cfg)
	var buf bytes.Buffer
	if err := layoutTemplate.Execute(&buf, d); err != nil {
		http.Error(w, "ncsim: render page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pageCSP(d.Nonce))
	h.Set("Cache-Control", "no-cache, no-store, must-revalidate")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// requestToken returns the CSRF token shown to uid's pages. The simulator
// does not check it.
func (s *Server) requestToken(uid string) string {
	return b64(uid + ":" + s.InstanceID)
}

// requireLogin returns the logged-in user or redirects to the login page
// (with redirect_url) and reports false.
func (s *Server) requireLogin(w http.ResponseWriter, r *http.Request) (string, bool) {
	p := s.authenticate(r)
	if p.hasUser() {
		return p.uid, true
	}
	http.Redirect(w, r, "/index.php/login?redirect_url="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
	return "", false
}

// handleEmbeddedPage serves GET /index.php/apps/app_api/embedded/{appId}/{name}[/{other}]
// (TopMenuController::viewExAppPage): the top-menu page of an ExApp with its
// initial states (app "app_api"), up to 10 scripts and its styles, all
// loaded through the proxy. 404 if the app is disabled, the entry unknown,
// or admin-only for a non-admin.
func (s *Server) handleEmbeddedPage(w http.ResponseWriter, r *http.Request) {
	uid, ok := s.requireLogin(w, r)
	if !ok {
		return
	}
	appID, name := r.PathValue("appId"), r.PathValue("name")
	admin := s.isAdmin(uid)
	s.mu.Lock()
	a, known := s.apps[appID]
	entry, found := uiFind(s.hooks.ui.topMenus, func(m TopMenuEntry) bool { return m.AppID == appID && m.Name == name })
	page := func(aid, typ, n string) bool { return aid == appID && typ == "top_menu" && n == name }
	states := uiFilter(s.hooks.ui.initialStates, func(e UIInitialState) bool { return page(e.AppID, e.Type, e.Name) })
	scripts := uiFilter(s.hooks.ui.scripts, func(e UIScript) bool { return page(e.AppID, e.Type, e.Name) })
	styles := uiFilter(s.hooks.ui.styles, func(e UIStyle) bool { return page(e.AppID, e.Type, e.Name) })
	enabled := known && a.enabled
	s.mu.Unlock()
	if !enabled || !found || (entry.AdminRequired == 1 && !admin) {
		http.NotFound(w, r)
		return
	}
	if len(scripts) > 10 {
		http.Error(w, "More than10JS files on one page are not supported.", http.StatusInternalServerError)
		return
	}
	d := pageData{Title: entry.DisplayName, AppID: "app_api", Content: `<div id="content"></div>`}
	for _, st := range states {
		d.InitialStates = append(d.InitialStates, pageState{ID: "app_api-" + st.Key, Value: base64.StdEncoding.EncodeToString(st.Value)})
	}
	d.Nav = s.navEntries(uid, "app_api_"+appID+"_"+name)
	d.InitialStates = append(d.InitialStates, pageState{ID: "core-apps", Value: base64.StdEncoding.EncodeToString([]byte(navJSON(d.Nav)))})
	for _, sc := range scripts {
		d.Scripts = append(d.Scripts, proxyPrefix+appID+"/"+sc.Path+".js")
	}
	for _, st := range styles {
		d.Styles = append(d.Styles, proxyPrefix+appID+"/"+st.Path+".css")
	}
	s.renderPage(w, r, http.StatusOK, uid, d)
}
