package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/internal/benchsmoke"
	"github.com/hybrid-search/hybridsearch/kv"
	"github.com/hybrid-search/hybridsearch/mcp"
	"github.com/hybrid-search/hybridsearch/queue"
	"github.com/hybrid-search/hybridsearch/queue/natstest"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/store/local"
	"github.com/hybrid-search/hybridsearch/tokens"
)

// The MCP layer's overhead: one hybrid search at 10,000 chunks (400 files
// of 25 chunks of 130 Zipf-distributed words, 768-dimensional vectors, all
// readable by alice) four ways, with the same queries: the search Service
// called directly, POST /api/search, and nc_semantic_search
// through /mcp as a 2026-07-28 tools/call, once with AppAPI headers (how
// the Nextcloud proxy calls it) and once with a bearer token (verified
// against the HS_TOKENS bucket of an embedded JetStream). HTTP goes over
// loopback TCP. Query vectors are pre-computed and the Nextcloud access
// check is off, as in search's own benchmark, so the numbers isolate the
// layers above the engine.
//
//	go test -run '^$' -bench MCPSearch -benchtime 500x ./app

const (
	mcpBenchChunks  = 10_000
	mcpBenchPerFile = 25
	mcpBenchDim     = 768
	mcpBenchVocab   = 30_000
)

// queryVectors embeds queries from a precomputed table.
type queryVectors map[string][]float32

func (q queryVectors) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	if v, ok := q[text]; ok {
		return v, nil
	}
	return nil, hs.Errorf(hs.EINVALID, "no vector for %q", text)
}

