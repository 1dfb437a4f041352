package ncsim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim/shell"
)

// statusPHP is status.php's answer, in Nextcloud's key order.
type statusPHP struct {
	Installed       bool   `json:"installed"`
	Maintenance     bool   `json:"maintenance"`
	NeedsDBUpgrade  bool   `json:"needsDbUpgrade"`
	Version         string `json:"version"`
	VersionString   string `json:"versionstring"`
	Edition         string `json:"edition"`
	ProductName     string `json:"productname"`
	ExtendedSupport bool   `json:"extendedSupport"`
}

// handleStatusPHP serves GET /status.php.
func (s *Server) handleStatusPHP(w http.ResponseWriter, r *http.Request) {
	body, _ := phpJSON(statusPHP{Installed: true, Version: s.ServerVersion + ".0", VersionString: s.ServerVersion,
		ProductName: "Nextcloud"}, false)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// versionParts splits ServerVersion into major, minor and micro.
func (s *Server) versionParts() [3]int {
	var out [3]int
	for i, p := range strings.SplitN(s.ServerVersion, ".", 3) {
		out[i], _ = strconv.Atoi(p)
	}
	return out
}

// userDetails is the part of OCS cloud/user (UsersController::getUser)
// the simulator knows, in Nextcloud's key order.
type userDetails struct {
	Enabled             bool           `json:"enabled"`
	StorageLocation     string         `json:"storageLocation"`
	ID                  string         `json:"id"`
	FirstLoginTimestamp int64          `json:"firstLoginTimestamp"`
	LastLoginTimestamp  int64          `json:"lastLoginTimestamp"`
	LastLogin           int64          `json:"lastLogin"`
	Backend             string         `json:"backend"`
	Subadmin            []string       `json:"subadmin"`
	Quota               map[string]any `json:"quota"`
	Manager             string         `json:"manager"`
	Email               *string        `json:"email"`
	AdditionalMail      []string       `json:"additional_mail"`
	DisplayNameLegacy   string         `json:"displayname"`
	DisplayName         string         `json:"display-name"`
	Phone               string         `json:"phone"`
	Address             string         `json:"address"`
	Website             string         `json:"website"`
	Twitter             string         `json:"twitter"`
	Groups              []string       `json:"groups"`
	Language            string         `json:"language"`
	Locale              string         `json:"locale"`
	NotifyEmail         *string        `json:"notify_email"`
	BackendCapabilities map[string]any `json:"backendCapabilities"`
}

// handleCloudUser serves GET /ocs/v{1,2}.php/cloud/user: the logged-in user.
func (s *Server) handleCloudUser(w http.ResponseWriter, r *http.Request) {
	p := s.authenticate(r)
	if !p.hasUser() {
		writeOCS(w, r, http.StatusUnauthorized, "Current user is not logged in", nil)
		return
	}
	s.mu.Lock()
	u, ok := s.users[p.uid]
	var d userDetails
	if ok {
		d = userDetails{
			Enabled: true, StorageLocation: "/var/www/html/data/" + u.uid, ID: u.uid, Backend: "Database",
			Subadmin: []string{}, Manager: "", AdditionalMail: []string{},
			Quota:             map[string]any{"free": 1 << 40, "used": 0, "total": 1 << 40, "relative": 0, "quota": -3},
			DisplayNameLegacy: u.displayName, DisplayName: u.displayName,
			Groups:              append([]string{}, u.groups...),
			Language:            "en",
			BackendCapabilities: map[string]any{"setDisplayName": true, "setPassword": true},
		}
	}
	s.mu.Unlock()
	if !ok {
		writeOCS(w, r, http.StatusUnauthorized, "Current user is not logged in", nil)
		return
	}
	writeOCS(w, r, http.StatusOK, "", d)
}

// handleCloudUsers serves GET /ocs/v{1,2}.php/cloud/users (admins only):
// {"users":[uid...]}.
func (s *Server) handleCloudUsers(w http.ResponseWriter, r *http.Request) {
	p := s.authenticate(r)
	switch {
	case !p.hasUser():
		writeOCS(w, r, http.StatusUnauthorized, "Current user is not logged in", nil)
	case !s.isAdmin(p.uid):
		writeOCS(w, r, http.StatusForbidden, "Logged in account must be an admin or sub admin", nil)
	default:
		writeOCS(w, r, http.StatusOK, "", map[string]any{"users": s.Users()})
	}
}

// handleCapabilities serves GET /ocs/v{1,2}.php/cloud/capabilities (a
// public page): the version and a minimal set of capabilities.
func (s *Server) handleCapabilities(w http.ResponseWriter, r *http.Request) {
	v := s.versionParts()
	type version struct {
		Major           int    `json:"major"`
		Minor           int    `json:"minor"`
		Micro           int    `json:"micro"`
		String          string `json:"string"`
		Edition         string `json:"edition"`
		ExtendedSupport bool   `json:"extendedSupport"`
	}
	caps := map[string]any{
		"core": map[string]any{
			"pollinterval": 60, "webdav-root": "remote.php/webdav", "reference-api": true,
			"mod-rewrite-working": false,
		},
		"dav":   map[string]any{"chunking": "1.0", "bulkupload": "1.0"},
		"files": map[string]any{"bigfilechunking": true, "undelete": true, "versioning": true},
		"files_sharing": map[string]any{
			"api_enabled": true, "resharing": true, "group_sharing": true,
			"public": map[string]any{"enabled": true}, "user": map[string]any{"send_mail": false},
		},
		"app_api": map[string]any{"loglevel": 2, "version": s.AppAPIVersion},
	}
	data := struct {
		Version      version        `json:"version"`
		Capabilities map[string]any `json:"capabilities"`
	}{version{v[0], v[1], v[2], s.ServerVersion, "", false}, caps}
	writeOCS(w, r, http.StatusOK, "", data)
}

// navEntries lists the entries uid sees: Files, then the top-menu entries
// of enabled ExApps (admin-only ones for admins only), as
// LoadMenuEntriesListener adds them, then the Assistant (assistant_page.go).
func (s *Server) navEntries(uid, active string) []shell.NavEntry {
	admin := s.isAdmin(uid)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []shell.NavEntry{{ID: "files", Order: 0, Href: s.link("/index.php/apps/files/"), Icon: "/apps/files/img/app.svg",
		Type: "link", Name: "Files", App: "files", Active: active == "files"}}
	for _, m := range s.hooks.ui.topMenus {
		a, ok := s.apps[m.AppID]
		if !ok || !a.enabled || (m.AdminRequired == 1 && !admin) {
			continue
		}
		icon := "/apps/app_api/img/app.svg"
		if m.Icon != "" {
			icon = s.link(proxyPrefix + m.AppID + "/" + m.Icon)
		}
		id := "app_api_" + m.AppID + "_" + m.Name
		out = append(out, shell.NavEntry{ID: id, Order: len(out), Href: s.link(embeddedURL(m.AppID, m.Name)), Icon: icon,
			Type: "link", Name: m.DisplayName, Active: id == active, App: "app_api"})
	}
	out = append(out, shell.NavEntry{ID: assistantNavID, Order: len(out), Href: s.link("/index.php/apps/assistant/"),
		Icon: "/apps/assistant/img/app.svg", Type: "link", Name: "Assistant", App: "assistant", Active: active == assistantNavID})
	return out
}

func embeddedURL(appID, name string) string {
	return "/index.php/apps/app_api/embedded/" + appID + "/" + name
}

// navJSON is the core-apps initial state value.
func navJSON(entries []shell.NavEntry) string {
	raw, _ := json.Marshal(entries)
	return string(raw)
}
