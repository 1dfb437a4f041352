package ncsim

import (
	"fmt"
	iofs "io/fs"
	"net/http"
	"path"
	"slices"
	"strings"
)

// InstallTranslations installs an ExApp's l10n folder, the <lang>.js and
// <lang>.json files at the root of files, as AppAPI does when it installs
// an ExApp from the app store (ExAppArchiveFetcher::installTranslations
// copies the release's l10n/ into the apps folder). Nextcloud then serves
// them at /apps/<appId>/l10n/<file>, and ExAppUIL10NMiddleware loads
// <lang>.js into Files, settings and ExApp pages of users with that
// language. Installing again replaces the previous files.
func (s *Server) InstallTranslations(appID string, files iofs.FS) error {
	s.init()
	entries, err := iofs.ReadDir(files, ".")
	if err != nil {
		return fmt.Errorf("ncsim: translations of %s: %w", appID, err)
	}
	got := map[string][]byte{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || (path.Ext(name) != ".js" && path.Ext(name) != ".json") {
			continue
		}
		data, err := iofs.ReadFile(files, name)
		if err != nil {
			return fmt.Errorf("ncsim: translations of %s: %w", appID, err)
		}
		got[name] = data
	}
	s.mu.Lock()
	if s.hooks.l10n == nil {
		s.hooks.l10n = map[string]map[string][]byte{}
	}
	s.hooks.l10n[appID] = got
	s.mu.Unlock()
	return nil
}

// handleAppL10N serves GET /apps/{appId}/l10n/{file}: an installed ExApp
// translation file, as the web server serves files of the apps folder.
func (s *Server) handleAppL10N(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, ok := s.hooks.l10n[r.PathValue("appId")][r.PathValue("file")]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	ct := "application/json"
	if strings.HasSuffix(r.PathValue("file"), ".js") {
		ct = "text/javascript; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	_, _ = w.Write(data)
}

// l10nRoutes are the pages ExAppUIL10NMiddleware adds ExApp translations
// to, matched after "/index.php" and every "/apps" are removed from the
// request URI (app_api lib/Middleware/ExAppUIL10NMiddleware.php,
// routesToLoadL10N, v32.0.0 to v35.0.0beta4).
var l10nRoutes = []string{"/files/", "/settings/", "/app_api/embedded/"}

// l10nScripts returns the translation scripts ExAppUIL10NMiddleware
// inserts before </head> of a page at requestURI for a user of language
// lang: /apps/<appId>/l10n/<lang>.js of every enabled ExApp that ships
// that language, except for English.
func (s *Server) l10nScripts(requestURI, lang string) []string {
	uri := strings.ReplaceAll(strings.ReplaceAll(requestURI, "/index.php", ""), "/apps", "")
	if !slices.ContainsFunc(l10nRoutes, func(p string) bool { return strings.HasPrefix(uri, p) }) || lang == "en" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id, a := range s.apps {
		if _, ok := s.hooks.l10n[id][lang+".json"]; ok && a.enabled {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var out []string
	for _, id := range ids {
		out = append(out, "/apps/"+id+"/l10n/"+lang+".js")
	}
	return out
}
