package appinfo_test

import (
	"encoding/json"
	"testing"

	"github.com/hybrid-search/hybridsearch/appinfo"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// TestManualInstallJSON: the JSON for occ app_api:app:register --json-info
// carries every route of info.xml, as the simulator (which reads info.xml
// as AppAPI does) registers them, with AppAPI's numeric access levels.
func TestManualInstallJSON(t *testing.T) {
	b, err := appinfo.ManualInstallJSON(appinfo.ManualInstall{Port: 23000, Secret: "s3cret", L10nDir: "/srv/hybrid_search/l10n"})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID, Name, Version, Secret string
		Daemon                    string `json:"daemon_config_name"`
		Port                      int
		L10n                      string `json:"translations_folder"`
		Routes                    []struct {
			URL, Verb        string
			AccessLevel      int    `json:"access_level"`
			HeadersToExclude string `json:"headers_to_exclude"`
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != "hybrid_search" || got.Version != appinfo.Version() || got.Daemon != "manual_install" ||
		got.Port != 23000 || got.Secret != "s3cret" || got.L10n != "/srv/hybrid_search/l10n" || got.Name == "" {
		t.Errorf("ManualInstallJSON = %s", b)
	}
	reg, err := ncsim.ParseInfoXML(appinfo.InfoXML)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Routes) == 0 || len(got.Routes) != len(reg.Routes) {
		t.Fatalf("%d routes in the JSON, %d in info.xml", len(got.Routes), len(reg.Routes))
	}
	for i, r := range reg.Routes { // ncsim's levels are AppAPI's numbers
		g := got.Routes[i]
		if g.URL != r.URL || g.Verb != r.Verb || g.AccessLevel != int(r.AccessLevel) {
			t.Errorf("route %d = %+v, want %+v", i, g, r)
		}
	}
	var bare struct{ Port int }
	if b, _ := appinfo.ManualInstallJSON(appinfo.ManualInstall{}); json.Unmarshal(b, &bare) != nil || bare.Port != 0 {
		t.Errorf("without a port the JSON must leave it to AppAPI: %s", b)
	}
}
