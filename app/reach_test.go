package app

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// TestNewFileInSharedFolder: alice shares a folder with bob and carol;
// later alice, then bob, upload a new file into it. Nextcloud fires the
// webhook for the uploader's path only, and no scan runs, yet the other
// two find each file at their own path within 60 s.
func TestNewFileInSharedFolder(t *testing.T) {
	t.Parallel()
	var carol ncsim.User
	env := newAccessEnv(t, time.Hour, func(sim *ncsim.Server) {
		carol = sim.AddUser("carol", "Carol", false)
		sim.SeedFile("alice", "/Work/Projects/old.md", []byte("An older note on the wombat project."))
	})
	ctx := t.Context()
	env.Sim.Share("alice", "/Work/Projects", "bob")
	env.Sim.Share("alice", "/Work/Projects", "carol")
	if err := env.Main.Scanner.ScanAll(ctx, nil); err != nil { // the shares as they stand: each user's baseline
		t.Fatal(err)
	}
	old := env.mustStat(t, "alice", "/Work/Projects/old.md")
	env.awaitFile(t, "the shared folder indexed for all three", old.ID, func(ix indexed) bool {
		return slices.Equal(ix.state.Readers, []hs.UserID{"alice", "bob", "carol"})
	})
	scans := env.Main.Scanner.Progress().Started

	finds := func(u *ncsim.User, query string, id int64) (string, bool) {
		res, _ := env.searchAs(t, u, query)
		for _, r := range res.Results {
			if r.FileID == hs.FileID(id) {
				return r.Path, true
			}
		}
		return "", false
	}
	for _, tt := range []struct {
		uploader string
		query    string
		body     string
	}{
		{"alice", "q=numbat", "Alice's new numbat plan, uploaded into the shared folder."},
		{"bob", "q=quokka", "Bob's quokka notes, uploaded into alice's shared folder."},
	} {
		upPath := "/Work/Projects/" + tt.uploader + "-new.md"
		if tt.uploader == "bob" {
			upPath = "/Projects/bob-new.md" // where bob sees alice's folder
		}
		f := env.Sim.PutFile(tt.uploader, upPath, []byte(tt.body))
		uploaded := time.Now()
		want := map[*ncsim.User]string{&env.Alice: "/Work/Projects/" + tt.uploader + "-new.md", &env.Bob: "/Projects/" + tt.uploader + "-new.md", &carol: "/Projects/" + tt.uploader + "-new.md"}
		for u, wantPath := range want {
			if u.UID == tt.uploader {
				continue
			}
			var got string
			await(t, u.UID+" finds "+tt.uploader+"'s new file", 60*time.Second, func() bool {
				p, ok := finds(u, tt.query, f.ID)
				got = p
				return ok
			})
			t.Logf("%s's upload into the shared folder found by %s %s after the upload", tt.uploader, u.UID, time.Since(uploaded).Round(time.Millisecond))
			if got != wantPath {
				t.Errorf("%s sees %s's new file at %q, want %q", u.UID, tt.uploader, got, wantPath)
			}
		}
	}
	if got := env.Main.Scanner.Progress().Started; !got.Equal(scans) {
		t.Errorf("a scan ran (started %v); new files must reach the recipients without one", got)
	}
}

