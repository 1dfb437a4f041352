package app

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// TestVizRefusesWhatSearchRefuses: GET /api/viz takes the parameters of
// GET /api/search, so a request the search refuses as the caller's
// mistake (400) is refused the same way by the map, not answered 503 as
// if something were down. Semantic search on an app without an embedding
// model is such a request: it can never succeed.
func TestVizRefusesWhatSearchRefuses(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, quiet: true})
	for _, q := range []string{
		"q=x&algorithm=semantic", "q=", "q=x&top_k=1000", "q=x&algorithm=bogus", "q=x&fusion=bogus",
		"q=x&semantic_weight=2", "q=x&types=bogus", "q=x&modified_after=bogus", "q=x&score_threshold=5",
		"q=x&fusion=auto&semantic_weight=0.5", "q=x&limit=abc", "q=" + url.QueryEscape(strings.Repeat("long ", 400)),
	} {
		search, sbody := env.proxyGet(t, &env.Alice, "/api/search?"+q)
		viz, vbody := env.proxyGet(t, &env.Alice, "/api/viz?"+q)
		if search.StatusCode != http.StatusBadRequest || viz.StatusCode != search.StatusCode {
			t.Errorf("%.60s: search %d %.200s; viz %d %.200s; want 400 from both", q, search.StatusCode, sbody, viz.StatusCode, vbody)
		}
	}
}

// TestAllUsersNeedsAnAdmin: a signed-in user who is not an admin and asks
// for every user's figures is forbidden (403), not unauthenticated (401):
// on /api/status, /api/scan and /api/retry, and the CLI says who may.
func TestAllUsersNeedsAnAdmin(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, quiet: true})
	resp, body := env.proxyGet(t, &env.Bob, "api/status?all=1")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, `"kind":"forbidden"`) || !strings.Contains(body, "admin") {
		t.Errorf("GET /api/status?all=1 as bob = %d %s, want 403 forbidden", resp.StatusCode, body)
	}
	for _, path := range []string{"api/scan?all=1", "api/retry?all=1"} {
		req, _ := http.NewRequest(http.MethodPost, env.Sim.BaseURL+"/index.php/apps/app_api/proxy/hybrid_search/"+path, nil)
		req.SetBasicAuth(env.Bob.UID, env.Bob.AppPassword)
		if resp, body := doReq(t, req); resp.StatusCode != http.StatusForbidden {
			t.Errorf("POST /%s as bob = %d %s, want 403", path, resp.StatusCode, body)
		}
	}
	var out, errb strings.Builder
	err := runStatus(t.Context(), []string{"--user", "bob", "--all"}, env.getenv, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "needs an admin") || !strings.Contains(err.Error(), "bob") {
		t.Errorf("hybridsearch status --user bob --all = %v, want \"needs an admin\" naming bob", err)
	}
	if err := runStatus(t.Context(), []string{"--user", "alice", "--all", "--json"}, env.getenv, &out, &errb); err != nil {
		t.Errorf("status --all as the admin alice = %v\n%s", err, out.String())
	}
}

// TestOwnerDeletedSharedFileDroppedOnce: alice shares a file with bob and
// is then deleted in Nextcloud (her files and shares go with her; no
// webhook says so). Bob's next search finds the file in the index, sees
// that Nextcloud no longer gives it to him and queues it; that one job
// drops the file from the index (its only other reader is gone too), so
// no later search queues it again.
func TestOwnerDeletedSharedFileDroppedOnce(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, quiet: true, setup: func(sim *ncsim.Server) {
		sim.AddUser("carol", "Carol", false)
		sim.SeedFile("carol", "/Team/okapi-plan.md", []byte("Carol's okapi plan, shared with bob."))
	}})
	ctx := t.Context()
	env.Sim.Share("carol", "/Team/okapi-plan.md", "bob")
	if err := env.Main.Scanner.ScanAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	plan := env.mustStat(t, "carol", "/Team/okapi-plan.md")
	env.awaitFile(t, "carol's plan indexed for both", plan.ID, func(ix indexed) bool {
		return len(ix.points) > 0 && slices.Equal(ix.state.Readers, []hs.UserID{"bob", "carol"})
	})

	env.Sim.DeleteUser("carol")
	res, _ := env.searchAs(t, &env.Bob, "q=okapi&algorithm=keyword")
	if len(res.Results) != 0 {
		t.Errorf("bob still finds the deleted owner's file: %v", resultIDs(res))
	}
	env.awaitFile(t, "the deleted owner's file dropped from the index", plan.ID, func(ix indexed) bool { return !ix.found && len(ix.points) == 0 })
	processed := env.Main.Pipeline.Counters().Processed
	for range 3 {
		if res, _ := env.searchAs(t, &env.Bob, "q=okapi&algorithm=keyword"); len(res.Results) != 0 {
			t.Errorf("bob finds %v after the drop", resultIDs(res))
		}
	}
	time.Sleep(500 * time.Millisecond) // a job queued by those searches would run by now
	if got := env.Main.Pipeline.Counters().Processed; got != processed {
		t.Errorf("%d more jobs ran after the file was dropped, want none", got-processed)
	}
}
