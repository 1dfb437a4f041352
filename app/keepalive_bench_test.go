package app

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
)

// BenchmarkOllamaSecondClient measures how long a second client of the
// app's Ollama (one of Nextcloud's own AI apps) waits for another model
// while the app indexes, with each EMBED_KEEP_ALIVE: unset (the default:
// no keep_alive is sent, Ollama's own setting applies), 3s, and 30m (what
// the app sent before it was a setting). The Ollama is the fake, whose
// scheduler copies Ollama v0.17.4's (server/sched.go; see
// embedding/embeddingtest/sched.go): one model loaded at a time
// (OLLAMA_MAX_LOADED_MODELS=1, as on a GPU that holds one), 100 ms to
// load one, 25 ms of embedding per chunk. Each run indexes 150 two-chunk
// files with two workers; the second client asks one second in. A request
// not served 10 s after indexing ended counts as unserved (with 30m,
// Ollama would serve it 30 minutes after the app's last request). Run
//
//	go test -run '^$' -bench OllamaSecondClient -benchtime 5x ./app
//
// It reports the mean and worst wait of the served runs, how many runs
// served the second client while indexing went on, and how many not at
// all.
func BenchmarkOllamaSecondClient(b *testing.B) {
	files := benchsmoke.Size(150, 30)
	for _, keepAlive := range []string{"", "3s", "30m"} {
		name := "keep_alive=" + keepAlive
		if keepAlive == "" {
			name = "keep_alive=unset"
		}
		b.Run(name, func(b *testing.B) {
			var waits []time.Duration
			during, unserved := 0, 0
			for range b.N {
				wait, after, served := secondClientWait(b, keepAlive, files, 10*time.Second)
				switch {
				case !served:
					unserved++
				case wait < after:
					during++
					waits = append(waits, wait)
				default:
					waits = append(waits, wait)
				}
			}
			var total time.Duration
			for _, w := range waits {
				total += w
			}
			if len(waits) > 0 {
				b.ReportMetric(total.Seconds()/float64(len(waits)), "mean_wait_s")
				b.ReportMetric(slices.Max(waits).Seconds(), "worst_wait_s")
			}
			b.ReportMetric(float64(during), "served_during_indexing")
			b.ReportMetric(float64(unserved), "unserved")
		})
	}
}

// secondClientWait runs the app indexing files two-chunk files on a fake
// Ollama that keeps one model loaded at a time, with EMBED_KEEP_ALIVE
// keepAlive ("" = unset), while a second client asks for another model
// after a second of indexing. It returns how long that request waited,
// how long indexing ran on after it was asked, and whether it was served
// within patience of the indexing's end.
func secondClientWait(tb testing.TB, keepAlive string, files int, patience time.Duration) (wait, indexingAfter time.Duration, served bool) {
	ollama := embeddingtest.NewServer(tb)
	ollama.SetModels(embeddingtest.KnownModel("nomic-embed-text"), embeddingtest.KnownModel("llama-other"))
	ollama.SetScheduler(embeddingtest.SchedOptions{MaxLoaded: 1, LoadTime: 100 * time.Millisecond})
	ollama.SetCost(25*time.Millisecond, false)
	extra := map[string]string{"OLLAMA_HOST": ollama.URL, "EMBED_MODEL": "nomic-embed-text", "LOG_LEVEL": "warn"}
	if keepAlive != "" {
		extra["EMBED_KEEP_ALIVE"] = keepAlive
	}
	env := newTestEnv(tb, envOptions{install: true, extra: extra, quiet: true})
	var ids []int64
	for i := range files {
		body := fmt.Sprintf("# Report %d\n\nThe quarterly numbers of team %d.\n\n## Details\n\nMore about team %d and its %d projects.", i, i, i, i%7)
		ids = append(ids, env.Sim.PutFile("alice", fmt.Sprintf("/Reports/r%03d.md", i), []byte(body)).ID)
	}
	start := time.Now()
	time.Sleep(time.Second)
	u, _ := url.Parse(ollama.URL)
	other := api.NewClient(u, http.DefaultClient)
	asked := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan time.Duration, 1)
	go func() {
		if _, err := other.Embed(ctx, &api.EmbedRequest{Model: "llama-other", Input: "a question for the assistant"}); err == nil {
			done <- time.Since(asked)
		}
	}()
	await(tb, "every file indexed", 5*time.Minute, func() bool {
		for _, id := range ids {
			if env.lookup(tb, id).state.Status != hs.StatusIndexed {
				return false
			}
		}
		return true
	})
	indexed := time.Now()
	select {
	case wait = <-done:
		served = true
	case <-time.After(patience):
		wait = time.Since(asked)
	}
	state := "was served after"
	if !served {
		state = "was still waiting after"
	}
	tb.Logf("EMBED_KEEP_ALIVE=%q: indexing took %s; the second client asked after %s and %s %s (indexing ran %s after it asked)",
		keepAlive, indexed.Sub(start).Round(time.Millisecond), asked.Sub(start).Round(time.Millisecond), state, wait.Round(time.Millisecond), indexed.Sub(asked).Round(time.Millisecond))
	return wait, indexed.Sub(asked), served
}
