package embeddingtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

// post sends body to path and returns the status and body.
func post(t *testing.T, s *embeddingtest.Server, path, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

func client(t *testing.T, s *embeddingtest.Server) *api.Client {
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

func TestServerEmbedRequests(t *testing.T) {
	s := embeddingtest.NewServer(t)
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantBody   string // exact, for errors
		wantCount  int    // vectors, for successes
	}{
		{name: "no body", body: "", wantStatus: 400, wantBody: `{"error":"missing request body"}`},
		{name: "bad json", body: `{"model":`, wantStatus: 400, wantBody: `{"error":"unexpected EOF"}`},
		{name: "number input", body: `{"model":"nomic-embed-text","input":42}`, wantStatus: 400, wantBody: `{"error":"invalid input type"}`},
		{name: "array with a number", body: `{"model":"nomic-embed-text","input":["a",1]}`, wantStatus: 400, wantBody: `{"error":"invalid input type"}`},
		{name: "missing model", body: `{"model":"bge-m3","input":"a"}`, wantStatus: 404, wantBody: `{"error":"model \"bge-m3\" not found, try pulling it first"}`},
		{name: "string input", body: `{"model":"nomic-embed-text","input":"a"}`, wantStatus: 200, wantCount: 1},
		{name: "array input", body: `{"model":"nomic-embed-text:latest","input":["a","b","c"],"truncate":true,"keep_alive":"30m","options":{"num_ctx":2048}}`, wantStatus: 200, wantCount: 3},
		{name: "empty string", body: `{"model":"nomic-embed-text","input":""}`, wantStatus: 200, wantCount: 0},
		{name: "no input", body: `{"model":"nomic-embed-text"}`, wantStatus: 200, wantCount: 0},
		{
			name:       "too long without truncation",
			body:       `{"model":"nomic-embed-text","input":"` + strings.Repeat("word ", 3000) + `","truncate":false}`,
			wantStatus: 400, wantBody: `{"error":"the input length exceeds the context length"}`,
		},
		{name: "too long with truncation", body: `{"model":"nomic-embed-text","input":"` + strings.Repeat("word ", 3000) + `"}`, wantStatus: 200, wantCount: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := post(t, s, "/api/embed", tt.body)
			if status != tt.wantStatus {
				t.Fatalf("status = %d (%s), want %d", status, body, tt.wantStatus)
			}
			if tt.wantBody != "" {
				if body != tt.wantBody {
					t.Errorf("body = %s, want %s", body, tt.wantBody)
				}
				return
			}
			var resp api.EmbedResponse
			if err := json.Unmarshal([]byte(body), &resp); err != nil {
				t.Fatal(err)
			}
			if len(resp.Embeddings) != tt.wantCount {
				t.Errorf("vectors = %d, want %d", len(resp.Embeddings), tt.wantCount)
			}
			for _, v := range resp.Embeddings {
				if len(v) != 768 {
					t.Errorf("dimension = %d, want 768", len(v))
				}
			}
		})
	}
}

