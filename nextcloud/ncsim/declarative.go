package ncsim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Declarative settings: the forms ExApps register through AppAPI
// (POST /api/v1/ui/settings), shown on Nextcloud's settings pages.
//
// Nextcloud keeps nothing of an ExApp's form itself: AppAPI forces
// storage_type "external", so core's DeclarativeManager
// (lib/private/Settings/DeclarativeManager.php, server d9bf21c0) fires
// DeclarativeSettingsGetValueEvent and DeclarativeSettingsSetValueEvent,
// and AppAPI's GetValueListener and SetValueListener
// (lib/Listener/DeclarativeSettings, v32.0.0 to v35.0.0beta4, unchanged
// but for style) answer them: admin forms read and write the ExApp's app
// config (appconfig_ex, what the ExApp reads with POST
// /api/v1/ex-app/config/get-values), personal forms the user's
// preferences_ex. Nothing tells the ExApp that a value changed: the events
// are not webhook events, and AppAPI sends nothing to the ExApp, so an
// ExApp that wants to follow its settings reads them again from time to
// time.

// declField is one field of a form scheme (IDeclarativeSettingsForm).
type declField struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Description string          `json:"description,omitempty"`
	Type        string          `json:"type"`
	Placeholder string          `json:"placeholder,omitempty"`
	Label       string          `json:"label,omitempty"`
	Options     json.RawMessage `json:"options,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	Sensitive   bool            `json:"sensitive,omitempty"`
}

// declForm is a form scheme.
type declForm struct {
	ID          string      `json:"id"`
	Priority    int         `json:"priority"`
	SectionType string      `json:"section_type"`
	SectionID   string      `json:"section_id"`
	StorageType string      `json:"storage_type"`
	Title       string      `json:"title"`
	Description string      `json:"description,omitempty"`
	DocURL      string      `json:"doc_url,omitempty"`
	Fields      []declField `json:"fields"`
	app         string
}

// declFieldTypes are DeclarativeSettingsTypes' field types.
var declFieldTypes = []string{"multi-select", "multi-checkbox", "radio", "select", "checkbox", "url", "email", "number", "tel", "text", "password"}

// validateDeclForm is DeclarativeManager::validateSchema and validateField:
// a form that fails it makes loading the forms throw, which breaks the
// settings pages for everybody, so the simulator refuses to render them.
func validateDeclForm(raw json.RawMessage) (declForm, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return declForm{}, err
	}
	for _, k := range []string{"id", "section_type", "section_id", "storage_type", "title", "fields"} {
		if _, ok := probe[k]; !ok {
			return declForm{}, fmt.Errorf("declarative settings: missing %s", k)
		}
	}
	var f declForm
	if err := json.Unmarshal(raw, &f); err != nil {
		return declForm{}, fmt.Errorf("declarative settings: %w", err)
	}
	if f.SectionType != "admin" && f.SectionType != "personal" {
		return f, fmt.Errorf("declarative settings %s: invalid section_type %q", f.ID, f.SectionType)
	}
	if f.StorageType != "external" && f.StorageType != "internal" {
		return f, fmt.Errorf("declarative settings %s: invalid storage_type %q", f.ID, f.StorageType)
	}
	seen := map[string]bool{}
	for _, fd := range f.Fields {
		switch {
		case fd.ID == "" || fd.Title == "" || fd.Type == "":
			return f, fmt.Errorf("declarative settings %s: a field lacks id, title or type", f.ID)
		case !slices.Contains(declFieldTypes, fd.Type):
			return f, fmt.Errorf("declarative settings %s: field %s has invalid type %q", f.ID, fd.ID, fd.Type)
		case fd.Sensitive && fd.Type != "text" && fd.Type != "password":
			return f, fmt.Errorf("declarative settings %s: field %s: sensitive is supported only for text and password", f.ID, fd.ID)
		case slices.Contains([]string{"multi-select", "multi-checkbox", "radio", "select"}, fd.Type) && !isJSONArray(fd.Options):
			return f, fmt.Errorf("declarative settings %s: field %s needs options", f.ID, fd.ID)
		case seen[fd.ID]:
			return f, fmt.Errorf("declarative settings %s: non unique field id %s", f.ID, fd.ID)
		}
		seen[fd.ID] = true
	}
	return f, nil
}

func isJSONArray(raw json.RawMessage) bool {
	var v []any
	return json.Unmarshal(raw, &v) == nil
}

// declForms returns the valid forms of enabled ExApps, highest priority
// first, or the first validation error (DeclarativeManager::registerSchema
// throws on it).
func (s *Server) declForms() ([]declForm, error) {
	s.mu.Lock()
	forms := uiFilter(s.hooks.ui.forms, func(f SettingsForm) bool {
		a, ok := s.apps[f.AppID]
		return ok && a.enabled
	})
	s.mu.Unlock()
	var out []declForm
	fieldOwner := map[string]string{} // app NUL field id -> form id
	for _, sf := range forms {
		f, err := validateDeclForm(sf.Scheme)
		if err != nil {
			return nil, fmt.Errorf("invalid schema of %s: %w", sf.AppID, err)
		}
		for _, fd := range f.Fields {
			key := sf.AppID + "\x00" + fd.ID
			if other, ok := fieldOwner[key]; ok && other != f.ID {
				return nil, fmt.Errorf("non unique field ids in %s: %s", sf.AppID, fd.ID)
			}
			fieldOwner[key] = f.ID
		}
		f.app = sf.AppID
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b declForm) int { return b.Priority - a.Priority })
	return out, nil
}

// declValue is GetValueListener: the stored value (app config for admin
// forms, uid's preferences for personal ones; sensitive values decrypted),
// else the field's default, JSON-encoded when it is a number or a list.
func (s *Server) declValue(f declForm, fd declField, uid string) string {
	s.mu.Lock()
	t := s.configTableLocked(f.app, uid, f.SectionType == "personal")
	cv, ok := t[fd.ID]
	var v string
	if ok {
		v = cv.value
	}
	s.mu.Unlock()
	if ok { // a stored value wins, even "" (AppAPI tests !empty on the row)
		if fd.Sensitive {
			return decryptValue(v)
		}
		return v
	}
	if len(fd.Default) == 0 {
		return ""
	}
	var str string
	if json.Unmarshal(fd.Default, &str) == nil {
		return str
	}
	var b bool
	if json.Unmarshal(fd.Default, &b) == nil {
		if b {
			return "1"
		}
		return ""
	}
	return string(fd.Default) // numbers and lists: json_encode
}

// setDeclValue is SetValueListener: sensitive values are encrypted first
// and then stored like any other, with the row's sensitive flag left at 0,
// so POST /api/v1/ex-app/config/get-values hands the ExApp the encrypted
// text (AppAPI ExAppConfigService::setAppConfigValue with $sensitive null).
func (s *Server) setDeclValue(f declForm, fd declField, uid string, value any) {
	v := configString(value)
	if b, ok := value.(bool); ok {
		v = "" // PHP (string) false
		if b {
			v = "1"
		}
	}
	if fd.Sensitive {
		v = encryptValue(v)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.configTableLocked(f.app, uid, f.SectionType == "personal")
	cv, ok := t[fd.ID]
	if !ok {
		s.hooks.ui.nextID++
		cv = &configValue{id: s.hooks.ui.nextID}
		t[fd.ID] = cv
	}
	cv.value = v
}

// encryptedPrefix marks the simulator's stand-in for ICrypto::encrypt's
// output, which is "<ciphertext>|<iv>|<hmac>|3" in Nextcloud.
const encryptedPrefix = "ncsim-encrypted|"

func encryptValue(v string) string {
	return encryptedPrefix + base64.StdEncoding.EncodeToString([]byte(v)) + "|3"
}

func decryptValue(v string) string {
	rest, ok := strings.CutPrefix(v, encryptedPrefix)
	if !ok {
		return ""
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(rest, "|3"))
	if err != nil {
		return ""
	}
	return string(raw)
}

// DeclarativeValue returns the value a declarative settings field of appID
// shows to uid (uid is ignored for admin forms), as the settings page
// would; false if no enabled form of appID has that field.
func (s *Server) DeclarativeValue(appID, fieldID, uid string) (string, bool) {
	s.init()
	forms, err := s.declForms()
	if err != nil {
		return "", false
	}
	for _, f := range forms {
		for _, fd := range f.Fields {
			if f.app == appID && fd.ID == fieldID {
				return s.declValue(f, fd, uid), true
			}
		}
	}
	return "", false
}

// declOptions are a field's options as {name, value} pairs; select fields
// may list plain strings, which are both.
func declOptions(fd declField) []struct{ Name, Value string } {
	var out []struct{ Name, Value string }
	var raw []json.RawMessage
	_ = json.Unmarshal(fd.Options, &raw)
	for _, o := range raw {
		var str string
		if json.Unmarshal(o, &str) == nil {
			out = append(out, struct{ Name, Value string }{str, str})
			continue
		}
		var nv struct {
			Name  string `json:"name"`
			Value any    `json:"value"`
		}
		if json.Unmarshal(o, &nv) == nil {
			val := fmt.Sprint(nv.Value)
			if f, ok := nv.Value.(float64); ok {
				val = strconv.FormatFloat(f, 'f', -1, 64)
			}
			out = append(out, struct{ Name, Value string }{nv.Name, val})
		}
	}
	return out
}
