package exapp_test

import (
	"context"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/exapp"
	"github.com/hybrid-search/hybridsearch/nextcloud"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
	"github.com/hybrid-search/hybridsearch/nextcloud/webhook"
)

// TestEnableAgainstEveryVersion registers the app's webhooks with the
// simulated webhook_listeners of Nextcloud 32 to 35, which refuses any
// class that is not IWebhookCompatibleEvent there with OCS 400 (the
// non-existent OCP\Files\Events\Node\NodeRestoredEvent the app once
// registered made /enabled fail, and AppAPI disabled the app again). It
// also checks that the webhook intake accepts every class registered.
func TestEnableAgainstEveryVersion(t *testing.T) {
	for _, v := range ncsim.Versions {
		t.Run(v, func(t *testing.T) {
			sim := &ncsim.Server{NextcloudVersion: v}
			base, err := sim.Start("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sim.Close)
			env, err := sim.RegisterExApp(ncsim.ExAppRegistration{ID: "hybrid_search", Name: "Hybrid Search", Version: "1.0.0",
				URL: "http://127.0.0.1:9"})
			if err != nil {
				t.Fatal(err)
			}
			// Enabled in the database, as AppAPI marks it before /init.
			sim.MarkEnabled("hybrid_search")
			nc := &nextcloud.Client{BaseURL: base, AppID: "hybrid_search", AppVersion: "1.0.0", AAVersion: env.Get("AA_VERSION"),
				Secret: env.Get("APP_SECRET")}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			l := exapp.New(ctx, nc, exapp.Options{AppID: "hybrid_search", Version: "1.0.0", DisplayName: "Hybrid Search",
				SettingsForms: []nextcloud.SettingsForm{{ID: "hs_admin", SectionType: "admin", SectionID: "declarative_settings", Title: "Hybrid Search",
					Fields: []nextcloud.SettingsField{{ID: "embed_model", Title: "Model", Type: "text", Default: "nomic-embed-text"}}}},
				FileActions: []nextcloud.FileAction{{Name: "similar", DisplayName: "Find similar", ActionHandler: "/api/files/similar", MIME: "text/"}}})
			if err := l.SetEnabled(ctx, true); err != nil {
				t.Fatalf("enable on Nextcloud %s: %v", v, err)
			}
			if forms := sim.SettingsForms("hybrid_search"); len(forms) != 1 || forms[0].FormID != "hs_admin" {
				t.Errorf("Nextcloud %s: settings forms %+v", v, forms)
			}
			if val, ok := sim.DeclarativeValue("hybrid_search", "embed_model", ""); !ok || val != "nomic-embed-text" {
				t.Errorf("Nextcloud %s: the form's field shows %q, %v", v, val, ok)
			}
			if acts := sim.FileActions("hybrid_search"); len(acts) != 1 || acts[0].Version != "2.0" || acts[0].ActionHandler != "api/files/similar" {
				t.Errorf("Nextcloud %s: file actions %+v", v, acts)
			}
			got := map[string]bool{}
			for _, w := range sim.Webhooks() {
				got[w.Event] = true
			}
			for _, ev := range exapp.WebhookEvents {
				if !got[ev.Class] {
					t.Errorf("Nextcloud %s: no webhook for %s", v, ev.Class)
				}
				if !sim.WebhookCompatible(ev.Class) {
					t.Errorf("Nextcloud %s does not accept %s", v, ev.Class)
				}
				if _, ok := webhook.FileEventByClass(ev.Class); !ok {
					t.Errorf("the intake does not accept %s", ev.Class)
				}
			}
			if err := l.SetEnabled(ctx, false); err != nil {
				t.Fatalf("disable on Nextcloud %s: %v", v, err)
			}
			if len(sim.SettingsForms("hybrid_search")) != 0 || len(sim.FileActions("hybrid_search")) != 0 {
				t.Errorf("Nextcloud %s: the form or the file action is left after disable", v)
			}
		})
	}
}
