package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// TestStoriesOnEveryVersion runs the install, indexing and MCP stories
// against the simulated Nextcloud 32, 33, 34 and 35. What differs between
// them and matters here: route matching (32 and 33 as .0 releases use
// AppAPI's legacy matching), headers_to_exclude from info.xml (ignored up
// to 34, honoured on 35), and NodeUpdatedEvent next to NodeWrittenEvent
// for edits (34 and 35).
func TestStoriesOnEveryVersion(t *testing.T) {
	t.Parallel()
	for _, v := range ncsim.Versions {
		t.Run(v, func(t *testing.T) {
			_, o := withOllama(t)
			o.version = v
			env := newTestEnv(t, o)
			if got := env.Sim.ServerVersion; !strings.HasPrefix(got, v+".") {
				t.Fatalf("simulated version %s, want %s", got, v)
			}
			installStory(t, env)
			webdavEditStory(t, env, v)
			indexingStory(t, env)
			mcpStory(t, env)
		})
	}
}

// installStory: the app is enabled with its UI and one webhook per event
// it listens to, the trash restore event among them.
func installStory(t *testing.T, env *testEnv) {
	t.Helper()
	st := env.Sim.AppStatus("hybrid_search")
	if !st.Enabled || st.Progress != 100 || st.Error != "" {
		t.Fatalf("after install: %+v", st)
	}
	checkRegistered(t, env)
	restore := false
	for _, w := range env.Sim.Webhooks() {
		restore = restore || w.Event == ncsim.NodeRestoredEvent
	}
	if !restore {
		t.Errorf("no webhook for %s", ncsim.NodeRestoredEvent)
	}
}

// webdavEditStory: alice saves a file over WebDAV with her app password,
// as the desktop client does, then edits it. Nextcloud delivers each
// webhook signed as alice (server PR #52699, in every release from 32),
// and the edit is searchable within seconds with no scan running
// (SCAN_INTERVAL=0, and the scan enabling starts is over). The time from
// the edit to the first search that finds it is logged, per version.
func webdavEditStory(t *testing.T, env *testEnv, version string) {
	t.Helper()
	await(t, "the scan started by enabling to end", 30*time.Second, func() bool {
		return env.Main.Scanner.Idle() && !env.Main.Scanner.Progress().Finished.IsZero()
	})
	scanStarted := env.Main.Scanner.Progress().Started
	put := func(body string) ncsim.FileInfo {
		t.Helper()
		url := env.Sim.BaseURL + "/remote.php/dav/files/alice/Budget%202027.md"
		req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
		req.SetBasicAuth("alice", env.Alice.AppPassword)
		if resp, text := doReq(t, req); resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusNoContent {
			t.Fatalf("WebDAV PUT = %d %s", resp.StatusCode, text)
		}
		return env.mustStat(t, "alice", "/Budget 2027.md")
	}
	f := put("# Budget 2027\n\nThe first draft.")
	env.awaitFile(t, "a file uploaded over WebDAV", f.ID, isIndexed(f.ETag))
	found := func() bool {
		res, _ := env.searchAs(t, &env.Alice, "algorithm=keyword&q=wombat")
		return slices.Contains(resultIDs(res), hs.FileID(f.ID))
	}
	if found() {
		t.Fatal("the search finds the file before the edit")
	}
	edited := time.Now()
	f = put("# Budget 2027\n\nThe wombat line item is final.")
	var took time.Duration
	await(t, "the WebDAV edit to be searchable", 15*time.Second, func() bool {
		took = time.Since(edited)
		ix := env.lookup(t, f.ID)
		return isIndexed(f.ETag)(ix) && found()
	})
	t.Logf("Nextcloud %s: WebDAV edit by alice searchable after %s (scans off; simulated cron every %s)", version, took.Round(time.Millisecond), env.Sim.WebhookInterval)
	if p := env.Main.Scanner.Progress(); p.Running || !p.Started.Equal(scanStarted) {
		t.Errorf("a scan ran during the story (%+v); the webhook alone must bring the edit", p)
	}
	users := map[string]bool{}
	for _, d := range env.Sim.Deliveries() {
		if strings.Contains(string(d.Body), "Budget 2027") {
			users[d.User] = true
			if d.Status != http.StatusOK {
				t.Errorf("delivery %s as %q = %d %s", d.Event, d.User, d.Status, d.Err)
			}
		}
	}
	if !users["alice"] || len(users) != 1 {
		t.Errorf("deliveries for the file were signed as %v, want alice only", users)
	}
}

