package embedding_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

func TestNewOllamaValidation(t *testing.T) {
	tests := []struct {
		name     string
		opts     embedding.OllamaOptions
		wantKind string
		wantStr  string // String() of a valid client
	}{
		{name: "no model", opts: embedding.OllamaOptions{Hosts: []string{"http://h:1"}}, wantKind: hs.EINVALID},
		{name: "no hosts", opts: embedding.OllamaOptions{Model: "bge-m3"}, wantKind: hs.EINVALID},
		{name: "bad scheme", opts: embedding.OllamaOptions{Model: "bge-m3", Hosts: []string{"ftp://h:1"}}, wantKind: hs.EINVALID},
		{name: "negative batch", opts: embedding.OllamaOptions{Model: "bge-m3", Hosts: []string{"h"}, BatchSize: -1}, wantKind: hs.EINVALID},
		{name: "empty host", opts: embedding.OllamaOptions{Model: "bge-m3", Hosts: []string{" "}}, wantKind: hs.EINVALID},
		{name: "host and port", opts: embedding.OllamaOptions{Model: "bge-m3", Hosts: []string{"gpu1:8080"}}, wantStr: "ollama(bge-m3 on http://gpu1:8080)"},
		{name: "bare host gets 11434", opts: embedding.OllamaOptions{Model: "bge-m3", Hosts: []string{"gpu1"}}, wantStr: "ollama(bge-m3 on http://gpu1:11434)"},
		{
			name:    "credentials are not shown",
			opts:    embedding.OllamaOptions{Model: "bge-m3", Hosts: []string{"https://u:secret@proxy/ollama/", "http://b:1"}},
			wantStr: "ollama(bge-m3 on https://proxy/ollama, http://b:1)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := embedding.NewOllama(tt.opts)
			if got := hs.ErrorKind(err); got != tt.wantKind {
				t.Fatalf("NewOllama() kind = %q (%v), want %q", got, err, tt.wantKind)
			}
			if err == nil {
				if got := c.String(); got != tt.wantStr {
					t.Errorf("String() = %q, want %q", got, tt.wantStr)
				}
			}
		})
	}
}

func TestEmbedDocumentsBatches(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	c := newOllama(t, nil, srv)
	in := texts(100, func(i int) string { return fmt.Sprintf("chunk number %d about topic %d", i, i%7) })

	got, err := c.EmbedDocuments(ctxT(t), in)
	if err != nil {
		t.Fatalf("EmbedDocuments: %v", err)
	}
	reqs := srv.EmbedRequests()
	var sizes []int
	for _, r := range reqs {
		sizes = append(sizes, len(r.Inputs))
		if r.Model != "nomic-embed-text" {
			t.Errorf("request model = %q, want nomic-embed-text", r.Model)
		}
		if r.Truncate == nil || !*r.Truncate {
			t.Errorf("request truncate = %v, want true", r.Truncate)
		}
		if r.KeepAlive != nil {
			t.Errorf("request keep_alive = %v, want none (Ollama's own default)", *r.KeepAlive)
		}
		if n, ok := r.Options["num_ctx"]; ok {
			t.Errorf("request options.num_ctx = %v, want none (the default context fits)", n)
		}
	}
	slices.Sort(sizes)
	if want := []int{4, 32, 32, 32}; !slices.Equal(sizes, want) {
		t.Errorf("batch sizes = %v, want %v", sizes, want)
	}
	if len(got) != len(in) {
		t.Fatalf("got %d vectors, want %d", len(got), len(in))
	}
	det := embeddingtest.Deterministic{Dimensions: 768}
	for i, v := range got {
		if norm := l2(v); math.Abs(norm-1) > 1e-5 {
			t.Errorf("vector %d norm = %v, want 1", i, norm)
		}
		if cos := dot(v, det.Vector(in[i])); cos < 0.9999 {
			t.Errorf("vector %d is not the vector of text %d (cos %v): order lost", i, i, cos)
		}
	}
}

