package shell

import (
	"bytes"
	"html/template"
	"net/http"
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

// Page fills the layout of a logged-in page (layout.user.php).
type Page struct {
	Title, UID, DisplayName string
	Initial                 string // first letter of the display name, for the avatar
	Lang, Locale            string
	RequestToken, Nonce     string
	Admin                   bool
	Config                  template.JS // window.oc_config
	Styles, Scripts         []string
	L10NScripts             []string
	ThemeAttrs              template.HTMLAttr // data-theme-<id> ... data-themes="..."
	InitialStates           []InitialState
	Nav                     []NavEntry
	AppID                   string
	Content                 template.HTML
}

// InitialState is one initial state of a page: ID is "<app>-<key>", Value
// the base64 of its JSON.
type InitialState struct{ ID, Value string }

// NavEntry is a top navigation entry (INavigationManager's shape); pages
// also carry the list as the core-apps initial state.
type NavEntry struct {
	ID     string `json:"id"`
	Order  int    `json:"order"`
	Href   string `json:"href"`
	Icon   string `json:"icon"`
	Type   string `json:"type"`
	Name   string `json:"name"`
	Active bool   `json:"active"`
	App    string `json:"app"`
}

// csp is the Content-Security-Policy of a TemplateResponse (Nextcloud's
// default ContentSecurityPolicy with the page nonce; believed, not checked
// against a live server).
func csp(nonce string) string {
	return "default-src 'none';base-uri 'none';manifest-src 'self';" +
		"script-src 'nonce-" + nonce + "';script-src-elem 'strict-dynamic' 'nonce-" + nonce + "';" +
		"style-src 'self' 'unsafe-inline';img-src 'self' data: blob:;font-src 'self' data:;" +
		"connect-src 'self';media-src 'self';frame-ancestors 'self';form-action 'self'"
}

// WritePage writes p with status and the headers of a TemplateResponse.
// A template error answers 500.
func WritePage(w http.ResponseWriter, status int, p Page) {
	var buf bytes.Buffer
	if err := layoutTemplate.Execute(&buf, p); err != nil {
		http.Error(w, "ncsim: render page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp(p.Nonce))
	h.Set("Cache-Control", "no-cache, no-store, must-revalidate")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fragment executes t with data for a page's Content.
func fragment(t *template.Template, data any) (template.HTML, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}