// indexingStory: create, edit, rename, delete and restore each reach the
// index through webhooks alone (no scan runs).
func indexingStory(t *testing.T, env *testEnv) {
	t.Helper()
	sim := env.Sim
	f := sim.PutFile("alice", "/Story/plan.md", []byte("# Plan\n\nThe zebracorn migration starts on Monday."))
	env.awaitFile(t, "created", f.ID, isIndexed(f.ETag))
	f = sim.PutFile("alice", "/Story/plan.md", []byte("# Plan\n\nThe quokka migration starts on Tuesday."))
	ix := env.awaitFile(t, "edited", f.ID, isIndexed(f.ETag))
	if strings.Contains(text(ix.points), "zebracorn") {
		t.Errorf("old text still indexed after the edit")
	}
	sim.Move("alice", "/Story/plan.md", "/Story/plan-v2.md")
	env.awaitFile(t, "renamed", f.ID, func(ix indexed) bool { return len(ix.points) > 0 && ix.points[0].File.Path == "/Story/plan-v2.md" })
	sim.Remove("alice", "/Story/plan-v2.md")
	env.awaitFile(t, "deleted", f.ID, func(ix indexed) bool { return len(ix.points) == 0 })
	var name string
	for _, it := range sim.Trash("alice") {
		if strings.HasPrefix(it.Name, "plan-v2.md") {
			name = it.Name
		}
	}
	r := sim.Restore("alice", name)
	env.awaitFile(t, "restored", r.ID, func(ix indexed) bool { return len(ix.points) > 0 && ix.points[0].File.Path == "/Story/plan-v2.md" })
}

// mcpStory: an MCP client signs in through Nextcloud's proxy with an app
// password (Basic or Bearer) and with an app-issued token, and through
// HaRP with either; bob's document never shows to alice; the app password
// never appears in the app's logs.
func mcpStory(t *testing.T, env *testEnv) {
	t.Helper()
	sim := env.Sim
	bob := sim.PutFile("bob", "/Private/salaries.md", []byte("Bob salaries: the quokka team "+bobMarker+" list."))
	env.awaitFile(t, "bob's file", bob.ID, isIndexed(bob.ETag))
	tok, _, err := env.Main.Tokens.Issue(context.Background(), "alice", "story", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	fronts := map[string]string{
		"proxy": sim.BaseURL + "/index.php/apps/app_api/proxy/hybrid_search/mcp",
		"HaRP":  sim.BaseURL + "/exapps/hybrid_search/mcp",
	}
	creds := map[string]http.Header{
		"app password as Basic":  {"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+env.Alice.AppPassword))}},
		"app password as Bearer": {"Authorization": {"Bearer " + env.Alice.AppPassword}},
		"app-issued token":       {"Authorization": {"Bearer " + tok}},
	}
	for front, url := range fronts {
		for name, h := range creds {
			text, err := mcpSearch(t, url, h, "quokka migration")
			if err != nil {
				t.Errorf("%s, %s: %v", front, name, err)
				continue
			}
			if !strings.Contains(text, "plan-v2") || strings.Contains(text, bobMarker) {
				t.Errorf("%s, %s: search answer %.300s", front, name, text)
			}
		}
		if _, err := mcpSearch(t, url, http.Header{"Authorization": {"Bearer not-a-token"}}, "quokka"); err == nil ||
			!strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("%s, a token nobody issued: %v, want 401 Unauthorized", front, err)
		}
	}
	if logs := env.Logs.String(); strings.Contains(logs, env.Alice.AppPassword) || strings.Contains(logs, tok) {
		t.Error("the app logged an app password or token")
	}
}

// mcpSearch calls nc_semantic_search through url with the given headers
// and returns the structured result as JSON text.
func mcpSearch(t *testing.T, url string, h http.Header, query string) (string, error) {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "story", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: headerTransport(h)}}, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		return "", err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "nc_semantic_search", Arguments: map[string]any{"query": query}})
	if err != nil {
		return "", err
	}
	b, _ := json.Marshal(res.StructuredContent)
	return string(b), nil
}

