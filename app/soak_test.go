package app

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// The soak (issue 13): file edits through WebDAV (→ webhooks → queue →
// pipeline), searchers on /api/search and MCP clients (the Go SDK) at once,
// against the app as the demo wires it (embedded NATS and store, the
// simulator, a fake Ollama), twice in a row; it prints a table. Memory is
// bounded when the second run ends where the first did. Not pass/fail on
// time: scripts/bench soak runs it (SOAK_SECONDS, default 60 per run).

// soakLoad is the load of one run.
type soakLoad struct {
	Duration    time.Duration
	EditsPerSec int
	Searchers   int
	MCPClients  int
}

// soakResult is what one run measured.
type soakResult struct {
	Edits, EditErrors     int64
	Searches, SearchErrs  int64
	MCPCalls, MCPErrs     int64
	SearchP50, SearchP99  time.Duration
	MCPP50, MCPP99        time.Duration
	RSSStart, RSSPeak     int64         // bytes, this process (app, simulator and load)
	RSSEnd                int64         // after the backlog drained and a GC
	HeapPeak              uint64        // live heap (HeapInuse) sampled with the RSS
	HeapEnd               uint64        // HeapInuse after the backlog drained and a GC
	Drain                 time.Duration // from the end of the load to an empty queue, last edit indexed
	DrainErr              error
	BacklogAtEnd, Indexed int
}

// soakFiles is how many files the edits cycle through.
const soakFiles = 200

func soakEnv(tb testing.TB) *testEnv {
	ollama := embeddingtest.NewServer(tb)
	env := newTestEnv(tb, envOptions{install: true, quiet: true,
		extra: map[string]string{"OLLAMA_HOST": ollama.URL, "EMBED_MODEL": "nomic-embed-text", "LOG_LEVEL": "error"},
		setup: func(sim *ncsim.Server) {
			r := rand.New(rand.NewSource(13))
			for i := 0; i < soakFiles; i++ {
				sim.SeedFile("alice", fmt.Sprintf("/Soak/doc%03d.md", i), markdownDoc(r, 1+i%3))
			}
		}})
	// The fake Ollama records every request and the simulator every event
	// and webhook delivery; the soak forgets them, so the recording is not
	// what grows (it was most of the growth between runs).
	done := make(chan struct{})
	tb.Cleanup(func() { close(done) })
	go func() {
		for {
			select {
			case <-time.After(time.Second):
				ollama.ResetRequests()
				env.Sim.ForgetHistory()
			case <-done:
				return
			}
		}
	}()
	ctx := context.Background()
	poll(tb, "the seeded files to index", 5*time.Minute, func() bool {
		n, err := env.Main.Queue.Pending(ctx)
		return err == nil && n == 0 && env.Main.Pipeline.Counters().Processed >= soakFiles
	})
	return env
}