func TestEmbedDocumentsNothingToSend(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	c := newOllama(t, nil, srv)
	got, err := c.EmbedDocuments(ctxT(t), nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("EmbedDocuments(nil) = %v, %v; want empty, nil", got, err)
	}
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Errorf("requests = %d, want none", len(reqs))
	}
}

func TestEmptyTextIsInvalid(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	c := newOllama(t, nil, srv)
	if _, err := c.EmbedDocuments(ctxT(t), []string{"fine", "  "}); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("EmbedDocuments with a blank text: err = %v, want EINVALID", err)
	}
	if _, err := c.EmbedQuery(ctxT(t), ""); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("EmbedQuery(\"\"): err = %v, want EINVALID", err)
	}
	if n := len(srv.EmbedRequests()); n != 0 {
		t.Errorf("embed requests = %d, want none", n)
	}
}

func TestPrefixesSent(t *testing.T) {
	tests := []struct {
		model     string
		wantDoc   string
		wantQuery string
	}{
		{"nomic-embed-text", "search_document: kubernetes", "search_query: upgrade"},
		{"nomic-embed-text:v1.5", "search_document: kubernetes", "search_query: upgrade"},
		{"jeffh/intfloat-multilingual-e5-large:f16", "passage: kubernetes", "query: upgrade"},
		{"mxbai-embed-large", "kubernetes", "Represent this sentence for searching relevant passages: upgrade"},
		{"bge-m3", "kubernetes", "upgrade"},
		{"snowflake-arctic-embed2", "kubernetes", "query: upgrade"},
		{"embeddinggemma", "title: none | text: kubernetes", "task: search result | query: upgrade"},
		{"qwen3-embedding:0.6b", "kubernetes", "Instruct: Given a search query, retrieve relevant passages\nQuery: upgrade"},
		{"some-new-embedder", "kubernetes", "upgrade"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			srv := embeddingtest.NewServer(t)
			srv.SetModels(embeddingtest.KnownModel(tt.model))
			c := newOllama(t, func(o *embedding.OllamaOptions) { o.Model = tt.model }, srv)
			if _, err := c.EmbedDocuments(ctxT(t), []string{"kubernetes"}); err != nil {
				t.Fatalf("EmbedDocuments: %v", err)
			}
			if _, err := c.EmbedQuery(ctxT(t), "upgrade"); err != nil {
				t.Fatalf("EmbedQuery: %v", err)
			}
			reqs := srv.EmbedRequests()
			if len(reqs) != 2 {
				t.Fatalf("embed requests = %d, want 2", len(reqs))
			}
			if got := reqs[0].Inputs[0]; got != tt.wantDoc {
				t.Errorf("document sent as %q, want %q", got, tt.wantDoc)
			}
			if got := reqs[1].Inputs[0]; got != tt.wantQuery {
				t.Errorf("query sent as %q, want %q", got, tt.wantQuery)
			}
		})
	}
}

