package app

import (
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// TestDeletedUserLosesAccess: bob, with an app-issued token, an OAuth
// grant, private files, a file alice shared with him and one he shared
// with alice, is deleted in Nextcloud (no webhook says so). Within the
// documented time his tokens get 401 on /mcp directly, through the AppAPI
// proxy and through HaRP, and his refresh token is refused; the next full
// scan drops his files from the index, takes him off alice's shared file
// and deletes his token records and share list.
func TestDeletedUserLosesAccess(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, setup: func(sim *ncsim.Server) {
		sim.SeedFile("bob", "/Private/salaries.md", []byte("Bob's salaries: the okapi team earns well."))
		sim.SeedFile("bob", "/Out/for-alice.md", []byte("Bob's okapi notes, shared with alice."))
		sim.SeedFile("alice", "/Team/plan.md", []byte("Alice's okapi plan, shared with bob."))
	}})
	ctx := t.Context()
	sim := env.Sim
	sim.Share("alice", "/Team/plan.md", "bob")
	sim.Share("bob", "/Out/for-alice.md", "alice")
	if err := env.Main.Scanner.ScanAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	salaries, forAlice, plan := env.mustStat(t, "bob", "/Private/salaries.md"), env.mustStat(t, "bob", "/Out/for-alice.md"), env.mustStat(t, "alice", "/Team/plan.md")
	readers := func(want ...hs.UserID) func(ix indexed) bool {
		return func(ix indexed) bool {
			return len(ix.points) > 0 && ix.state.Status == hs.StatusIndexed && slices.Equal(ix.state.Readers, want)
		}
	}
	env.awaitFile(t, "bob's private file indexed", salaries.ID, readers("bob"))
	env.awaitFile(t, "bob's shared file indexed for both", forAlice.ID, readers("alice", "bob"))
	env.awaitFile(t, "alice's shared file indexed for both", plan.ID, readers("alice", "bob"))

	appToken, _, err := env.Main.Tokens.Issue(ctx, "bob", "laptop", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	o := &oauthEnv{testEnv: env, base: sim.BaseURL + "/index.php/apps/app_api/proxy/hybrid_search", redirect: testRedirect}
	o.clientID = o.register(t, `{"client_name":"Bob's Assistant","redirect_uris":["`+testRedirect+`"],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"]}`)
	verifier, challenge := pkcePair("bob")
	status, pair := o.exchange(t, o.codeAs(t, "bob", challenge, "s1"), verifier, nil)
	access, _ := pair["access_token"].(string)
	refresh, _ := pair["refresh_token"].(string)
	if status != 200 || access == "" || refresh == "" {
		t.Fatalf("bob's OAuth sign-in: %d %v", status, pair)
	}
	fronts := map[string]string{
		"direct": env.Main.DirectMCPURL(),
		"proxy":  sim.BaseURL + "/index.php/apps/app_api/proxy/hybrid_search/mcp",
		"HaRP":   sim.BaseURL + "/exapps/hybrid_search/mcp",
	}
	toks := map[string]string{"app-issued token": appToken, "OAuth access token": access}
	for front, url := range fronts {
		for name, tok := range toks {
			if front == "direct" && name == "OAuth access token" {
				continue // OAuth tokens are for the proxied URL
			}
			text, err := mcpSearch(t, url, bearer(tok), "okapi")
			if err != nil || !strings.Contains(text, "salaries") {
				t.Fatalf("bob's %s through %s before his deletion: %v %.200s", name, front, err, text)
			}
		}
	}

	sim.DeleteUser("bob")
	deleted := time.Now()
	await(t, "bob's token refused", userListMaxAge+15*time.Second, func() bool { return o.mcpStatus(t, appToken) == 401 })
	t.Logf("bob's token refused %s after his deletion (a user list is trusted for %s)", time.Since(deleted).Round(time.Millisecond), userListMaxAge)
	for front, url := range fronts {
		for name, tok := range toks {
			if _, err := mcpSearch(t, url, bearer(tok), "okapi"); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
				t.Errorf("bob's %s through %s after his deletion: %v, want 401 Unauthorized", name, front, err)
			}
		}
	}
	if status, body := o.refresh(t, refresh); status != 400 || body["error"] != "invalid_grant" {
		t.Errorf("bob's refresh token after his deletion: %d %v, want 400 invalid_grant", status, body)
	}

	// The next full scan forgets him.
	if err := env.Main.Scanner.ScanAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	gone := func(ix indexed) bool { return !ix.found && len(ix.points) == 0 }
	env.awaitFile(t, "bob's private file gone from the index", salaries.ID, gone)
	env.awaitFile(t, "the file bob shared gone from the index", forAlice.ID, gone)
	env.awaitFile(t, "bob off alice's shared file", plan.ID, readers("alice"))
	if ix := env.lookup(t, plan.ID); slices.Contains(ix.points[0].File.Readers, "bob") || ix.points[0].File.PathOf("bob") != "" {
		t.Errorf("alice's file still lists bob in the index: %+v", ix.points[0].File)
	}
	if got := env.Main.Scanner.Progress().UsersGone; got != 1 {
		t.Errorf("scan progress: %d users gone, want 1", got)
	}
	if list, err := env.Main.Tokens.List(ctx, "bob"); err != nil || len(list) != 0 {
		t.Errorf("bob's token records after the scan: %+v, %v; want none", list, err)
	}
	lists, err := env.Main.KV.ShareLists(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lists.Get(ctx, "bob"); hs.ErrorKind(err) != hs.ENOTFOUND {
		t.Errorf("bob's share list after the scan: %v, want none", err)
	}
	// Alice is untouched.
	res, _ := env.searchAs(t, &env.Alice, "q=okapi")
	if ids := resultIDs(res); !slices.Equal(ids, []hs.FileID{hs.FileID(plan.ID)}) {
		t.Errorf("alice finds %v, want her plan only", ids)
	}
}

// bearer is the header of a bearer token.
func bearer(tok string) map[string][]string {
	return map[string][]string{"Authorization": {"Bearer " + tok}}
}
