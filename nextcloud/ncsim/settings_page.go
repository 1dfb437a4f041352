package ncsim

import (
	"encoding/json"
	"html/template"
	"net/http"
	"slices"
	"strings"
)

// settingsSection is a section of the admin or personal settings.
type settingsSection struct{ ID, Name string }

// The sections the simulated settings show. AppAPI registers
// declarative_settings ("ExApps Settings") and ai_integration_team ("AI
// Integration Team") as both admin and personal sections (app_api
// appinfo/info.xml, lib/Settings/DeclarativeSettings at v34.0.3); a form
// whose section_id names no section is shown nowhere, as in Nextcloud.
// personal-info and theming stand in for core's own personal sections.
var (
	adminSections    = []settingsSection{{"declarative_settings", "ExApps Settings"}, {"ai_integration_team", "AI Integration Team"}}
	personalSections = []settingsSection{{"personal-info", "Personal info"}, {"theming", "Appearance and accessibility"},
		{"declarative_settings", "ExApps Settings"}, {"ai_integration_team", "AI Integration Team"}}
)

// languages the personal settings offer (a few of Nextcloud's).
var languages = []settingsSection{{"en", "English (US)"}, {"de", "Deutsch (Persönlich: Du)"}, {"de_DE", "Deutsch (Förmlich: Sie)"},
	{"fr", "Français"}, {"ja", "日本語 (Japanese)"}}

var settingsTemplate = template.Must(template.New("settings").Parse(`<nav class="ncsim-navigation" aria-label="{{.NavLabel}}"><ul>
{{range .Sections}}<li><a href="{{$.Base}}/{{.ID}}"{{if eq .ID $.Active}} class="active" aria-current="page"{{end}}>{{.Name}}</a></li>
{{end}}</ul></nav>
<div id="app-content" class="ncsim-app settings">
<h2>{{.Heading}}</h2>
{{if eq .Active "personal-info"}}<section class="settings-section" id="personal-language">
<h3>Language</h3>
<div class="declarative-form-field"><label class="field-title" for="language-select">Language</label>
<select id="language-select" data-user="{{.UID}}">{{range .Languages}}<option value="{{.ID}}"{{if eq .ID $.Lang}} selected{{end}}>{{.Name}}</option>{{end}}</select></div>
<p class="settings-saved" aria-live="polite"></p></section>{{end}}
{{if eq .Active "theming"}}<section class="settings-section" id="personal-theme">
<h3>Theme</h3>
<div class="declarative-form-field" role="radiogroup" aria-label="Theme">
{{range .Themes}}<label class="choice"><input type="radio" name="theme" value="{{.ID}}"{{if .Checked}} checked{{end}}> {{.Name}}</label>
{{end}}</div>
<p class="settings-saved" aria-live="polite"></p></section>{{end}}
{{range .Forms}}<section class="settings-section declarative-settings-section" id="{{.App}}_{{.ID}}" data-app="{{.App}}" data-form="{{.ID}}">
<h3>{{.Title}}</h3>
{{if .Description}}<p class="settings-section__description">{{.Description}}</p>{{end}}
{{range .Fields}}<div class="declarative-form-field declarative-form-field-{{.Type}}" data-field="{{.ID}}" data-type="{{.Type}}"{{if .Sensitive}} data-sensitive="1"{{end}}>
{{if .Text}}<label class="field-title" for="{{.ID}}_field">{{.Title}}</label>
<input id="{{.ID}}_field" type="{{.Type}}" value="{{.Value}}" placeholder="{{.Placeholder}}"{{if eq .Type "number"}} step="any"{{end}}>
{{else if eq .Type "select"}}<label class="field-title" for="{{.ID}}_field">{{.Title}}</label>
<select id="{{.ID}}_field">{{range .Options}}<option value="{{.Value}}"{{if .Checked}} selected{{end}}>{{.Name}}</option>{{end}}</select>
{{else if eq .Type "multi-select"}}<label class="field-title" for="{{.ID}}_field">{{.Title}}</label>
<select id="{{.ID}}_field" multiple>{{range .Options}}<option value="{{.Value}}"{{if .Checked}} selected{{end}}>{{.Name}}</option>{{end}}</select>
{{else if eq .Type "checkbox"}}<label class="choice"><input id="{{.ID}}_field" type="checkbox"{{if .Checked}} checked{{end}}> {{if .Label}}{{.Label}}{{else}}{{.Title}}{{end}}</label>
{{else}}<span class="field-title">{{.Title}}</span>
{{range .Options}}<label class="choice"><input type="{{if eq $.RadioType .Type}}radio{{else}}checkbox{{end}}" name="{{.Field}}" value="{{.Value}}"{{if .Checked}} checked{{end}}> {{.Name}}</label>
{{end}}{{end}}{{if .Description}}<span class="hint">{{.Description}}</span>{{end}}
</div>
{{end}}<p class="settings-saved" aria-live="polite"></p>
</section>
{{end}}{{if and (not .Forms) (ne .Active "personal-info") (ne .Active "theming")}}<p class="ncsim-muted">No settings in this section.</p>{{end}}
</div>`))

