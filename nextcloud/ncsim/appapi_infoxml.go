package ncsim

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
)

// infoXML is the part of appinfo/info.xml that AppAPI reads.
type infoXML struct {
	XMLName     xml.Name `xml:"info"`
	ID          string   `xml:"id"`
	Name        string   `xml:"name"`
	Version     string   `xml:"version"`
	ExternalApp *struct {
		Routes []struct {
			URL                  string   `xml:"url"`
			Verb                 string   `xml:"verb"`
			AccessLevel          *string  `xml:"access_level"`
			HeadersToExclude     innerXML `xml:"headers_to_exclude"`
			BruteforceProtection innerXML `xml:"bruteforce_protection"`
		} `xml:"routes>route"`
		Variables []struct {
			Name        string `xml:"name"`
			DisplayName string `xml:"display-name"`
			Description string `xml:"description"`
			Default     string `xml:"default"`
		} `xml:"environment-variables>variable"`
	} `xml:"external-app"`
}

// innerXML keeps an element's raw content, so child elements (which AppAPI
// rejects where it expects a JSON array body) can be told from text.
type innerXML struct {
	Inner string `xml:",innerxml"`
}

func (x innerXML) text() (string, error) {
	s := strings.TrimSpace(x.Inner)
	if strings.HasPrefix(s, "<![CDATA[") && strings.HasSuffix(s, "]]>") {
		return strings.TrimSuffix(strings.TrimPrefix(s, "<![CDATA["), "]]>"), nil
	}
	if strings.Contains(s, "<") {
		return "", fmt.Errorf("child elements instead of a JSON array body")
	}
	var out string
	if err := xml.Unmarshal([]byte("<x>"+s+"</x>"), &out); err != nil {
		return "", err
	}
	return out, nil
}

// ParseInfoXML reads an ExApp's appinfo/info.xml (id, name, version,
// external-app routes and environment variables) into a registration,
// validating routes as AppAPI v35 does (ExAppRouteHelper, app_api commit
// 8d57f2e9): access_level must be PUBLIC, USER or ADMIN, headers_to_exclude
// a JSON array of strings and bruteforce_protection a JSON array of ints.
// Up to v34 AppAPI validates none of this, so the simulator is stricter
// there, never looser. The result has FromInfoXML set. URL, Port and
// secrets are left for the caller.
func ParseInfoXML(data []byte) (ExAppRegistration, error) {
	var info infoXML
	if err := xml.Unmarshal(data, &info); err != nil {
		return ExAppRegistration{}, fmt.Errorf("parse info.xml: %w", err)
	}
	reg := ExAppRegistration{
		FromInfoXML: true,
		ID:          strings.TrimSpace(info.ID),
		Name:        strings.TrimSpace(info.Name),
		Version:     strings.TrimSpace(info.Version),
	}
	if reg.ID == "" || reg.Name == "" || reg.Version == "" {
		return ExAppRegistration{}, fmt.Errorf("parse info.xml: id, name and version are required")
	}
	if info.ExternalApp == nil {
		return ExAppRegistration{}, fmt.Errorf("parse info.xml %s: no <external-app> element", reg.ID)
	}
	for i, r := range info.ExternalApp.Routes {
		route, err := parseInfoRoute(i, r.URL, r.Verb, r.AccessLevel, r.HeadersToExclude, r.BruteforceProtection)
		if err != nil {
			return ExAppRegistration{}, fmt.Errorf("parse info.xml %s: %w", reg.ID, err)
		}
		reg.Routes = append(reg.Routes, route)
	}
	for i, v := range info.ExternalApp.Variables {
		name := strings.TrimSpace(v.Name)
		if name == "" {
			return ExAppRegistration{}, fmt.Errorf("parse info.xml %s: variable #%d: 'name' must be a non-empty string", reg.ID, i)
		}
		reg.EnvVars = append(reg.EnvVars, EnvVarDecl{Name: name, DisplayName: v.DisplayName, Description: v.Description, Default: v.Default})
	}
	return reg, nil
}

func parseInfoRoute(i int, url, verb string, level *string, exclude, bruteforce innerXML) (Route, error) {
	if strings.TrimSpace(url) == "" {
		return Route{}, fmt.Errorf("route #%d: 'url' must be a non-empty string", i)
	}
	if strings.TrimSpace(verb) == "" {
		return Route{}, fmt.Errorf("route '%s': 'verb' must be a non-empty string (e.g. 'GET' or 'GET,POST')", url)
	}
	r := Route{URL: url, Verb: verb}
	if level == nil {
		return Route{}, fmt.Errorf("route '%s': 'access_level' is required and must be one of PUBLIC|USER|ADMIN", url)
	}
	switch *level {
	case "PUBLIC":
		r.AccessLevel = AccessPublic
	case "USER":
		r.AccessLevel = AccessUser
	case "ADMIN":
		r.AccessLevel = AccessAdmin
	default:
		return Route{}, fmt.Errorf("route '%s': invalid 'access_level' '%s' (allowed: PUBLIC, USER, ADMIN)", url, *level)
	}
	text, err := exclude.text()
	if err != nil {
		return Route{}, fmt.Errorf("route '%s': 'headers_to_exclude': %w", url, err)
	}
	list, err := parseRouteList(text, url, "headers_to_exclude")
	if err != nil {
		return Route{}, err
	}
	for j, raw := range list {
		var h string
		if err := json.Unmarshal(raw, &h); err != nil {
			return Route{}, fmt.Errorf("route '%s': 'headers_to_exclude' must contain only strings (header names), entry at index %d is %s", url, j, raw)
		}
		r.HeadersToExclude = append(r.HeadersToExclude, h)
	}
	if text, err = bruteforce.text(); err != nil {
		return Route{}, fmt.Errorf("route '%s': 'bruteforce_protection': %w", url, err)
	}
	if list, err = parseRouteList(text, url, "bruteforce_protection"); err != nil {
		return Route{}, err
	}
	for j, raw := range list {
		var n int
		if err := json.Unmarshal(raw, &n); err != nil {
			return Route{}, fmt.Errorf("route '%s': 'bruteforce_protection' must contain only integers (e.g. HTTP status codes), entry at index %d is %s", url, j, raw)
		}
		r.BruteforceProtection = append(r.BruteforceProtection, n)
	}
	return r, nil
}