// buildMCPBenchStore writes the corpus and returns the store, the
// queries and their vectors.
func buildMCPBenchStore(b *testing.B) (*local.Store, []string, queryVectors) {
	b.Helper()
	rng := rand.New(rand.NewPCG(5, 10_000))
	syll := strings.Fields("ka ri to ne mu sa lo pe di ga bu ve ho zi ta re no mi su la po de ki gu fa be ro ni te")
	seen := map[string]bool{}
	var words []string
	for len(words) < mcpBenchVocab {
		var w strings.Builder
		for range 2 + rng.IntN(3) {
			w.WriteString(syll[rng.IntN(len(syll))])
		}
		if !seen[w.String()] {
			seen[w.String()] = true
			words = append(words, w.String())
		}
	}
	unit := func() []float32 {
		v := make([]float32, mcpBenchDim)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		analysis.Normalize(v)
		return v
	}
	st, err := local.Open(b.TempDir(), local.Options{Dim: mcpBenchDim, CompactBytes: 1 << 40, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	zipf := rand.NewZipf(rng, 1.07, 2, mcpBenchVocab-1)
	for f := 0; f*mcpBenchPerFile < benchsmoke.Size(mcpBenchChunks, mcpBenchChunks/5); f++ {
		id := hs.FileID(f + 1)
		title := words[zipf.Uint64()] + " " + words[zipf.Uint64()]
		meta := hs.FileMeta{ID: id, Path: fmt.Sprintf("/Documents/%d/%s.md", f%50, title), Title: title, MIME: "text/markdown",
			Type: hs.DocFile, Modified: time.Unix(1_700_000_000+int64(f), 0).UTC(), Readers: []hs.UserID{"alice"}}
		var points []hs.Point
		for no := range mcpBenchPerFile {
			ws := make([]string, 130)
			for i := range ws {
				ws[i] = words[zipf.Uint64()]
			}
			text := strings.Join(ws, " ")
			bm25, tri := analysis.DocVectors(title + "\n\n" + text)
			points = append(points, hs.Point{ID: hs.PointID(id, no), Chunk: hs.Chunk{FileID: id, No: no, Text: text, Hash: fmt.Sprintf("%d-%d", id, no)},
				File: meta, Dense: unit(), BM25: bm25, Trigram: tri})
		}
		if err := st.WriteFile(context.Background(), meta, points); err != nil {
			b.Fatal(err)
		}
	}
	vecs := queryVectors{}
	var queries []string
	for i := range 64 {
		q := make([]string, 2+rng.IntN(2))
		for j := range q {
			q[j] = words[100+rng.IntN(9900)]
		}
		if i%4 == 3 { // a typo
			r := []byte(q[0])
			j := rng.IntN(len(r) - 1)
			r[j], r[j+1] = r[j+1], r[j]
			q[0] = string(r)
		}
		queries = append(queries, strings.Join(q, " "))
		vecs[queries[i]] = unit()
	}
	return st, queries, vecs
}

// BenchmarkMCPSearch reports p50 and p99 latency per way in, and the
// median per-query difference between nc_semantic_search over /mcp
// (AppAPI) and the Service.
func BenchmarkMCPSearch(b *testing.B) {
	st, queries, vecs := buildMCPBenchStore(b)
	quiet := slog.New(slog.DiscardHandler)
	svc, err := search.New(search.Options{Embedder: vecs, Dense: st, Sparse: st, Chunks: st, Terms: st, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	ns := natstest.Run(b)
	conn := natstest.Connect(b, ns)
	q, err := queue.Open(context.Background(), conn, queue.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	db, err := kv.Open(context.Background(), conn, kv.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	records, err := db.Tokens(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	const secret, nc = "bench-secret", "http://nc.test"
	cfg := Config{AppID: "hybrid_search", NextcloudURL: nc}
	tok, err := tokens.New(tokens.Options{Secret: secret, Audience: cfg.MCPURL(), Issuer: cfg.proxyBase(), Store: records, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	raw, _, err := tok.Issue(context.Background(), "alice", "bench", 0)
	if err != nil {
		b.Fatal(err)
	}
	endpoint, err := mcp.NewHandler(mcp.Options{Search: svc, Chunks: st, Access: noAccess{}, Status: noStatus{}, NextcloudURL: nc, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := handlers.New(handlers.Deps{AppID: cfg.AppID, AppSecret: secret, Lifecycle: noLifecycle{}, Status: noStatus{}, Publish: q,
		Operator: noOperator{}, Search: svc, Assets: fstest.MapFS{}, Logger: quiet,
		MCP: &handlers.MCPDeps{Handler: endpoint, Tokens: tok, Users: anyUser{}, NextcloudURL: nc}})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	b.Cleanup(ts.Close)
	client := ts.Client()
	appAPI := func(r *http.Request) {
		r.Header.Set("EX-APP-ID", "hybrid_search")
		r.Header.Set("EX-APP-VERSION", "0.1.0")
		r.Header.Set("AUTHORIZATION-APP-API", base64.StdEncoding.EncodeToString([]byte("alice:"+secret)))
	}
	post := func(path, body string, auth func(*http.Request), mcpCall bool) (int, []byte) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if mcpCall {
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", mcp.ToolSearch)
		}
		auth(req)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, data
	}
	mcpBody := func(q string) string {
		args, _ := json.Marshal(map[string]any{"query": q})
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nc_semantic_search","arguments":` + string(args) +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	}
	mcpBytes := 0 // response bytes of the mcp-appapi calls
	ways := []struct {
		name string
		run  func(q string) error
	}{
		{"service", func(q string) error {
			res, err := svc.Search(context.Background(), "alice", hs.SearchRequest{Query: q})
			if err == nil && len(res.Results) == 0 && res.WeakCount == 0 {
				err = fmt.Errorf("no results")
			}
			return err
		}},
		{"api-search", func(q string) error {
			body, _ := json.Marshal(hs.SearchRequest{Query: q})
			if code, data := post("/api/search", string(body), appAPI, false); code != 200 || !answered(data) {
				return fmt.Errorf("/api/search: %d %.200s", code, data)
			}
			return nil
		}},
		{"mcp-appapi", func(q string) error {
			code, data := post("/mcp", mcpBody(q), appAPI, true)
			if code != 200 || !answered(data) {
				return fmt.Errorf("/mcp: %d %.200s", code, data)
			}
			mcpBytes += len(data)
			return nil
		}},
		{"mcp-token", func(q string) error {
			bearer := func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+raw) }
			if code, data := post("/mcp", mcpBody(q), bearer, true); code != 200 || !answered(data) {
				return fmt.Errorf("/mcp: %d %.200s", code, data)
			}
			return nil
		}},
	}
	for _, q := range queries[:8] { // warm up
		for _, w := range ways {
			if err := w.run(q); err != nil {
				b.Fatalf("%s: %v", w.name, err)
			}
		}
	}
	// Each iteration runs one query every way, in a rotating order, so
	// load from elsewhere on the machine falls on all of them alike.
	lat := make([][]time.Duration, len(ways))
	var overhead []time.Duration // mcp-appapi minus service, per query
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		took := make([]time.Duration, len(ways))
		for k := range ways {
			w := (i + k) % len(ways)
			t0 := time.Now()
			if err := ways[w].run(q); err != nil {
				b.Fatalf("%s: %v", ways[w].name, err)
			}
			took[w] = time.Since(t0)
			lat[w] = append(lat[w], took[w])
		}
		overhead = append(overhead, took[2]-took[0])
		i++
	}
	b.StopTimer()
	pct := func(d []time.Duration, p int) float64 {
		slices.Sort(d)
		return float64(d[min(len(d)-1, len(d)*p/100)].Microseconds()) / 1000
	}
	for w := range ways {
		b.ReportMetric(pct(lat[w], 50), ways[w].name+"-p50-ms")
		b.ReportMetric(pct(lat[w], 99), ways[w].name+"-p99-ms")
	}
	b.ReportMetric(pct(overhead, 50), "mcp-overhead-p50-ms")
	b.ReportMetric(float64(mcpBytes)/float64(len(overhead)+8)/1024, "mcp-response-KiB")
}

// noAccess (with noStatus) completes the MCP endpoint; the benchmark
// calls only nc_semantic_search.
type noAccess struct{}

func (noAccess) FindByID(ctx context.Context, user hs.UserID, id hs.FileID) (hs.FileInfo, error) {
	return hs.FileInfo{ID: id}, nil
}

// anyUser says every user exists.
type anyUser struct{}

func (anyUser) UserExists(context.Context, hs.UserID) (bool, error) { return true, nil }

// answered reports whether a search answer lists documents, or says how
// many weak matches it left out: a query of random words may match only
// weakly, and that answer costs the same work.
func answered(data []byte) bool {
	return bytes.Contains(data, []byte(`"file_id"`)) || bytes.Contains(data, []byte(`"weak_count"`))
}