func TestServerRecordsRequests(t *testing.T) {
	s := embeddingtest.NewServer(t)
	truncate := true
	_, err := client(t, s).Embed(context.Background(), &api.EmbedRequest{
		Model: "nomic-embed-text", Input: []string{"search_document: a", "search_document: b"},
		Truncate: &truncate, KeepAlive: &api.Duration{Duration: 30 * time.Minute},
		Options: map[string]any{"num_ctx": 2048},
	})
	if err != nil {
		t.Fatal(err)
	}
	reqs := s.EmbedRequests()
	if len(reqs) != 1 {
		t.Fatalf("recorded %d embed requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != "nomic-embed-text" || !slices.Equal(r.Inputs, []string{"search_document: a", "search_document: b"}) ||
		r.Truncate == nil || !*r.Truncate || r.KeepAlive == nil || *r.KeepAlive != 30*time.Minute ||
		r.Options["num_ctx"] != float64(2048) || r.Status != 200 {
		t.Errorf("recorded %+v", r)
	}
	s.ResetRequests()
	if n := len(s.Requests()); n != 0 {
		t.Errorf("after ResetRequests: %d requests", n)
	}
}

func TestServerVectorsMatchDeterministic(t *testing.T) {
	s := embeddingtest.NewServer(t)
	s.SetModels(embeddingtest.KnownModel("bge-m3"))
	resp, err := client(t, s).Embed(context.Background(), &api.EmbedRequest{Model: "bge-m3", Input: "hello world"})
	if err != nil {
		t.Fatal(err)
	}
	want := embeddingtest.Deterministic{Dimensions: 1024}.Vector("hello world")
	if !slices.Equal(resp.Embeddings[0], want) {
		t.Error("served vector differs from Deterministic's")
	}
	resp, err = client(t, s).Embed(context.Background(), &api.EmbedRequest{Model: "bge-m3", Input: "hello world", Dimensions: 256})
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, x := range resp.Embeddings[0] {
		sum += float64(x) * float64(x)
	}
	if len(resp.Embeddings[0]) != 256 || math.Abs(sum-1) > 1e-5 {
		t.Errorf("with dimensions 256: len %d, squared norm %v; want 256, 1", len(resp.Embeddings[0]), sum)
	}
}

func TestServerShow(t *testing.T) {
	s := embeddingtest.NewServer(t)
	resp, err := client(t, s).Show(context.Background(), &api.ShowRequest{Model: "nomic-embed-text"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.ModelInfo["general.architecture"]; got != "nomic-bert" {
		t.Errorf("general.architecture = %v", got)
	}
	if got := resp.ModelInfo["nomic-bert.embedding_length"]; got != float64(768) {
		t.Errorf("nomic-bert.embedding_length = %v, want 768", got)
	}
	if got := resp.ModelInfo["nomic-bert.context_length"]; got != float64(2048) {
		t.Errorf("nomic-bert.context_length = %v, want 2048", got)
	}
	if len(resp.Capabilities) != 1 || resp.Capabilities[0] != "embedding" {
		t.Errorf("capabilities = %v, want [embedding]", resp.Capabilities)
	}
	if resp.Details.Family != "nomic-bert" || resp.Details.Format != "gguf" {
		t.Errorf("details = %+v", resp.Details)
	}

	status, body := post(t, s, "/api/show", `{"model":"bge-m3"}`)
	if status != 404 || body != `{"error":"model 'bge-m3' not found"}` {
		t.Errorf("show of a missing model = %d %s", status, body)
	}
	status, body = post(t, s, "/api/show", `{}`)
	if status != 400 || body != `{"error":"model is required"}` {
		t.Errorf("show without a model = %d %s", status, body)
	}
}

func TestServerTagsVersionHeartbeat(t *testing.T) {
	s := embeddingtest.NewServer(t)
	s.AddModel(embeddingtest.KnownModel("all-minilm"))
	c := client(t, s)
	ctx := context.Background()
	list, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	if want := []string{"all-minilm:latest", "nomic-embed-text:latest"}; !slices.Equal(names, want) {
		t.Errorf("tags = %v, want %v", names, want)
	}
	if v, err := c.Version(ctx); v != "0.17.4" || err != nil {
		t.Errorf("Version() = %q, %v", v, err)
	}
	if err := c.Heartbeat(ctx); err != nil {
		t.Errorf("Heartbeat() = %v", err)
	}
	resp, err := http.Get(s.URL + "/api/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("unknown route status = %d, want 404", resp.StatusCode)
	}
}

func TestServerFail(t *testing.T) {
	s := embeddingtest.NewServer(t)
	body := `{"model":"nomic-embed-text","input":["a"]}`
	s.Fail(503, 2)
	for range 2 {
		status, got := post(t, s, "/api/embed", body)
		if want := `{"error":"server busy, please try again.  maximum pending requests exceeded"}`; status != 503 || got != want {
			t.Errorf("failing request = %d %s", status, got)
		}
	}
	if status, _ := post(t, s, "/api/embed", body); status != 200 {
		t.Errorf("after the failures: status %d, want 200", status)
	}
}

func TestServerDownUp(t *testing.T) {
	s := embeddingtest.NewServer(t)
	c := client(t, s)
	ctx := context.Background()
	s.Down()
	err := c.Heartbeat(ctx)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Heartbeat() while down = %v, want connection refused", err)
	}
	s.Up()
	if err := c.Heartbeat(ctx); err != nil {
		t.Errorf("Heartbeat() after Up = %v", err)
	}
}

func TestServerSerialCost(t *testing.T) {
	s := embeddingtest.NewServer(t)
	s.SetCost(20*time.Millisecond, true)
	c := client(t, s)
	start := time.Now()
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "nomic-embed-text", Input: []string{"a", "b"}})
			errs <- err
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// Three requests of two inputs at 20ms each, one at a time.
	if d := time.Since(start); d < 120*time.Millisecond {
		t.Errorf("3 serial requests took %v, want at least 120ms", d)
	}
	if m := s.MaxInFlight(); m < 2 {
		t.Logf("max in flight = %d (requests waiting in line count)", m)
	}
}

func TestServerRewrite(t *testing.T) {
	s := embeddingtest.NewServer(t)
	s.SetRewrite(func(r *api.EmbedResponse) { r.Embeddings = r.Embeddings[:1] })
	resp, err := client(t, s).Embed(context.Background(), &api.EmbedRequest{Model: "nomic-embed-text", Input: []string{"a", "b"}})
	if err != nil || len(resp.Embeddings) != 1 {
		t.Errorf("rewritten response: %v vectors, %v; want 1", len(resp.Embeddings), err)
	}
	s.SetRewrite(nil)
	resp, err = client(t, s).Embed(context.Background(), &api.EmbedRequest{Model: "nomic-embed-text", Input: []string{"a", "b"}})
	if err != nil || len(resp.Embeddings) != 2 {
		t.Errorf("after SetRewrite(nil): %v vectors, %v; want 2", len(resp.Embeddings), err)
	}
}

func TestCanonicalName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"nomic-embed-text", "nomic-embed-text:latest"},
		{"Nomic-Embed-Text:V1.5", "nomic-embed-text:v1.5"},
		{"registry.ollama.ai/library/bge-m3:latest", "bge-m3:latest"},
		{"hf.co/org/model-GGUF", "hf.co/org/model-gguf:latest"},
	}
	for _, tt := range tests {
		if got := embeddingtest.CanonicalName(tt.in); got != tt.want {
			t.Errorf("CanonicalName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestServerContext: the context of a request is its num_ctx, else the
// model's, else the server default, capped at the trained context; an
// input that cannot be truncated to it fails as in Ollama.
func TestServerContext(t *testing.T) {
	s := embeddingtest.NewServer(t)
	m := embeddingtest.KnownModel("all-minilm")
	m.ContextLength, m.ASCIIVocab = 16, true
	s.SetModels(m)
	embed := func(input string, opts string) (int, string) {
		return post(t, s, "/api/embed", `{"model":"all-minilm","input":"`+input+`"`+opts+`}`)
	}
	ascii := strings.Repeat("plain ", 40)
	other := strings.Repeat("naïve ", 40)
	if status, body := embed(ascii, ""); status != 200 {
		t.Errorf("ASCII input over the context = %d %s, want 200 (truncated)", status, body)
	}
	if status, body := embed(other, ""); status != 400 || body != `{"error":"the input length exceeds the context length"}` {
		t.Errorf("[UNK] input over the context = %d %s, want Ollama's 400", status, body)
	}
	if status, _ := embed(strings.Repeat("naïve ", 14), ""); status != 200 {
		t.Errorf("[UNK] input within the context = %d, want 200", status)
	}
	// A smaller num_ctx makes the short input too long too.
	if status, _ := embed(strings.Repeat("naïve ", 14), `,"options":{"num_ctx":8}`); status != 400 {
		t.Errorf("with num_ctx 8 = %d, want 400", status)
	}
	if n := s.Loads("all-minilm"); n != 2 {
		t.Errorf("Loads = %d, want 2 (with the default context, then with num_ctx 8)", n)
	}
}

func TestServerLoadsAndParameters(t *testing.T) {
	s := embeddingtest.NewServer(t)
	m := embeddingtest.KnownModel("bge-m3")
	m.NumCtx = 8192
	s.SetModels(m)
	resp, err := client(t, s).Show(context.Background(), &api.ShowRequest{Model: "bge-m3"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "num_ctx                        8192"; resp.Parameters != want {
		t.Errorf("parameters = %q, want %q", resp.Parameters, want)
	}
	body := func(opts string) string { return `{"model":"bge-m3","input":"a"` + opts + `}` }
	for _, opts := range []string{"", `,"options":{"num_ctx":8192}`, "", `,"options":{"num_ctx":2048}`, `,"options":{"num_ctx":2048}`, ""} {
		if status, got := post(t, s, "/api/embed", body(opts)); status != 200 {
			t.Fatalf("embed %s = %d %s", opts, status, got)
		}
	}
	if n := s.Loads("bge-m3"); n != 3 {
		t.Errorf("Loads = %d, want 3 (8192 from the Modelfile, then 2048, then 8192 again)", n)
	}
	s.SetDefaultContext(1024)
	m.NumCtx = 0
	s.SetModels(m)
	if status, _ := post(t, s, "/api/embed", body("")); status != 200 || s.Loads("bge-m3") != 4 {
		t.Errorf("after SetDefaultContext: status %d, Loads %d; want 200, 4", status, s.Loads("bge-m3"))
	}
}