type settingsView struct {
	NavLabel, Heading, Base, Active string
	UID, Lang                       string
	Sections                        []settingsSection
	Languages                       []settingsSection
	Themes                          []themeChoice
	Forms                           []formView
	RadioType                       string
}

type themeChoice struct {
	ID, Name string
	Checked  bool
}

type formView struct {
	App, ID, Title, Description string
	Fields                      []fieldView
}

type fieldView struct {
	ID, Type, Title, Description, Placeholder, Label, Value string
	Text, Checked, Sensitive                                bool
	Options                                                 []optionView
}

type optionView struct {
	Field, Type, Name, Value string
	Checked                  bool
}

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
	v := settingsView{UID: uid, Lang: s.language(uid, r), Languages: languages, Active: r.PathValue("section"), RadioType: "radio"}
	typ := "personal"
	if admin {
		if !s.isAdmin(uid) {
			content := template.HTML(`<div id="app-content" class="ncsim-app"><h2>Access forbidden</h2><p class="ncsim-muted">You are not allowed to access this page.</p></div>`)
			s.renderPage(w, r, http.StatusForbidden, uid, pageData{Title: "Access forbidden", AppID: "settings", Content: content})
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
	i := slices.IndexFunc(v.Sections, func(sec settingsSection) bool { return sec.ID == v.Active })
	if i < 0 {
		http.NotFound(w, r)
		return
	}
	v.Heading = v.Sections[i].Name
	enabled := s.enabledThemes(uid)
	for _, t := range []themeChoice{{"default", "System default", false}, {"light", "Light theme", false}, {"dark", "Dark theme", false}} {
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
	var b strings.Builder
	if err := settingsTemplate.Execute(&b, v); err != nil {
		http.Error(w, "ncsim: settings page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	s.renderPage(w, r, http.StatusOK, uid, pageData{Title: v.Heading, AppID: "settings", Content: template.HTML(b.String()),
		Scripts: []string{"/apps/settings/js/declarative-settings.js", "/apps/settings/js/ncsim-personal-settings.js"}})
}

// formView prepares a form for the template, values as GetValueListener
// gives them and as DeclarativeSection.vue reads them (checkboxes as
// truthy strings, multi-checkbox as a JSON object, multi-select as a JSON
// list).
func (s *Server) formView(f declForm, uid string) formView {
	fv := formView{App: f.app, ID: f.ID, Title: f.Title, Description: f.Description}
	for _, fd := range f.Fields {
		val := s.declValue(f, fd, uid)
		v := fieldView{ID: fd.ID, Type: fd.Type, Title: fd.Title, Description: fd.Description, Placeholder: fd.Placeholder,
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
			ov := optionView{Field: fd.ID, Type: fd.Type, Name: o.Name, Value: o.Value}
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