// runSoak runs one load and waits for the backlog to drain.
func runSoak(tb testing.TB, env *testEnv, load soakLoad) soakResult {
	var res soakResult
	ctx, stop := context.WithTimeout(context.Background(), load.Duration)
	defer stop()
	res.RSSStart = rss()
	var peak atomic.Int64
	peak.Store(res.RSSStart)
	var heapPeak atomic.Uint64
	sample := func() {
		if r := rss(); r > peak.Load() {
			peak.Store(r)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > heapPeak.Load() {
			heapPeak.Store(ms.HeapInuse)
		}
	}
	var wg sync.WaitGroup
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		every(ctx, 200*time.Millisecond, func(context.Context) { sample() })
	}()
	client := &http.Client{Timeout: 30 * time.Second}
	alice := env.Alice

	// Edits through WebDAV, paced: one starts every 1/EditsPerSec whatever
	// the earlier ones take (at most 32 at once; a tick with 32 running is
	// counted as an error, so the table shows the rate was not reached).
	var lastEdited atomic.Value // path of an edit that went through
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewSource(time.Now().UnixNano()))
		tick := time.NewTicker(time.Second / time.Duration(load.EditsPerSec))
		defer tick.Stop()
		slots := make(chan struct{}, 32)
		var edits sync.WaitGroup
		defer edits.Wait()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			atomic.AddInt64(&res.Edits, 1)
			select {
			case slots <- struct{}{}:
			default:
				atomic.AddInt64(&res.EditErrors, 1)
				continue
			}
			p := fmt.Sprintf("/Soak/doc%03d.md", r.Intn(soakFiles))
			body := markdownDoc(r, 1+r.Intn(3))
			edits.Go(func() {
				defer func() { <-slots }()
				req, _ := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPut, env.Sim.BaseURL+"/remote.php/dav/files/alice"+p, bytes.NewReader(body))
				req.SetBasicAuth(alice.UID, alice.AppPassword)
				resp, err := client.Do(req)
				if err != nil || resp.StatusCode/100 != 2 {
					atomic.AddInt64(&res.EditErrors, 1)
				} else {
					lastEdited.Store(p)
				}
				if resp != nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		}
	}()

	queries := []string{"kubernetes upgrade", "budget report", "meeting agenda", "runbook", "travel recipe", "stable boundaries", "kubernets", "workers embed chunks"}
	var mu sync.Mutex
	var searchLat, mcpLat []time.Duration
	for s := 0; s < load.Searchers; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := s; ctx.Err() == nil; i++ {
				u := env.Sim.BaseURL + "/index.php/apps/app_api/proxy/hybrid_search/api/search?q=" + url.QueryEscape(queries[i%len(queries)])
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
				req.SetBasicAuth(alice.UID, alice.AppPassword)
				start := time.Now()
				resp, err := client.Do(req)
				d := time.Since(start)
				if ctx.Err() != nil {
					if resp != nil {
						resp.Body.Close()
					}
					return
				}
				atomic.AddInt64(&res.Searches, 1)
				if err != nil || resp.StatusCode != http.StatusOK {
					atomic.AddInt64(&res.SearchErrs, 1)
				}
				if resp != nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				mu.Lock()
				searchLat = append(searchLat, d)
				mu.Unlock()
			}
		}()
	}
	for c := 0; c < load.MCPClients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := sdk.NewClient(&sdk.Implementation{Name: "soak", Version: "1"}, nil)
			cs, err := cl.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: env.Main.Config.MCPURL(), MaxRetries: -1,
				HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: basicAuth{alice.UID, alice.AppPassword}}}, nil)
			if err != nil {
				atomic.AddInt64(&res.MCPErrs, 1)
				return
			}
			defer cs.Close()
			for i := c; ctx.Err() == nil; i++ {
				start := time.Now()
				r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "nc_semantic_search", Arguments: map[string]any{"query": queries[i%len(queries)], "limit": 5}})
				d := time.Since(start)
				if ctx.Err() != nil {
					return
				}
				atomic.AddInt64(&res.MCPCalls, 1)
				if err != nil || r.IsError {
					atomic.AddInt64(&res.MCPErrs, 1)
				}
				mu.Lock()
				mcpLat = append(mcpLat, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	<-sampled
	res.SearchP50, res.SearchP99 = percentile(searchLat, 0.50), percentile(searchLat, 0.99)
	res.MCPP50, res.MCPP99 = percentile(mcpLat, 0.50), percentile(mcpLat, 0.99)

	// Backlog: until the queue is empty and the last edit is indexed.
	ended := time.Now()
	bctx := context.Background()
	res.BacklogAtEnd, _ = env.Main.Queue.Pending(bctx)
	deadline := ended.Add(5 * time.Minute)
	for {
		sample()
		n, err := env.Main.Queue.Pending(bctx)
		done := err == nil && n == 0
		if p, ok := lastEdited.Load().(string); ok && done {
			f, ok := env.Sim.Stat("alice", p)
			st, _, serr := env.Main.KV.States().Get(bctx, hs.FileID(f.ID))
			done = ok && serr == nil && st.ETag == f.ETag && st.Status == hs.StatusIndexed
		}
		if done {
			res.Drain = time.Since(ended)
			break
		}
		if time.Now().After(deadline) {
			res.DrainErr = fmt.Errorf("backlog not drained after 5 min (pending %d, %v)", n, err)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	res.RSSPeak = peak.Load()
	res.HeapPeak = heapPeak.Load()
	debug.FreeOSMemory()
	res.RSSEnd = rss()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.HeapEnd = ms.HeapInuse
	return res
}

// rss is this process's resident set size in bytes (Linux), 0 elsewhere.
func rss() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// soakTable writes the results of consecutive runs and the growth
// between them.
func soakTable(w io.Writer, load soakLoad, runs []soakResult) {
	fmt.Fprintf(w, "soak: %s per run, %d edits/s through WebDAV, %d searchers (/api/search through the AppAPI proxy), %d MCP clients (Go SDK, nc_semantic_search)\n",
		load.Duration, load.EditsPerSec, load.Searchers, load.MCPClients)
	fmt.Fprintf(w, "%-4s %8s %6s %9s %6s %10s %10s %6s %10s %10s %12s %12s %12s %10s %10s %10s\n",
		"run", "edits", "errs", "searches", "errs", "p50", "p99", "mcp", "mcp p50", "mcp p99", "rss start", "rss peak", "rss end", "heap peak", "heap end", "drained")
	for i, r := range runs {
		drained := r.Drain.Round(time.Millisecond).String()
		if r.DrainErr != nil {
			drained = "NO"
		}
		fmt.Fprintf(w, "%-4d %8d %6d %9d %6d %10s %10s %6d %10s %10s %12s %12s %12s %10s %10s %10s\n", i+1,
			r.Edits, r.EditErrors, r.Searches, r.SearchErrs, r.SearchP50.Round(10*time.Microsecond), r.SearchP99.Round(10*time.Microsecond),
			r.MCPCalls, r.MCPP50.Round(10*time.Microsecond), r.MCPP99.Round(10*time.Microsecond),
			mib(r.RSSStart), mib(r.RSSPeak), mib(r.RSSEnd), mib(int64(r.HeapPeak)), mib(int64(r.HeapEnd)), drained)
		if r.DrainErr != nil {
			fmt.Fprintf(w, "     %v\n", r.DrainErr)
		}
	}
	for i := 1; i < len(runs); i++ {
		fmt.Fprintf(w, "growth run %d → %d: rss end %+.1f MiB, rss peak %+.1f MiB, heap peak %+.1f MiB, heap end %+.1f MiB (errors: %d edits, %d searches, %d MCP)\n", i, i+1,
			float64(runs[i].RSSEnd-runs[i-1].RSSEnd)/(1<<20), float64(runs[i].RSSPeak-runs[i-1].RSSPeak)/(1<<20),
			(float64(runs[i].HeapPeak)-float64(runs[i-1].HeapPeak))/(1<<20), (float64(runs[i].HeapEnd)-float64(runs[i-1].HeapEnd))/(1<<20),
			runs[i].EditErrors+runs[i-1].EditErrors, runs[i].SearchErrs+runs[i-1].SearchErrs, runs[i].MCPErrs+runs[i-1].MCPErrs)
	}
}

// BenchmarkSoak runs the soak SOAK_RUNS times in a row (default 3) and
// prints the table; run it with -benchtime 1x (scripts/bench soak).
// SOAK_SECONDS sets each run's length (default 60). After each run it
// writes a heap profile to .artifacts/soak-heap-<run>.pprof; compare two
// with go tool pprof -sample_index=inuse_space -diff_base.
func BenchmarkSoak(b *testing.B) {
	secs, n := benchsmoke.Size(60, 1), 3
	if v, err := strconv.Atoi(os.Getenv("SOAK_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	if v, err := strconv.Atoi(os.Getenv("SOAK_RUNS")); err == nil && v > 0 {
		n = v
	}
	load := soakLoad{Duration: time.Duration(secs) * time.Second, EditsPerSec: 20, Searchers: 8, MCPClients: 2}
	// A finer heap sample than the default 512 KiB, so that a growth of a
	// few MiB shows where it comes from.
	runtime.MemProfileRate = 8 << 10
	env := soakEnv(b)
	artifacts := filepath.Join("..", ".artifacts")
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var runs []soakResult
	for range b.N {
		for i := range n {
			runs = append(runs, runSoak(b, env, load))
			if err := writeHeapProfile(filepath.Join(artifacts, fmt.Sprintf("soak-heap-%d.pprof", i+1))); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	soakTable(os.Stdout, load, runs)
}

// writeHeapProfile writes the heap profile after a GC, so inuse_space is
// what is live.
func writeHeapProfile(path string) error {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("write heap profile: %w", err)
	}
	return f.Close()
}

// TestSoakSmoke runs the soak driver briefly, so it keeps working; the
// figures come from scripts/bench soak.
func TestSoakSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("runs load for a few seconds")
	}
	load := soakLoad{Duration: 2 * time.Second, EditsPerSec: 20, Searchers: 2, MCPClients: 1}
	env := soakEnv(t)
	r := runSoak(t, env, load)
	var out strings.Builder
	soakTable(&out, load, []soakResult{r})
	t.Log("\n" + out.String())
	if r.Edits == 0 || r.Searches == 0 || r.MCPCalls == 0 || r.DrainErr != nil {
		t.Errorf("the soak did not run: %+v", r)
	}
	if r.EditErrors+r.SearchErrs+r.MCPErrs > 0 {
		t.Errorf("errors under load: %d edits, %d searches, %d MCP calls", r.EditErrors, r.SearchErrs, r.MCPErrs)
	}
}
