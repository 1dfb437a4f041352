package ncsim

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim/shell"
)

// The sections the simulated settings show. AppAPI registers
// declarative_settings ("ExApps Settings") and ai_integration_team ("AI
// Integration Team") as both admin and personal sections (app_api
// appinfo/info.xml, lib/Settings/DeclarativeSettings at v34.0.3); a form
// whose section_id names no section is shown nowhere, as in Nextcloud.
// personal-info and theming stand in for core's own personal sections.
var (
	adminSections    = []shell.Section{{ID: "declarative_settings", Name: "ExApps Settings"}, {ID: "ai_integration_team", Name: "AI Integration Team"}}
	personalSections = []shell.Section{{ID: "personal-info", Name: "Personal info"}, {ID: "theming", Name: "Appearance and accessibility"},
		{ID: "declarative_settings", Name: "ExApps Settings"}, {ID: "ai_integration_team", Name: "AI Integration Team"}}
)

// languages the personal settings offer (a few of Nextcloud's).
var languages = []shell.Section{{ID: "en", Name: "English (US)"}, {ID: "de", Name: "Deutsch (Persönlich: Du)"}, {ID: "de_DE", Name: "Deutsch (Förmlich: Sie)"},
	{ID: "fr", Name: "Français"}, {ID: "ja", Name: "日本語 (Japanese)"}}

// handleAdminSettings serves GET /index.php/settings/admin/{section}: the
// declarative forms of enabled ExApps in that admin section, with their
// values (AdminSettingsController; 403 for non-admins).
func (s *Server) handleAdminSettings(w http.ResponseWriter, r *http.Request) {
	s.settingsPage(w, r, true)
}

// handlePersonalSettings serves GET /index.php/settings/user[/{section}]:
// language and theme, and the personal declarative forms.
func (s *Server) handlePersonalSettings(w http.ResponseWriter, r *http.Request) {
	s.settingsPage(w, r, false)
}

