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
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
)

// BenchmarkShareVisibility measures how long a new share takes to show in
// the recipient's searches in the worst case: alice shares a file with bob
// right after bob's search looked at his shares, and bob searches every
// 200 ms until he finds it; the time runs from the share to the answer
// that lists it (the refresh, the job adding bob as a reader, the search).
// With the default share list age (indexing.DefaultShareMaxAge) each run
// takes about 50 s; run it with
//
//	go test -run '^$' -bench ShareVisibility -benchtime 5x ./app
//
// As a smoke the list age is 1 s. It reports the worst and mean time, and
// the worst time past the list age (what the look, the indexing and the
// search add).
func BenchmarkShareVisibility(b *testing.B) {
	maxAge := indexing.DefaultShareMaxAge
	if benchsmoke.On() {
		maxAge = time.Second
	}
	var looks atomic.Int64 // bob's share lists read (shared_with_me)
	opts := envOptions{install: true, quiet: true, adjust: func(c *Config) { c.ShareMaxAge = maxAge }}
	watchNextcloud(b, &opts, func(r *http.Request, _ time.Duration) {
		if strings.HasSuffix(r.URL.Path, "/apps/files_sharing/api/v1/shares") && r.URL.Query().Get("shared_with_me") == "true" {
			looks.Add(1)
		}
	})
	env := newTestEnv(b, opts)
	const files = 50
	ids := make([]int64, files)
	for i := range files {
		f := env.Sim.PutFile("alice", "/Private/wombat-"+strconv.Itoa(i)+".md", []byte("Wombat report number w"+strconv.Itoa(i)+"x."))
		ids[i] = f.ID
	}
	for _, id := range ids {
		env.awaitFile(b, "indexed", id, func(ix indexed) bool { return ix.state.Status == hs.StatusIndexed })
	}
	await(b, "the install's scans", time.Minute, func() bool { return env.Main.Scanner.Idle() && !env.Main.Scanner.Progress().Finished.IsZero() })
	env.searchAs(b, &env.Bob, "q=wombat")
	var worst, total time.Duration
	b.ResetTimer()
	for i := range b.N {
		n := i % files
		// Wait for bob's next look at his shares, then share at once.
		seen := looks.Load()
		for looks.Load() == seen {
			env.searchAs(b, &env.Bob, "q=wombat")
			time.Sleep(20 * time.Millisecond)
		}
		env.Sim.Share("alice", "/Private/wombat-"+strconv.Itoa(n)+".md", "bob")
		shared := time.Now()
		var took time.Duration
		for took == 0 {
			res, _ := env.searchAs(b, &env.Bob, "q=w"+strconv.Itoa(n)+"x")
			if slices.Contains(resultIDs(res), hs.FileID(ids[n])) {
				took = time.Since(shared)
				break
			}
			if time.Since(shared) > 3*maxAge+time.Minute {
				b.Fatalf("run %d: the share did not show in %s", i, time.Since(shared))
			}
			time.Sleep(200 * time.Millisecond)
		}
		worst, total = max(worst, took), total+took
		b.Logf("run %d: share visible after %s (list age %s)", i+1, took.Round(10*time.Millisecond), maxAge)
	}
	b.ReportMetric(worst.Seconds(), "worst_s")
	b.ReportMetric(total.Seconds()/float64(b.N), "mean_s")
	b.ReportMetric((worst - maxAge).Seconds(), "worst_past_age_s")
}
