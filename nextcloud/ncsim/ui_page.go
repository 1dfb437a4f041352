package ncsim

import (
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim/shell"
)

// renderPage writes a logged-in page for uid, in uid's language and
// themes, with the app menu (Nav) filled in when the caller left it empty.
func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, status int, uid string, d shell.Page) {
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
	shell.WritePage(w, status, d)
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
	d := shell.Page{Title: entry.DisplayName, AppID: "app_api", Content: `<div id="content"></div>`}
	for _, st := range states {
		d.InitialStates = append(d.InitialStates, shell.InitialState{ID: "app_api-" + st.Key, Value: base64.StdEncoding.EncodeToString(st.Value)})
	}
	d.Nav = s.navEntries(uid, "app_api_"+appID+"_"+name)
	d.InitialStates = append(d.InitialStates, shell.InitialState{ID: "core-apps", Value: base64.StdEncoding.EncodeToString([]byte(navJSON(d.Nav)))})
	for _, sc := range scripts {
		d.Scripts = append(d.Scripts, proxyPrefix+appID+"/"+sc.Path+".js")
	}
	for _, st := range styles {
		d.Styles = append(d.Styles, proxyPrefix+appID+"/"+st.Path+".css")
	}
	s.renderPage(w, r, http.StatusOK, uid, d)
}
