package app

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// accessEnv is the app behind a front that can make Nextcloud's SEARCH
// (the access check) fail, as when Nextcloud is overloaded.
type accessEnv struct {
	*testEnv
	searchDown atomic.Bool
}

func newAccessEnv(t *testing.T, shareMaxAge time.Duration, setup func(sim *ncsim.Server)) *accessEnv {
	e := &accessEnv{}
	var ncURL string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "SEARCH" && e.searchDown.Load() {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		u, _ := url.Parse(ncURL)
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	e.testEnv = newTestEnv(t, envOptions{install: true, setup: setup, adjust: func(c *Config) {
		ncURL, c.NextcloudURL = c.NextcloudURL, front.URL
		c.ShareMaxAge = shareMaxAge
	}})
	// The install's scan keeps each user's share list as its baseline; a
	// share made before bob's is kept would count as already seen (on a
	// loaded machine the scans can still be running or due here).
	deadline := time.Now().Add(time.Minute)
	for !e.Main.Scanner.Idle() || e.Main.Scanner.Progress().Finished.IsZero() {
		if time.Now().After(deadline) {
			t.Fatalf("the install's scans did not finish in a minute: %+v", e.Main.Scanner.Progress())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return e
}

// searchAs runs GET api/search as u through the AppAPI proxy and decodes
// the answer.
func (e *testEnv) searchAs(t testing.TB, u *ncsim.User, query string) (hs.SearchResult, string) {
	t.Helper()
	resp, body := e.proxyGet(t, u, "api/search?"+query)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("search %s as %s = %d %s", query, u.UID, resp.StatusCode, body)
	}
	var res hs.SearchResult
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatalf("search answer: %v", err)
	}
	return res, body
}

func resultIDs(res hs.SearchResult) []hs.FileID {
	var out []hs.FileID
	for _, r := range res.Results {
		out = append(out, r.FileID)
	}
	return out
}

// mcpFinds reports whether u's nc_semantic_search for query returns file
// id, and the tool's structured answer.
func (e *testEnv) mcpFinds(t *testing.T, u *ncsim.User, args map[string]any, id int64) (bool, string) {
	t.Helper()
	res := e.mcpCall(t, u, "nc_semantic_search", args)
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		t.Fatalf("MCP search as %s: %s", u.UID, toolText(res))
	}
	return strings.Contains(string(b), `"file_id":`+itoa(id)+","), string(b)
}

// TestAccessFollowsNextcloud drives shares the way users do: alice shares
// a file from a private folder with bob, unshares it and shares it again,
// while bob searches over the API and MCP. No reconciliation scan runs.
func TestAccessFollowsNextcloud(t *testing.T) {
	e := newAccessEnv(t, time.Hour, func(sim *ncsim.Server) {
		sim.SeedFile("alice", "/Secret/HR-X/review-X.md", []byte("# Review X\n\nThe xylophone team review: strong quarter."))
		sim.SeedFile("alice", "/Secret/HR-X/salaries.md", []byte("Salaries of the xylophone team, confidential."))
	})
	review := e.mustStat(t, "alice", "/Secret/HR-X/review-X.md")
	salaries := e.mustStat(t, "alice", "/Secret/HR-X/salaries.md")
	e.awaitFile(t, "alice's files indexed", review.ID, isIndexed(review.ETag))
	e.awaitFile(t, "alice's files indexed", salaries.ID, isIndexed(salaries.ETag))
	const q = "q=xylophone"
	if res, _ := e.searchAs(t, &e.Bob, q); len(res.Results) != 0 {
		t.Fatalf("bob finds %v before any share", resultIDs(res))
	}
	scans := e.Main.Scanner.Progress().Started

	// 1. Share: bob's first search once his share list is due a look
	// waits for the new share and finds it, at his own path.
	sh := e.Sim.Share("alice", "/Secret/HR-X/review-X.md", "bob")
	shared := time.Now()
	e.Main.Shares.Expire("bob") // as if his list were older than a minute
	res, body := e.searchAs(t, &e.Bob, q)
	if !slices.Equal(resultIDs(res), []hs.FileID{hs.FileID(review.ID)}) {
		t.Fatalf("bob's first search after the share = %v, want the shared file (the search waits for it)", resultIDs(res))
	}
	t.Logf("share to visible: %s (the first search after the share list is due, which waited for it)", time.Since(shared).Round(time.Millisecond))
	if p := res.Results[0].Path; p != "/review-X.md" {
		t.Errorf("bob sees the shared file at %q, want his own /review-X.md", p)
	}
	if strings.Contains(body, "Secret") || strings.Contains(body, "HR-X") {
		t.Errorf("bob's answer names alice's folders: %s", body)
	}
	if got := e.Main.Scanner.Progress().Started; !got.Equal(scans) {
		t.Errorf("a scan ran (started %v); the share must arrive without one", got)
	}

	// 2. Filters use bob's path, never the owner's folders.
	for _, tt := range []struct {
		prefix string
		want   bool
	}{{"/Secret/HR-X", false}, {"/Secret", false}, {"/", true}, {"/review-X.md", true}} {
		res, _ := e.searchAs(t, &e.Bob, q+"&path_prefix="+url.QueryEscape(tt.prefix))
		if got := len(res.Results) == 1; got != tt.want {
			t.Errorf("bob with path_prefix %s finds %v, want found=%v", tt.prefix, resultIDs(res), tt.want)
		}
		if found, out := e.mcpFinds(t, &e.Bob, map[string]any{"query": "xylophone", "path_prefix": tt.prefix}, review.ID); found != tt.want || strings.Contains(out, "Secret") {
			t.Errorf("MCP as bob with path_prefix %s: found=%v, want %v: %s", tt.prefix, found, tt.want, out)
		}
	}
	if res, _ := e.searchAs(t, &e.Alice, q+"&path_prefix=/Secret/HR-X"); len(res.Results) != 2 {
		t.Errorf("alice in her own folder finds %v, want both files", resultIDs(res))
	}

	// 3. Unshare: gone from bob's very next search, API and MCP.
	e.Sim.Unshare(sh.ID)
	unshared := time.Now()
	if res, _ := e.searchAs(t, &e.Bob, q); len(res.Results) != 0 {
		t.Errorf("bob's first search after the unshare = %v, want nothing", resultIDs(res))
	}
	gone := time.Since(unshared)
	if found, _ := e.mcpFinds(t, &e.Bob, map[string]any{"query": "xylophone"}, review.ID); found {
		t.Error("bob's MCP search after the unshare still finds it")
	}
	t.Logf("unshare to gone: %s (bob's first search after it)", gone.Round(time.Millisecond))
	if gone > 2*time.Second {
		t.Errorf("unshare took %s to disappear, want within 2 s", gone)
	}
	e.awaitFile(t, "bob dropped as a reader", review.ID, func(ix indexed) bool { return !slices.Contains(ix.state.Readers, "bob") })

	// 4. Share again: the search that found the loss looks at bob's
	// shares again next time, so the re-share is back at once.
	e.Sim.Share("alice", "/Secret/HR-X/review-X.md", "bob")
	reshared := time.Now()
	res, _ = e.searchAs(t, &e.Bob, q)
	back := time.Since(reshared)
	if !slices.Equal(resultIDs(res), []hs.FileID{hs.FileID(review.ID)}) {
		t.Errorf("bob's first search after the re-share = %v, want the file", resultIDs(res))
	}
	t.Logf("re-share to visible: %s (bob's first search after it)", back.Round(time.Millisecond))
	if back > 2*time.Second {
		t.Errorf("re-share took %s to show, want within 2 s", back)
	}

	// 5. Nextcloud cannot confirm access: bob sees only what he saw before,
	// at his own path.
	e.searchDown.Store(true)
	res, body = e.searchAs(t, &e.Bob, q)
	e.searchDown.Store(false)
	if !slices.Equal(resultIDs(res), []hs.FileID{hs.FileID(review.ID)}) || !slices.Equal(res.Verification.Unverified, []hs.FileID{hs.FileID(review.ID)}) {
		t.Errorf("bob's search with the access check down = %v, verification %+v", resultIDs(res), res.Verification)
	} else if p := res.Results[0].Path; p != "/review-X.md" {
		t.Errorf("unverified result at %q, want bob's /review-X.md", p)
	}
	if strings.Contains(body, "Secret") || strings.Contains(body, "salaries") {
		t.Errorf("bob's unverified answer names what he cannot see: %s", body)
	}
}

