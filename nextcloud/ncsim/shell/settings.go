package shell

import "html/template"

// Section is a section of the admin or personal settings, or a language
// the personal settings offer.
type Section struct{ ID, Name string }

// settingsTemplate lays out a settings section: the sections menu, the
// language or theme choice on the personal sections that have them, then
// the declarative forms.
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

// Settings fills the settings page's content.
type Settings struct {
	NavLabel, Heading, Base, Active string
	UID, Lang                       string
	Sections                        []Section
	Languages                       []Section
	Themes                          []ThemeChoice
	Forms                           []Form
	RadioType                       string
}

// ThemeChoice is a theme the personal settings offer.
type ThemeChoice struct {
	ID, Name string
	Checked  bool
}

// Form is a declarative settings form, values filled in.
type Form struct {
	App, ID, Title, Description string
	Fields                      []Field
}

// Field is one field of a Form.
type Field struct {
	ID, Type, Title, Description, Placeholder, Label, Value string
	Text, Checked, Sensitive                                bool
	Options                                                 []Option
}

// Option is one option of a select, radio or multi-checkbox Field.
type Option struct {
	Field, Type, Name, Value string
	Checked                  bool
}

// SettingsContent renders v for a page's Content.
func SettingsContent(v Settings) (template.HTML, error) { return fragment(settingsTemplate, v) }

// Forbidden is the content of the "Access forbidden" page.
const Forbidden template.HTML = `<div id="app-content" class="ncsim-app"><h2>Access forbidden</h2><p class="ncsim-muted">You are not allowed to access this page.</p></div>`
