package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// watchNextcloud puts a front before Nextcloud that tells seen of each of
// the app's requests to Nextcloud, once answered, and how long that took.
func watchNextcloud(t testing.TB, o *envOptions, seen func(r *http.Request, took time.Duration)) {
	var ncURL string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := url.Parse(ncURL)
		start := time.Now()
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
		seen(r, time.Since(start))
	}))
	t.Cleanup(front.Close)
	adjust := o.adjust
	o.adjust = func(c *Config) {
		ncURL, c.NextcloudURL = c.NextcloudURL, front.URL
		if adjust != nil {
			adjust(c)
		}
	}
}

// countDownloads counts the app's file downloads (WebDAV GETs).
func countDownloads(t *testing.T, o *envOptions) *atomic.Int64 {
	var n atomic.Int64
	watchNextcloud(t, o, func(r *http.Request, _ time.Duration) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/remote.php/dav/files/") {
			n.Add(1)
		}
	})
	return &n
}

// longDoc is a Markdown document of several chunks whose text never says
// its file name.
func longDoc() string {
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "## Section %d\n\n", i+1)
		for range 6 {
			fmt.Fprintf(&b, "The okapi enclosure needs fresh browse and a dry shelter in part %d. ", i+1)
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// titles returns the distinct titles of a file's points.
func titles(pts []hs.Point) []string {
	var out []string
	for _, p := range pts {
		if len(out) == 0 || out[len(out)-1] != p.File.Title {
			out = append(out, p.File.Title)
		}
	}
	return out
}

// TestRenameReindexesTheName: MOVE /Docs/long.md to /Docs/renamed.md
// makes the file found by its new name and no longer by its old one, and
// re-embeds the chunks whose embedded text carried the old name; a
// document with its own title (front matter) moved to another folder
// keeps its title, is found by the new folder's name and re-embeds
// nothing. Nothing is downloaded again.
func TestRenameReindexesTheName(t *testing.T) {
	t.Parallel()
	ollama, opts := withOllama(t)
	downloads := countDownloads(t, &opts)
	env := newTestEnv(t, opts)
	long := env.Sim.PutFile("alice", "/Docs/long.md", []byte(longDoc()))
	zebra := env.Sim.PutFile("alice", "/Docs/zebra.md", []byte("---\ntitle: Quarterly zebra plan\n---\n\n"+longDoc()))
	ixLong := env.awaitFile(t, "long.md indexed", long.ID, isIndexed(long.ETag))
	ixZebra := env.awaitFile(t, "zebra.md indexed", zebra.ID, isIndexed(zebra.ETag))
	if len(ixLong.points) < 3 {
		t.Fatalf("long.md has %d chunks, want several", len(ixLong.points))
	}
	if got := titles(ixZebra.points); len(got) != 1 || got[0] != "Quarterly zebra plan" {
		t.Fatalf("zebra.md indexed under titles %q", got)
	}
	finds := func(q string, id int64) (int, bool) {
		res, _ := env.searchAs(t, &env.Alice, "algorithm=keyword&q="+q)
		for i, r := range res.Results {
			if r.FileID == hs.FileID(id) {
				return i + 1, true
			}
		}
		return 0, false
	}
	if _, ok := finds("long", long.ID); !ok {
		t.Fatal("before the rename, a search for long does not find long.md")
	}

	ollama.ResetRequests()
	before := downloads.Load()
	env.Sim.Move("alice", "/Docs/long.md", "/Docs/renamed.md")
	env.Sim.Mkdir("alice", "/Planning")
	env.Sim.Move("alice", "/Docs/zebra.md", "/Planning/q3.md")
	ixLong = env.awaitFile(t, "renamed.md re-indexed", long.ID, func(ix indexed) bool {
		got := titles(ix.points)
		return len(got) == 1 && got[0] == "renamed" && ix.points[0].File.Path == "/Docs/renamed.md"
	})
	ixZebra = env.awaitFile(t, "q3.md re-indexed", zebra.ID, func(ix indexed) bool {
		return len(ix.points) > 0 && ix.points[0].File.Path == "/Planning/q3.md"
	})
	if got := titles(ixZebra.points); len(got) != 1 || got[0] != "Quarterly zebra plan" {
		t.Errorf("after the move zebra.md's title is %q, want its own, Quarterly zebra plan", got)
	}
	inputs := 0
	for _, r := range ollama.EmbedRequests() {
		inputs += len(r.Inputs)
		for _, in := range r.Inputs {
			if !strings.Contains(in, "renamed") {
				t.Errorf("embedded %.60q…, which is not a chunk of renamed.md under its new title", in)
			}
		}
	}
	t.Logf("re-embedded after the two moves: %d inputs (renamed.md has %d chunks, title from the name; q3.md has %d, its own title)", inputs, len(ixLong.points), len(ixZebra.points))
	if inputs != len(ixLong.points) {
		t.Errorf("%d inputs embedded, want renamed.md's %d chunks and none of q3.md", inputs, len(ixLong.points))
	}
	if n := downloads.Load() - before; n != 0 {
		t.Errorf("%d downloads for two moves, want none", n)
	}
	if rank, ok := finds("renamed", long.ID); !ok || rank != 1 {
		t.Errorf("a search for renamed ranks renamed.md at %d (found %v), want first", rank, ok)
	}
	if rank, ok := finds("long", long.ID); ok {
		t.Errorf("a search for long still finds renamed.md (rank %d)", rank)
	}
	if _, ok := finds("planning", zebra.ID); !ok {
		t.Error("a search for planning (its new folder) does not find q3.md")
	}
	if rank, ok := finds("quarterly+zebra+plan", zebra.ID); !ok || rank != 1 {
		t.Errorf("a search for its own title ranks q3.md at %d (found %v), want first", rank, ok)
	}

	// A rename whose webhook never comes: the next scan mends it.
	env.Sim.PauseWebhooks()
	env.Sim.Move("alice", "/Docs/renamed.md", "/Docs/final.md")
	if err := env.Main.Scanner.ScanAll(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	env.awaitFile(t, "final.md re-indexed by the scan", long.ID, func(ix indexed) bool {
		got := titles(ix.points)
		return len(got) == 1 && got[0] == "final" && ix.points[0].File.Path == "/Docs/final.md"
	})
	if rank, ok := finds("final", long.ID); !ok || rank != 1 {
		t.Errorf("after the scan a search for final ranks final.md at %d (found %v), want first", rank, ok)
	}
}
