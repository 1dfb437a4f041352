package app

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

// TestModelChangeServesWhenCaughtUp: after a model change the new index
// answers searches as soon as it holds what the old one served, although
// an unrelated file (one whose chunk no model can embed) waits out a long
// retry; that file gets its full tries under the new model; and while the
// new index fills, /api/status tells its own progress besides the serving
// index's.
func TestModelChangeServesWhenCaughtUp(t *testing.T) {
	ollama := embeddingtest.NewServer(t)
	small := func(name string) embeddingtest.Model {
		m := embeddingtest.KnownModel(name)
		m.ContextLength, m.ASCIIVocab = 24, true
		return m
	}
	ollama.SetModels(small("all-minilm"), small("bge-m3"))
	env := settingsEnv(t, envOptions{
		extra: map[string]string{"OLLAMA_HOST": ollama.URL, "EMBED_MODEL": "all-minilm"},
		adjust: func(c *Config) {
			// Two quick retries, then each a minute later: the unembeddable
			// file's next try is far off.
			c.RetryBackoff = []time.Duration{200 * time.Millisecond, 200 * time.Millisecond, time.Minute}
		},
	})
	var files []int64
	for i := range 12 {
		f := env.Sim.PutFile("alice", fmt.Sprintf("/Docs/note-%02d.md", i), []byte(fmt.Sprintf("# Note %d\n\nThe gecko count of week %d.", i, i)))
		files = append(files, f.ID)
	}
	bad := env.Sim.PutFile("alice", "/Docs/plan.md", []byte(unembeddable))
	for _, id := range files {
		env.awaitFile(t, "indexed", id, func(ix indexed) bool { return ix.state.Status == hs.StatusIndexed })
	}
	env.awaitFile(t, "the unembeddable file's quick tries made", bad.ID, func(ix indexed) bool {
		return ix.state.NoVectors == 1 && ix.state.Attempts >= 3
	})
	old := env.Main.Engine()

	// Each chunk takes a while with the new model, so the rebuild can be
	// watched.
	ollama.SetCost(40*time.Millisecond, true)
	env.setAdmin(t, "embed_model", "bge-m3")
	await(t, "the new engine indexing", 10*time.Second, func() bool { return env.Main.Engine() != old })
	next := env.Main.Engine()
	var sawRebuild bool
	var complete, served time.Time
	deadline := time.Now().Add(2 * time.Minute)
	for served.IsZero() && time.Now().Before(deadline) {
		_, body := env.proxyGet(t, &env.Alice, "api/status")
		var rep hs.IndexStatus
		if err := json.Unmarshal([]byte(body), &rep); err != nil {
			t.Fatal(err)
		}
		if env.Main.Serving() == next {
			served = time.Now()
			break
		}
		if rb := rep.Rebuild; rb != nil {
			if rb.Model != "bge-m3" || rb.Total != len(files)+1 || rb.Done > rb.Total || rb.Progress < 0 || rb.Progress > 1 {
				t.Errorf("rebuild progress = %+v", rb)
			}
			if rb.Done < rb.Total {
				sawRebuild = true
				if rep.Progress != 1 || rep.Files.Indexed != len(files)+1 {
					t.Errorf("during the rebuild the serving index's figures: progress %v, %+v", rep.Progress, rep.Files)
				}
			}
		}
		if complete.IsZero() && newIndexHolds(t, env, next, append(slices.Clone(files), bad.ID)) {
			complete = time.Now()
		}
		time.Sleep(50 * time.Millisecond)
	}
	if served.IsZero() {
		t.Fatalf("the new index did not serve within 2 minutes (complete: %v)", !complete.IsZero())
	}
	if complete.IsZero() {
		complete = served
	}
	t.Logf("new index complete to served: %s", served.Sub(complete).Round(time.Millisecond))
	if !sawRebuild {
		t.Error("/api/status never showed the rebuild's progress")
	}
	if d := served.Sub(complete); d > 5*time.Second {
		t.Errorf("the new index served %s after it held every file", d)
	}
	_, body := env.proxyGet(t, &env.Alice, "api/status")
	if strings.Contains(body, `"rebuild"`) {
		t.Errorf("status after the switch still shows a rebuild: %s", body)
	}
	// The unembeddable file's tries under the new model start afresh.
	if ix := env.lookup(t, bad.ID); ix.state.Index != next.IndexID || ix.state.Attempts > 3 {
		t.Errorf("the partial file in the new index: index %q, attempts %d (its tries under the old model carried over)", ix.state.Index, ix.state.Attempts)
	}
	res, _ := env.searchAs(t, &env.Alice, "q=gecko")
	if len(res.Results) == 0 {
		t.Error("the new index finds nothing")
	}
}

// newIndexHolds reports whether e's index holds every file of ids.
func newIndexHolds(t *testing.T, env *testEnv, e *Engine, ids []int64) bool {
	for _, id := range ids {
		pts, err := e.Store.FilePoints(t.Context(), hs.FileID(id), false)
		if err != nil || len(pts) == 0 {
			return false
		}
	}
	return true
}
