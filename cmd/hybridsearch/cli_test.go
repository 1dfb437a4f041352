package main

import (
	"context"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

func TestStatusScanRetryCommands(t *testing.T) {
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
	if err != nil || !strings.Contains(out, "1 failed files queued again") {
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