// TestNewShareWithinRefreshInterval: with the share list looked at every
// second, a file shared with bob shows in his searches within about that
// long, without a scan.
func TestNewShareWithinRefreshInterval(t *testing.T) {
	t.Parallel()
	e := newAccessEnv(t, time.Second, func(sim *ncsim.Server) {
		sim.SeedFile("alice", "/Projects/okapi.md", []byte("Notes on the okapi enclosure."))
		sim.Mkdir("alice", "/Projects/Shared folder")
		sim.SeedFile("alice", "/Projects/Shared folder/tapir.md", []byte("Notes on the tapir enclosure."))
	})
	okapi := e.mustStat(t, "alice", "/Projects/okapi.md")
	tapir := e.mustStat(t, "alice", "/Projects/Shared folder/tapir.md")
	e.awaitFile(t, "indexed", okapi.ID, isIndexed(okapi.ETag))
	e.awaitFile(t, "indexed", tapir.ID, isIndexed(tapir.ETag))
	e.searchAs(t, &e.Bob, "q=okapi") // bob's list is fresh now
	scans := e.Main.Scanner.Progress().Started
	e.Sim.Share("alice", "/Projects/okapi.md", "bob")
	e.Sim.Share("alice", "/Projects/Shared folder", "bob")
	start := time.Now()
	var okapiAt, tapirAt time.Duration
	for (okapiAt == 0 || tapirAt == 0) && time.Since(start) < 30*time.Second {
		if res, _ := e.searchAs(t, &e.Bob, "q=okapi"); okapiAt == 0 && len(res.Results) == 1 {
			okapiAt = time.Since(start)
		}
		if res, _ := e.searchAs(t, &e.Bob, "q=tapir"); tapirAt == 0 && len(res.Results) == 1 {
			tapirAt = time.Since(start)
			if p := res.Results[0].Path; p != "/Shared folder/tapir.md" {
				t.Errorf("bob sees the file of the shared folder at %q", p)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if okapiAt == 0 || tapirAt == 0 {
		t.Fatalf("after 30 s bob finds the shared file: %v, the shared folder's file: %v", okapiAt != 0, tapirAt != 0)
	}
	t.Logf("share to visible with a 1 s share list age: file %s, file in a shared folder %s", okapiAt.Round(time.Millisecond), tapirAt.Round(time.Millisecond))
	if got := e.Main.Scanner.Progress().Started; !got.Equal(scans) {
		t.Errorf("a scan ran; shares must arrive without one")
	}
}