// headerTransport adds fixed headers to every request.
type headerTransport http.Header

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range h {
		r.Header[k] = vs
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestCachedWebhookEventsCoveredByScan: webhook_listeners caches, per user
// and for five minutes, which event classes have webhooks, and a session
// request uses the user's cached set. So a user who was browsing before
// the app was installed fires no webhook from that session for up to five
// minutes; the reconciliation scan indexes those files all the same.
func TestCachedWebhookEventsCoveredByScan(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{})
	sim := env.Sim
	cookie := sim.NewSession("bob")
	browse := func(method, path, body string) *http.Response {
		req, _ := http.NewRequest(method, sim.BaseURL+path, strings.NewReader(body))
		req.AddCookie(cookie)
		resp, _ := doReq(t, req)
		return resp
	}
	if resp := browse(http.MethodGet, "/index.php/apps/files/", ""); resp.StatusCode != 200 {
		t.Fatalf("bob's files page = %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sim.Install(ctx, "hybrid_search"); err != nil {
		t.Fatal(err)
	}
	if resp := browse(http.MethodPut, "/remote.php/dav/files/bob/from-the-browser.md", "Uploaded in a cached session: pangolin."); resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload = %d", resp.StatusCode)
	}
	if err := sim.FlushWebhooks(ctx); err != nil {
		t.Fatal(err)
	}
	for _, d := range sim.Deliveries() {
		if strings.Contains(string(d.Body), "from-the-browser") {
			t.Fatalf("a webhook was delivered for the upload; the cached session should have fired none: %s", d.Body)
		}
	}
	f := env.mustStat(t, "bob", "/from-the-browser.md")
	if err := env.Main.Scanner.ScanAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	ix := env.awaitFile(t, "the scan indexes the silent upload", f.ID, isIndexed(f.ETag))
	if !strings.Contains(text(ix.points), "pangolin") {
		t.Errorf("indexed text = %q", text(ix.points))
	}
}

// TestGoneNodeIDForms: a deleted node and a rename's source may arrive
// with or without their id (ncsim.GoneIDs); the indexing story holds with
// neither and with both carrying it (the default, deletes with and rename
// sources without, runs in TestStoriesOnEveryVersion).
func TestGoneNodeIDForms(t *testing.T) {
	t.Parallel()
	for name, mode := range map[string]ncsim.GoneIDs{"none": ncsim.GoneIDsNone, "all": ncsim.GoneIDsAll} {
		t.Run(name, func(t *testing.T) {
			_, o := withOllama(t)
			o.setup = func(sim *ncsim.Server) { sim.GoneNodeIDs = mode }
			env := newTestEnv(t, o)
			await(t, "the scan started by enabling to end", 30*time.Second, env.Main.Scanner.Idle)
			indexingStory(t, env)
			withID := false
			for _, ev := range env.Sim.Events() {
				if ev.Class == ncsim.NodeDeletedEvent && ev.Node.ID != 0 || ev.Class == ncsim.NodeRenamedEvent && ev.Source.ID != 0 {
					withID = true
				}
			}
			if withID != (mode == ncsim.GoneIDsAll) {
				t.Errorf("mode %s: gone nodes with an id: %v", name, withID)
			}
		})
	}
}