func (s *Server) settingsPage(w http.ResponseWriter, r *http.Request, admin bool) {
	uid, ok := s.requireLogin(w, r)
	if !ok {
		return
	}
	v := shell.Settings{UID: uid, Lang: s.language(uid, r), Languages: languages, Active: r.PathValue("section"), RadioType: "radio"}
	typ := "personal"
	if admin {
		if !s.isAdmin(uid) {
			s.renderPage(w, r, http.StatusForbidden, uid, shell.Page{Title: "Access forbidden", AppID: "settings", Content: shell.Forbidden})
			return
		}
		typ = "admin"
		v.NavLabel, v.Heading, v.Base, v.Sections = "Administration", "Administration settings", "/index.php/settings/admin", adminSections
	} else {
		v.NavLabel, v.Heading, v.Base, v.Sections = "Personal", "Personal settings", "/index.php/settings/user", personalSections
	}
	if v.Active == "" {
		v.Active = v.Sections[0].ID
	}
	i := slices.IndexFunc(v.Sections, func(sec shell.Section) bool { return sec.ID == v.Active })
	if i < 0 {
		http.NotFound(w, r)
		return
	}
	v.Heading = v.Sections[i].Name
	enabled := s.enabledThemes(uid)
	for _, t := range []shell.ThemeChoice{{ID: "default", Name: "System default"}, {ID: "light", Name: "Light theme"}, {ID: "dark", Name: "Dark theme"}} {
		t.Checked = slices.Contains(enabled, t.ID)
		v.Themes = append(v.Themes, t)
	}
	forms, err := s.declForms()
	if err != nil {
		http.Error(w, "Internal Server Error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	for _, f := range forms {
		if f.SectionType == typ && f.SectionID == v.Active {
			v.Forms = append(v.Forms, s.formView(f, uid))
		}
	}
	content, err := shell.SettingsContent(v)
	if err != nil {
		http.Error(w, "ncsim: settings page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	s.renderPage(w, r, http.StatusOK, uid, shell.Page{Title: v.Heading, AppID: "settings", Content: content,
		Scripts: []string{"/apps/settings/js/declarative-settings.js", "/apps/settings/js/ncsim-personal-settings.js"}})
}

// formView prepares a form for the template, values as GetValueListener
// gives them and as DeclarativeSection.vue reads them (checkboxes as
// truthy strings, multi-checkbox as a JSON object, multi-select as a JSON
// list).
func (s *Server) formView(f declForm, uid string) shell.Form {
	fv := shell.Form{App: f.app, ID: f.ID, Title: f.Title, Description: f.Description}
	for _, fd := range f.Fields {
		val := s.declValue(f, fd, uid)
		v := shell.Field{ID: fd.ID, Type: fd.Type, Title: fd.Title, Description: fd.Description, Placeholder: fd.Placeholder,
			Label: fd.Label, Value: val, Sensitive: fd.Sensitive,
			Text: slices.Contains([]string{"text", "password", "email", "tel", "url", "number"}, fd.Type)}
		if fd.Sensitive && val != "" {
			v.Value = "dummySecret" // never sent back to the browser
		}
		v.Checked = val != "" && val != "0" && val != "false"
		var multi map[string]bool
		var list []string
		_ = json.Unmarshal([]byte(val), &multi)
		_ = json.Unmarshal([]byte(val), &list)
		for _, o := range declOptions(fd) {
			ov := shell.Option{Field: fd.ID, Type: fd.Type, Name: o.Name, Value: o.Value}
			switch fd.Type {
			case "multi-checkbox":
				ov.Checked = multi[o.Value]
			case "multi-select":
				ov.Checked = slices.Contains(list, o.Value)
			default:
				ov.Checked = val == o.Value
			}
			v.Options = append(v.Options, ov)
		}
		fv.Fields = append(fv.Fields, v)
	}
	return fv
}

// handleDeclarativeSetValue serves POST
// /ocs/v2.php/settings/api/declarative/value and .../value-sensitive
// (DeclarativeSettingsController::setValue, setSensitiveValue) with app,
// formId, fieldId and value: DeclarativeManager::setValue checks that the
// field exists (400 otherwise) and that only admins change admin forms
// (403), then AppAPI's SetValueListener stores the value.
func (s *Server) handleDeclarativeSetValue(w http.ResponseWriter, r *http.Request) {
	p := s.authenticate(r)
	if !p.hasUser() {
		writeOCS(w, r, http.StatusUnauthorized, "Current user is not logged in", nil)
		return
	}
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	app, formID, fieldID := paramStringOr(params, "app", ""), paramStringOr(params, "formId", ""), paramStringOr(params, "fieldId", "")
	value, hasValue := params["value"]
	forms, err := s.declForms()
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, "", nil)
		return
	}
	for _, f := range forms {
		if f.app != app {
			continue
		}
		for _, fd := range f.Fields {
			if fd.ID != fieldID {
				continue
			}
			if f.SectionType == "admin" && !s.isAdmin(p.uid) {
				writeOCS(w, r, http.StatusForbidden, "Logged in user does not have permission to access these settings.", nil)
				return
			}
			if f.ID != formID || !hasValue {
				// The listener finds no form by that id and stores nothing.
				writeOCS(w, r, http.StatusOK, "", nil)
				return
			}
			s.setDeclValue(f, fd, p.uid, value)
			s.logf("ncsim: declarative setting %s/%s/%s changed by %s", app, formID, fieldID, p.uid)
			writeOCS(w, r, http.StatusOK, "", nil)
			return
		}
	}
	writeOCS(w, r, http.StatusBadRequest, "", nil) // Unknown fieldId
}

// handleDeclarativeForms serves GET /ocs/v2.php/settings/api/declarative/forms
// (getFormsWithValues): every form the user may see, with "app" and each
// field's "value".
func (s *Server) handleDeclarativeForms(w http.ResponseWriter, r *http.Request) {
	p := s.authenticate(r)
	if !p.hasUser() {
		writeOCS(w, r, http.StatusUnauthorized, "Current user is not logged in", nil)
		return
	}
	forms, err := s.declForms()
	if err != nil {
		writeOCS(w, r, ocsServerError, err.Error(), nil)
		return
	}
	out := []map[string]any{}
	admin := s.isAdmin(p.uid)
	for _, f := range forms {
		if f.SectionType == "admin" && !admin {
			continue
		}
		fields := []map[string]any{}
		for _, fd := range f.Fields {
			raw, _ := json.Marshal(fd)
			var m map[string]any
			_ = json.Unmarshal(raw, &m)
			m["value"] = s.declValue(f, fd, p.uid)
			fields = append(fields, m)
		}
		out = append(out, map[string]any{"id": f.ID, "priority": f.Priority, "section_type": f.SectionType, "section_id": f.SectionID,
			"storage_type": f.StorageType, "title": f.Title, "description": f.Description, "doc_url": f.DocURL, "app": f.app, "fields": fields})
	}
	writeOCS(w, r, http.StatusOK, "", out)
}