// TestNewFileInFreshlySharedFolder: alice uploads Team/a.md, shares /Team
// with bob and uploads Team/new.md a second later. The share brings no
// event, and bob's share list is not due a look (an hour), so only the
// upload's event can tell: it must see the share made before it, although
// a.md's event looked at /Team's shares a second earlier.
func TestNewFileInFreshlySharedFolder(t *testing.T) {
	t.Parallel()
	env := newAccessEnv(t, time.Hour, func(sim *ncsim.Server) { sim.Mkdir("alice", "/Team") })
	a := env.Sim.PutFile("alice", "/Team/a.md", []byte("The aardvark survey, first draft."))
	env.awaitFile(t, "a.md indexed for alice", a.ID, isIndexed(a.ETag))
	env.searchAs(t, &env.Bob, "q=aardvark") // bob's share list is fresh now, for an hour
	scans := env.Main.Scanner.Progress().Started
	env.Sim.Share("alice", "/Team", "bob")
	time.Sleep(time.Second)
	n := env.Sim.PutFile("alice", "/Team/new.md", []byte("The numbat census, uploaded after the share."))
	uploaded := time.Now()
	await(t, "bob finds new.md", 15*time.Second, func() bool {
		res, _ := env.searchAs(t, &env.Bob, "q=numbat")
		return slices.Contains(resultIDs(res), hs.FileID(n.ID))
	})
	t.Logf("a new file in a folder shared a second before: found by bob %s after the upload", time.Since(uploaded).Round(time.Millisecond))
	// The file's state may be saved a moment after its points are
	// searchable: wait for it.
	env.awaitFile(t, "bob's path to new.md recorded", n.ID, func(ix indexed) bool { return ix.state.Paths["bob"] == "/Team/new.md" })
	if got := env.Main.Scanner.Progress().Started; !got.Equal(scans) {
		t.Errorf("a scan ran (started %v); the share must reach the new file without one", got)
	}
}

// inheritedCalls puts a front before Nextcloud that counts the app's asks
// for the shares above a path (OCS shares/inherited) and sums their time.
type inheritedCalls struct {
	n     atomic.Int64
	nanos atomic.Int64
}

func countInherited(t *testing.T, o *envOptions) *inheritedCalls {
	c := &inheritedCalls{}
	watchNextcloud(t, o, func(r *http.Request, took time.Duration) {
		if strings.HasSuffix(r.URL.Path, "/shares/inherited") {
			c.n.Add(1)
			c.nanos.Add(int64(took))
		}
	})
	return c
}

// TestReachCost measures what seeing every share at the next file event
// costs: Nextcloud is asked once per new file's event, except for events
// that waited in the queue, which share a look. Figures, not limits: one
// upload at a time (each event processed at once), and a burst of
// uploads whose events queue up behind the workers.
func TestReachCost(t *testing.T) {
	opts := envOptions{install: true, setup: func(sim *ncsim.Server) { sim.Mkdir("alice", "/Team") }}
	calls := countInherited(t, &opts)
	env := newTestEnv(t, opts)
	env.Sim.Share("alice", "/Team", "bob")
	if err := env.Main.Scanner.ScanAll(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	env.searchAs(t, &env.Bob, "q=x") // bob's share list is fresh
	reachesBob := func(ids []int64) func() bool {
		return func() bool {
			for _, id := range ids {
				if !slices.Contains(env.lookup(t, id).state.Readers, "bob") {
					return false
				}
			}
			return true
		}
	}
	run := func(name string, n int, upload func(i int) int64) {
		calls.n.Store(0)
		calls.nanos.Store(0)
		start := time.Now()
		ids := make([]int64, n)
		for i := range n {
			ids[i] = upload(i)
		}
		await(t, name+": every file reaches bob", 60*time.Second, reachesBob(ids))
		took := time.Since(start)
		looks := calls.n.Load()
		mean := time.Duration(0)
		if looks > 0 {
			mean = time.Duration(calls.nanos.Load() / looks)
		}
		t.Logf("%s: %d files reached bob in %s; %d asks for the shares above (%.2f per file), %s each on average (simulator)",
			name, n, took.Round(time.Millisecond), looks, float64(looks)/float64(n), mean.Round(time.Microsecond))
		if looks > int64(n) {
			t.Errorf("%s: %d asks for %d files", name, looks, n)
		}
	}
	run("one upload at a time", 40, func(i int) int64 {
		f := env.Sim.PutFile("alice", "/Team/live-"+strconv.Itoa(i)+".md", []byte("Live upload number "+strconv.Itoa(i)))
		env.awaitFile(t, "indexed", f.ID, isIndexed(f.ETag))
		return f.ID
	})
	env.Sim.PauseWebhooks()
	ids := 0
	run("a burst of 300 queued uploads", 300, func(i int) int64 {
		f := env.Sim.PutFile("alice", "/Team/burst-"+strconv.Itoa(i)+".md", []byte("Burst upload number "+strconv.Itoa(i)))
		if ids++; ids == 300 {
			if err := env.Sim.FlushWebhooks(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		return f.ID
	})
}
