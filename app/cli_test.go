package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

func TestStatusScanRetryCommands(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, setup: func(sim *ncsim.Server) {
		sim.SeedFile("alice", "/ok.md", []byte("fine text about lemurs"))
		sim.SeedFile("alice", "/broken.pdf", []byte("%PDF-1.4 not really"))
	}})
	ctx := context.Background()
	broken := env.mustStat(t, "alice", "/broken.pdf")
	env.awaitFile(t, "broken pdf failed", broken.ID, func(ix indexed) bool { return ix.state.Status == hs.StatusFailed })

	run := func(args ...string) (string, error) {
		var out, errb strings.Builder
		var err error
		switch args[0] {
		case "status":
			err = runStatus(ctx, args[1:], env.getenv, &out, &errb)
		default:
			err = runControl(ctx, args[0], args[1:], env.getenv, &out, &errb)
		}
		return out.String() + errb.String(), err
	}
	out, err := run("status", "--user", "alice")
	if err != nil || !strings.Contains(out, "indexed 1") || !strings.Contains(out, "failed 1") || !strings.Contains(out, "/broken.pdf") {
		t.Errorf("status = %v\n%s", err, out)
	}
	out, err = run("status", "--user", "alice", "--all", "--json")
	if err != nil || !strings.Contains(out, `"per_user"`) {
		t.Errorf("status --all --json = %v\n%s", err, out)
	}
	if out, err = run("status", "--user", "bob", "--all"); err == nil || !strings.Contains(err.Error(), "needs an admin") {
		t.Errorf("status --all as bob = %v\n%s", err, out)
	}
	if out, err = run("status"); err == nil {
		t.Errorf("status without --user succeeded:\n%s", out)
	}

	before := env.Main.Pipeline.Counters().Processed
	out, err = run("retry", "--user", "alice")
	if err != nil || !strings.Contains(out, "1 failed file queued again") {
		t.Fatalf("retry = %v\n%s", err, out)
	}
	await(t, "the failed file processed again", 10*time.Second, func() bool { return env.Main.Pipeline.Counters().Processed > before })

	// A file that appeared without events is found by an on-demand scan.
	quiet := env.Sim.SeedFile("alice", "/quiet.md", []byte("appeared without events: a pika"))
	if out, err := run("scan", "--user", "alice"); err != nil || !strings.Contains(out, "scan requested") {
		t.Fatalf("scan = %v\n%s", err, out)
	}
	env.awaitFile(t, "scan indexes the quiet file", quiet.ID, isIndexed(quiet.ETag))

	// Without the app's environment the commands say what is missing.
	if err := runStatus(ctx, []string{"--user", "alice"}, func(string) string { return "" }, &strings.Builder{}, &strings.Builder{}); err == nil || !strings.Contains(err.Error(), "APP_") {
		t.Errorf("status without environment = %v", err)
	}
}

// TestLiveUpdatesNeedWebhookListeners: on an instance where the Nextcloud
// app webhook_listeners is disabled, registering webhooks fails, so the
// app's /enabled answer names the fix and AppAPI disables the app again;
// the status (here through the CLI, which reaches the app while AppAPI has
// it disabled) says live updates are off and why. Once an admin enables
// webhook_listeners and the app, live updates are on and the status shows
// how late deliveries arrive (p50/p95 over the last hour).
func TestLiveUpdatesNeedWebhookListeners(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{setup: func(sim *ncsim.Server) { sim.SetWebhookListenersEnabled(false) }})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := env.Sim.Install(ctx, "hybrid_search")
	if err == nil || !strings.Contains(err.Error(), "occ app:enable webhook_listeners") {
		t.Fatalf("install without webhook_listeners: %v, want the /enabled error naming the fix", err)
	}
	if st := env.Sim.AppStatus("hybrid_search"); st.Enabled {
		t.Errorf("AppAPI left the app enabled after /enabled failed: %+v", st)
	}
	status := func() (string, hs.IndexStatus) {
		t.Helper()
		var out, js strings.Builder
		if err := runStatus(ctx, []string{"--user", "alice"}, env.getenv, &out, &strings.Builder{}); err != nil {
			t.Fatal(err)
		}
		if err := runStatus(ctx, []string{"--user", "alice", "--json"}, env.getenv, &js, &strings.Builder{}); err != nil {
			t.Fatal(err)
		}
		var st hs.IndexStatus
		if err := json.Unmarshal([]byte(js.String()), &st); err != nil {
			t.Fatal(err)
		}
		return out.String(), st
	}
	out, st := status()
	if st.Live == nil || st.Live.Enabled || st.Live.ReasonCode != hs.LiveWebhookListenersDisabled ||
		!strings.Contains(out, "live updates") || !strings.Contains(out, "occ app:enable webhook_listeners") {
		t.Errorf("status without webhook_listeners: %+v\n%s", st.Live, out)
	}

	env.Sim.SetWebhookListenersEnabled(true)
	if err := env.Sim.Enable(ctx, "hybrid_search"); err != nil {
		t.Fatal(err)
	}
	f := env.Sim.PutFile("alice", "/live.md", []byte("a quoll"))
	env.awaitFile(t, "the file indexed", f.ID, isIndexed(f.ETag))
	await(t, "its webhook to arrive", 10*time.Second, func() bool {
		out, st = status()
		return st.Live != nil && st.Live.DeliveriesLastHour > 0
	})
	if l := st.Live; l == nil || !l.Enabled || l.ReasonCode != "" || l.DeliveriesLastHour == 0 || l.DelayP95Seconds < l.DelayP50Seconds {
		t.Errorf("status with live updates: %+v\n%s", l, out)
	}
	if !strings.Contains(out, "delay p50") {
		t.Errorf("the CLI does not show the delays:\n%s", out)
	}
}
