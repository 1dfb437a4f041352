package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qdrant/go-client/qdrant"

	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/queue/natstest"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
)

// startWorker runs "hybridsearch worker" in-process with env's
// environment (but for the name, value pairs of override), its operator
// endpoints on a free loopback port.
func startWorker(t *testing.T, env *testEnv, name string, override ...string) *App {
	t.Helper()
	getenv := func(k string) string {
		for i := 0; i+1 < len(override); i += 2 {
			if override[i] == k {
				return override[i+1]
			}
		}
		return env.getenv(k)
	}
	cfg, err := LoadConfig(workerEnv(getenv))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MetricsAddr = "127.0.0.1:0"
	out := io.MultiWriter(testWriter{t}, env.Logs)
	m := New(cfg, slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelInfo})).With("process", name))
	m.Worker = true
	if err := m.Run(context.Background()); err != nil {
		_ = m.Close()
		t.Fatalf("worker %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("worker %s close: %v", name, err)
		}
	})
	return m
}

// serve and two workers share NATS and Qdrant: 200 new files are each
// indexed exactly once, and both workers take part.
func TestServeAndTwoWorkers(t *testing.T) {
	t.Parallel()
	ns := natstest.Run(t)
	qd := qdranttest.NewServer(t)
	ollama := embeddingtest.NewServer(t)
	env := newTestEnv(t, envOptions{install: true, extra: map[string]string{
		"NATS_URL": ns.ClientURL(), "QDRANT_URL": qd.URL(), "OLLAMA_HOST": ollama.URL, "EMBED_MODEL": "nomic-embed-text", "WORKERS": "1",
	}})
	workers := []*App{startWorker(t, env, "w1"), startWorker(t, env, "w2")}
	if workers[0].Handlers != nil || workers[0].http.server != nil {
		t.Fatal("a worker serves the app's API")
	}

	const n = 200
	ids := map[int64]string{}
	for i := range n {
		f := env.Sim.PutFile("alice", fmt.Sprintf("/w/%03d.md", i), fmt.Appendf(nil, "# File %d\n\nWorker test file number %d, a quokka.", i, i))
		ids[f.ID] = f.ETag
	}
	for id, etag := range ids {
		env.awaitFile(t, "indexed", id, isIndexed(etag))
	}

	// Each file was written to Qdrant by exactly one upsert.
	upserts := map[int64]int{}
	for _, msg := range qd.RequestsFor(qdrant.Points_Upsert_FullMethodName) {
		seen := map[int64]bool{}
		for _, p := range msg.(*qdrant.UpsertPoints).GetPoints() {
			seen[p.GetPayload()["file_id"].GetIntegerValue()] = true
		}
		for id := range seen {
			upserts[id]++
		}
	}
	for id := range ids {
		if upserts[id] != 1 {
			t.Errorf("file %d written %d times; want exactly once", id, upserts[id])
		}
	}
	total := 0.0
	for i, base := range []string{env.appURL(), "http://" + workers[0].OpsAddr(), "http://" + workers[1].OpsAddr()} {
		files := sum(scrape(t, base), "hybridsearch_files_indexed_total")
		t.Logf("process %d indexed %v files", i, files)
		if i > 0 && files == 0 {
			t.Errorf("worker %d indexed nothing", i)
		}
		total += files
	}
	if total != n {
		t.Errorf("the processes indexed %v files together; want %d", total, n)
	}
	req, err := http.NewRequest(http.MethodGet, "http://"+workers[0].OpsAddr()+"/readyz", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, body := doReq(t, req)
	if code := resp.StatusCode; code != 200 || !strings.Contains(body, `"nextcloud":"ok"`) {
		t.Errorf("worker /readyz = %d %s", resp.StatusCode, body)
	}
}

// A worker refuses to start without NATS_URL or with the local store.
func TestWorkerNeedsSharedNATSAndQdrant(t *testing.T) {
	t.Parallel()
	env := func(extra map[string]string) func(string) string {
		base := map[string]string{"APP_ID": "hybrid_search", "APP_SECRET": "s", "APP_VERSION": "1.0.0", "NEXTCLOUD_URL": "http://127.0.0.1:1",
			"APP_PERSISTENT_STORAGE": t.TempDir(), "OLLAMA_HOST": "off"}
		for k, v := range extra {
			base[k] = v
		}
		return func(k string) string { return base[k] }
	}
	for _, c := range []struct {
		extra map[string]string
		want  string
	}{
		{map[string]string{"QDRANT_URL": "http://127.0.0.1:1"}, "NATS_URL is not set"},
		{map[string]string{"NATS_URL": "nats://127.0.0.1:1"}, "QDRANT_URL is not set"},
		{map[string]string{"NATS_URL": "nats://127.0.0.1:1", "QDRANT_URL": "http://127.0.0.1:1", "WORKERS": "0"}, "WORKERS=0: a worker without indexing workers"},
	} {
		var stderr strings.Builder
		err := RunWorker(t.Context(), env(c.extra), &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("worker with %v: %v; want an error with %q", c.extra, err, c.want)
		}
	}
}

// TestServeWithoutWorkers: serve with WORKERS=0 consumes no job; one
// worker indexes every file serve's webhooks and scans queue.
func TestServeWithoutWorkers(t *testing.T) {
	t.Parallel()
	ns := natstest.Run(t)
	qd := qdranttest.NewServer(t)
	ollama := embeddingtest.NewServer(t)
	env := newTestEnv(t, envOptions{install: true, extra: map[string]string{
		"NATS_URL": ns.ClientURL(), "QDRANT_URL": qd.URL(), "OLLAMA_HOST": ollama.URL, "EMBED_MODEL": "nomic-embed-text", "WORKERS": "0",
	}})
	const n = 40
	ids := map[int64]string{}
	for i := range n {
		f := env.Sim.PutFile("alice", fmt.Sprintf("/w/%03d.md", i), fmt.Appendf(nil, "# File %d\n\nServe without workers, file %d, a wombat.", i, i))
		ids[f.ID] = f.ETag
	}
	// Nothing is indexed while no worker runs: the jobs wait in the queue.
	poll(t, "the jobs to be queued", time.Minute, func() bool {
		p, err := env.Main.Queue.Pending(context.Background())
		return err == nil && p >= n
	})
	time.Sleep(500 * time.Millisecond)
	if got := env.Main.Pipeline.Counters().Processed; got != 0 {
		t.Fatalf("serve with WORKERS=0 processed %d jobs", got)
	}
	// The worker's environment is serve's but for WORKERS (a worker
	// refuses 0: it would do nothing).
	w := startWorker(t, env, "w1", "WORKERS", "2")
	for id, etag := range ids {
		env.awaitFile(t, "indexed", id, isIndexed(etag))
	}
	if got := sum(scrape(t, env.appURL()), "hybridsearch_files_indexed_total"); got != 0 {
		t.Errorf("serve indexed %v files; want 0", got)
	}
	if got := sum(scrape(t, "http://"+w.OpsAddr()), "hybridsearch_files_indexed_total"); got < n {
		t.Errorf("the worker indexed %v files; want at least %d", got, n)
	}
	// What the worker indexed is found through serve's API.
	res, _ := env.searchAs(t, &env.Alice, "q=wombat")
	if len(res.Results) == 0 {
		t.Errorf("search after the worker indexed: no results")
	}
}
