package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/nextcloud/appapi"
)

// scrape reads url's /metrics: each series ("name{labels}") and its value.
func scrape(t testing.TB, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("scrape: %d %s", resp.StatusCode, body)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("scrape: bad line %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

// sum adds the series of m whose name is name and whose labels hold
// every one of labels (`leg="keyword"`).
func sum(m map[string]float64, name string, labels ...string) float64 {
	total := 0.0
	for series, v := range m {
		n, rest, _ := strings.Cut(series, "{")
		if n != name {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(rest, l)
		}
		if ok {
			total += v
		}
	}
	return total
}

// After a webhook, a search and an MCP call, the counters of each have
// moved; a forged webhook is counted as rejected; the Go runtime and the
// process are there. /healthz answers; /readyz turns 503 naming
// Nextcloud when the simulator stops.
func TestMetricsAndHealth(t *testing.T) {
	t.Parallel()
	_, o := withOllama(t)
	env := newTestEnv(t, o)
	base := env.appURL()
	// The queue's gauges are missing from a scrape whose queue look-up
	// took over 3 s (a busy machine): wait for one that has them.
	var before map[string]float64
	await(t, "a scrape with the queue's gauges", 30*time.Second, func() bool {
		before = scrape(t, base)
		return before["hybridsearch_queue_up"] == 1
	})
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "hybridsearch_queue_depth", "hybridsearch_queue_oldest_job_age_seconds"} {
		if _, ok := before[name]; !ok {
			t.Errorf("/metrics has no %s", name)
		}
	}

	f := env.Sim.PutFile("alice", "/metrics.md", []byte("# Gauges\n\nThe okapi counts its stripes."))
	// The enable-time scan may index the file before the simulated cron
	// sends its webhook: deliver it now, so the webhook counter has grown.
	if err := env.Sim.FlushWebhooks(t.Context()); err != nil {
		t.Fatal(err)
	}
	env.awaitFile(t, "indexed", f.ID, isIndexed(f.ETag))
	if resp, body := env.proxyGet(t, &env.Alice, "api/search?q=okapi+strpes"); resp.StatusCode != 200 {
		t.Fatalf("search: %d %s", resp.StatusCode, body)
	}
	if res := env.mcpCall(t, &env.Alice, "nc_semantic_search", map[string]any{"query": "okapi stripes"}); res.IsError {
		t.Fatalf("MCP search failed: %s", toolText(res))
	}
	resp, err := http.Post(base+"/webhook", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	var after map[string]float64
	await(t, "a scrape with the queue's gauges", 30*time.Second, func() bool {
		after = scrape(t, base)
		return after["hybridsearch_queue_up"] == 1
	})
	for _, c := range []struct {
		name   string
		labels []string
	}{
		{"hybridsearch_webhook_events_received_total", nil},
		{"hybridsearch_webhook_events_rejected_total", []string{`reason="unauthorized"`}},
		{"hybridsearch_jobs_total", []string{`outcome="done"`}},
		{"hybridsearch_files_indexed_total", nil},
		{"hybridsearch_chunks_indexed_total", nil},
		{"hybridsearch_embed_batch_size_count", []string{`host="` + env.Main.Config.OllamaHosts[0]}},
		{"hybridsearch_embed_batch_duration_seconds_count", nil},
		{"hybridsearch_store_operation_duration_seconds_count", []string{`store="local"`, `op="write_file"`}},
		{"hybridsearch_store_operation_duration_seconds_count", []string{`op="search_sparse"`}},
		{"hybridsearch_store_operation_duration_seconds_count", []string{`op="search_dense"`}},
		{"hybridsearch_search_leg_duration_seconds_count", []string{`leg="semantic"`}},
		{"hybridsearch_search_leg_duration_seconds_count", []string{`leg="keyword"`}},
		{"hybridsearch_search_leg_duration_seconds_count", []string{`leg="fuzzy"`}},
		{"hybridsearch_search_duration_seconds_count", []string{`algorithm="hybrid"`}},
		{"hybridsearch_mcp_tool_calls_total", []string{`tool="nc_semantic_search"`, `outcome="ok"`}},
	} {
		if b, a := sum(before, c.name, c.labels...), sum(after, c.name, c.labels...); a <= b {
			t.Errorf("%s%v = %v before, %v after; want it to grow", c.name, c.labels, b, a)
		}
	}

	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 {
		t.Errorf("/healthz = %d %s", code, body)
	}
	code, body := get("/readyz")
	var ready struct {
		Ready      bool
		Components map[string]string
	}
	if err := json.Unmarshal([]byte(body), &ready); code != 200 || err != nil || !ready.Ready || ready.Components["embedder"] != "ok" {
		t.Errorf("/readyz = %d %s; want 200, everything ok", code, body)
	}
	env.Sim.Close()
	code, body = get("/readyz")
	ready.Components = nil
	if err := json.Unmarshal([]byte(body), &ready); code != 503 || err != nil || ready.Ready || ready.Components["nextcloud"] == "ok" || ready.Components["nats"] != "ok" || ready.Components["store"] != "ok" {
		t.Errorf("/readyz with Nextcloud down = %d %s; want 503 naming nextcloud", code, body)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("/healthz with Nextcloud down = %d; want 200 (alive)", code)
	}
}

// A request's id is AppAPI's AA-REQUEST-ID when AppAPI sends one (a
// client's own, unsigned, is not taken over: issue 21.4), else a new one;
// the response echoes it and the log lines of the request carry it as
// request_id (in LOG_FORMAT=json too).
func TestRequestID(t *testing.T) {
	t.Parallel()
	env := MustRunMain(t)
	signed := true
	do := func(id string) string {
		req, err := http.NewRequest(http.MethodGet, env.appURL()+"/healthz", nil)
		if err != nil {
			t.Fatal(err)
		}
		if id != "" {
			req.Header.Set("AA-REQUEST-ID", id)
		}
		if signed {
			req.Header.Set("EX-APP-ID", env.Main.Config.AppID)
			req.Header.Set("EX-APP-VERSION", env.Main.Config.AppVersion)
			req.Header.Set(appapi.AuthHeader, appapi.EncodeAuth("", env.Main.Config.AppSecret))
		}
		resp, _ := doReq(t, req)
		return resp.Header.Get(handlers.RequestIDHeader)
	}
	if got := do("nc-req-42"); got != "nc-req-42" {
		t.Errorf("%s = %q; want AppAPI's AA-REQUEST-ID", handlers.RequestIDHeader, got)
	}
	signed = false
	if got := do("client-chosen"); got == "client-chosen" {
		t.Errorf("an unsigned request's AA-REQUEST-ID was taken over")
	}
	signed = true
	await(t, "the request's log line with its id", 5*time.Second, func() bool {
		return strings.Contains(env.Logs.String(), "request_id=nc-req-42")
	})
	a, b := do(""), do("")
	if a == "" || a == b {
		t.Errorf("generated ids %q, %q; want two different ones", a, b)
	}
	// A generated id is hex, which may well contain "bad": look for the
	// header's text itself and its space.
	if got := do("bad id"); got == "" || strings.Contains(got, "bad id") || strings.Contains(got, " ") {
		t.Errorf("an AA-REQUEST-ID with a space was taken over as %q", got)
	}

	var logs bytes.Buffer
	NewLogger(&logs, "info", "json").With("component", "x").InfoContext(hs.NewContextWithRequestID(context.Background(), "nc-req-7"), "hello")
	var line map[string]any
	if err := json.Unmarshal(logs.Bytes(), &line); err != nil || line["request_id"] != "nc-req-7" {
		t.Errorf("json log line %s; want request_id nc-req-7", logs.String())
	}
}
