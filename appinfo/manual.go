package appinfo

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
)

// ManualInstall is what an admin chooses when registering the app with
// AppAPI's manual_install daemon: where the app listens and its secret.
type ManualInstall struct {
	Daemon  string // the daemon config name; "" means manual_install
	Port    int    // APP_PORT the app listens on; 0 lets AppAPI pick a free one
	Secret  string // APP_SECRET; "" lets AppAPI generate one
	L10nDir string // a folder on the Nextcloud server holding this release's l10n/; "" skips translations
}

// route is one <route> of info.xml's <routes>.
type route struct {
	URL              string `xml:"url" json:"url"`
	Verb             string `xml:"verb" json:"verb"`
	AccessLevel      string `xml:"access_level" json:"-"`
	Level            int    `xml:"-" json:"access_level"`
	HeadersToExclude string `xml:"headers_to_exclude" json:"headers_to_exclude"`
}

// accessLevels maps info.xml's names to the numbers AppAPI stores
// (ExAppService::mapExAppRouteAccessLevelNameToNumber, app_api 32-35). Its
// --json-info path does not map names, so the JSON carries the numbers.
var accessLevels = map[string]int{"PUBLIC": 0, "USER": 1, "ADMIN": 2}

// ManualInstallJSON returns the JSON for
//
//	occ app_api:app:register hybrid_search manual_install --json-info '<JSON>' --wait-finish
//
// built from the embedded info.xml: id, name, version, the routes (without
// them the AppAPI proxy forwards nothing) and, when set, port, secret,
// daemon and translations folder. app_api 32-35 (ExAppService::getAppInfo)
// moves "routes" and "translations_folder" from the root into
// "external-app", as for an info.xml. It fails on a route whose access
// level AppAPI does not know.
func ManualInstallJSON(o ManualInstall) ([]byte, error) {
	var info struct {
		ID      string  `xml:"id"`
		Name    string  `xml:"name"`
		Version string  `xml:"version"`
		Routes  []route `xml:"external-app>routes>route"`
	}
	if err := xml.Unmarshal(InfoXML, &info); err != nil {
		return nil, fmt.Errorf("appinfo: read info.xml: %w", err)
	}
	for i, r := range info.Routes {
		lv, ok := accessLevels[strings.TrimSpace(r.AccessLevel)]
		if !ok {
			return nil, fmt.Errorf("appinfo: route %s: unknown access level %q", r.URL, r.AccessLevel)
		}
		info.Routes[i].Level = lv
		info.Routes[i].URL = strings.TrimSpace(r.URL)
		info.Routes[i].Verb = strings.TrimSpace(r.Verb)
		info.Routes[i].HeadersToExclude = strings.TrimSpace(r.HeadersToExclude)
	}
	out := map[string]any{
		"id": info.ID, "name": info.Name, "version": strings.TrimSpace(info.Version),
		"daemon_config_name": "manual_install", "routes": info.Routes,
	}
	if o.Daemon != "" {
		out["daemon_config_name"] = o.Daemon
	}
	if o.Port != 0 {
		out["port"] = o.Port
	}
	if o.Secret != "" {
		out["secret"] = o.Secret
	}
	if o.L10nDir != "" {
		out["translations_folder"] = o.L10nDir
	}
	return json.Marshal(out)
}