func TestUnknownModelIsLoggedOnce(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	srv.SetModels(embeddingtest.KnownModel("some-new-embedder"))
	log, lb := newLog(t)
	c, err := embedding.NewOllama(embedding.OllamaOptions{Hosts: []string{srv.URL}, Model: "some-new-embedder", Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := c.EmbedQuery(ctxT(t), "q"+fmt.Sprint(time.Now().UnixNano())); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(lb.String(), "no known prefixes"); n != 1 {
		t.Errorf("unknown-model warning logged %d times, want 1", n)
	}
}

func TestProbe(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	srv.SetModels(embeddingtest.KnownModel("mxbai-embed-large"))
	c := newOllama(t, func(o *embedding.OllamaOptions) { o.Model = "mxbai-embed-large:latest" }, srv)
	got, err := c.Probe(ctxT(t))
	if err != nil {
		t.Fatalf("Probe: %v", err)
	}
	want := embedding.Info{Model: "mxbai-embed-large:latest", Dim: 1024, ContextLength: 512, Family: "bert", Capabilities: []string{"embedding"}}
	if got.Model != want.Model || got.Dim != want.Dim || got.ContextLength != want.ContextLength ||
		got.Family != want.Family || !slices.Equal(got.Capabilities, want.Capabilities) {
		t.Errorf("Probe() = %+v, want %+v", got, want)
	}
	if dim, err := c.Dim(ctxT(t)); dim != 1024 || err != nil {
		t.Errorf("Dim() = %d, %v; want 1024, nil", dim, err)
	}
	shows := 0
	for _, r := range srv.Requests() {
		if r.Path == "/api/show" {
			shows++
		}
	}
	if shows != 1 {
		t.Errorf("/api/show requests = %d, want 1 (the result is cached)", shows)
	}
}

func TestProbeRejectsNonEmbeddingModel(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	m := embeddingtest.KnownModel("llama3.2")
	m.Capabilities = []string{"completion", "tools"}
	srv.SetModels(m)
	c := newOllama(t, func(o *embedding.OllamaOptions) { o.Model = "llama3.2" }, srv)
	_, err := c.Probe(ctxT(t))
	if hs.ErrorKind(err) != hs.EINVALID || !strings.Contains(err.Error(), "not an embedding model") {
		t.Errorf("Probe() err = %v, want EINVALID not an embedding model", err)
	}
}

func TestNumCtxCap(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	c := newOllama(t, func(o *embedding.OllamaOptions) { o.NumCtx = 512 }, srv)
	if _, err := c.EmbedDocuments(ctxT(t), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if got := srv.EmbedRequests()[0].Options["num_ctx"]; got != float64(512) {
		t.Errorf("num_ctx = %v, want 512", got)
	}
}

func TestQueryCache(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	c := newOllama(t, nil, srv)
	first, err := c.EmbedQuery(ctxT(t), "kubernetes upgrade")
	if err != nil {
		t.Fatal(err)
	}
	first[0] = 42 // the caller's copy; the cache must not see this
	second, err := c.EmbedQuery(ctxT(t), "kubernetes upgrade")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.EmbedRequests()); n != 1 {
		t.Errorf("embed requests after a repeated query = %d, want 1", n)
	}
	if second[0] == 42 {
		t.Error("cached vector was changed through a returned slice")
	}
	if _, err := c.EmbedQuery(ctxT(t), "another question"); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.EmbedRequests()); n != 2 {
		t.Errorf("embed requests after a new query = %d, want 2", n)
	}
	// Documents are never served from the query cache.
	if _, err := c.EmbedDocuments(ctxT(t), []string{"kubernetes upgrade"}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.EmbedRequests()); n != 3 {
		t.Errorf("embed requests after a document = %d, want 3", n)
	}
}

func TestQueryCacheOff(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	c := newOllama(t, func(o *embedding.OllamaOptions) { o.QueryCacheSize = -1 }, srv)
	for range 2 {
		if _, err := c.EmbedQuery(ctxT(t), "same"); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(srv.EmbedRequests()); n != 2 {
		t.Errorf("embed requests = %d, want 2 with the cache off", n)
	}
}

func TestHealth(t *testing.T) {
	a, b := embeddingtest.NewServer(t), embeddingtest.NewServer(t)
	c := newOllama(t, nil, a, b)
	if err := c.Health(ctxT(t)); err != nil {
		t.Errorf("Health() with both up = %v", err)
	}
	a.Down()
	if err := c.Health(ctxT(t)); err != nil {
		t.Errorf("Health() with one up = %v", err)
	}
	b.Down()
	if err := c.Health(ctxT(t)); hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Errorf("Health() with none up = %v, want EUNAVAILABLE", err)
	}
	a.Up()
	if err := c.Health(ctxT(t)); err != nil {
		t.Errorf("Health() after Up = %v", err)
	}
}

func l2(v []float32) float64 {
	return math.Sqrt(dot(v, v))
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
