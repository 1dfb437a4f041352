package embedding_test

import (
	"strings"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

// TestNumCtxOnlyWhenNeeded: options.num_ctx is sent only when the context
// Ollama would use by default is smaller than our inputs need and the
// model was trained for more.
func TestNumCtxOnlyWhenNeeded(t *testing.T) {
	tests := []struct {
		name       string
		model      string
		trained    int // 0 keeps KnownModel's
		param      int // the Modelfile's num_ctx
		need       int // OllamaOptions.ContextNeeded
		numCtx     int // OllamaOptions.NumCtx
		wantNumCtx int // 0: none sent
	}{
		{name: "nomic: the default 4096 is capped at the trained 2048, enough", model: "nomic-embed-text", need: 1256},
		{name: "nomic: need beyond the trained context, nothing to gain", model: "nomic-embed-text", need: 8256},
		{name: "all-minilm: trained 512, raising it is clamped anyway", model: "all-minilm", need: 1256},
		{name: "bge-m3: default 4096 is enough", model: "bge-m3", need: 1256},
		{name: "bge-m3: chunks of 8000 need more than 4096", model: "bge-m3", need: 8256, wantNumCtx: 8192},
		{name: "qwen3: 32k trained, 5000 needed", model: "qwen3-embedding", need: 5000, wantNumCtx: 8192},
		{name: "a Modelfile num_ctx of 512 is too small", model: "bge-m3", param: 512, need: 1256, wantNumCtx: 2048},
		{name: "a Modelfile num_ctx of 2048 is enough", model: "bge-m3", param: 2048, need: 1256},
		{name: "explicit NumCtx is always sent", model: "nomic-embed-text", numCtx: 1024, wantNumCtx: 1024},
		{name: "explicit NumCtx is capped at the trained context", model: "all-minilm", numCtx: 8192, wantNumCtx: 512},
		{name: "default need", model: "bge-m3", param: 1024, wantNumCtx: 2048},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embeddingtest.NewServer(t)
			m := embeddingtest.KnownModel(tt.model)
			if tt.trained > 0 {
				m.ContextLength = tt.trained
			}
			m.NumCtx = tt.param
			srv.SetModels(m)
			c := newOllama(t, func(o *embedding.OllamaOptions) {
				o.Model, o.ContextNeeded, o.NumCtx = tt.model, tt.need, tt.numCtx
			}, srv)
			if _, err := c.EmbedDocuments(ctxT(t), []string{"a document"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.EmbedQuery(ctxT(t), "a question"); err != nil {
				t.Fatal(err)
			}
			for _, r := range srv.EmbedRequests() {
				got, sent := r.Options["num_ctx"].(float64)
				switch {
				case tt.wantNumCtx == 0 && sent:
					t.Errorf("num_ctx = %v sent, want none", got)
				case tt.wantNumCtx != 0 && int(got) != tt.wantNumCtx:
					t.Errorf("num_ctx = %v (sent %v), want %d", got, sent, tt.wantNumCtx)
				}
			}
			if info, _ := c.Probe(ctxT(t)); info.DefaultContext != tt.param {
				t.Errorf("Probe().DefaultContext = %d, want the Modelfile's %d", info.DefaultContext, tt.param)
			}
		})
	}
}

// TestNoReloadsBesideOtherClients: Ollama reloads a model whenever its
// clients ask for different contexts. Beside a client that sends no
// num_ctx (the default of Ollama's own tools), ours loads it once.
func TestNoReloadsBesideOtherClients(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	c := newOllama(t, nil, srv)
	other := newOllama(t, func(o *embedding.OllamaOptions) { o.QueryCacheSize = -1 }, srv)
	for i := range 5 {
		if _, err := c.EmbedDocuments(ctxT(t), []string{"ours", "also ours"}); err != nil {
			t.Fatal(err)
		}
		// The other client's requests, as "ollama run"/Open WebUI send them.
		if _, err := other.EmbedQuery(ctxT(t), strings.Repeat("theirs ", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.Loads("nomic-embed-text"); n != 1 {
		t.Errorf("model loaded %d times, want 1", n)
	}

	// Before: num_ctx forced to the trained 2048 on every request.
	forced := newOllama(t, func(o *embedding.OllamaOptions) { o.NumCtx = 2048 }, srv)
	for range 3 {
		if _, err := forced.EmbedDocuments(ctxT(t), []string{"forced"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.EmbedDocuments(ctxT(t), []string{"default"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.Loads("nomic-embed-text"); n != 7 {
		t.Errorf("with one client forcing num_ctx the model was loaded %d times, want 7 (a reload on every switch)", n)
	}
}

// TestInputTooLongIsTooLarge: an input Ollama cannot truncate (the cut
// text encodes longer again) is ETOOLARGE, not a reason to retry.
func TestInputTooLongIsTooLarge(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	m := embeddingtest.KnownModel("all-minilm")
	m.ContextLength, m.ASCIIVocab = 64, true
	srv.SetModels(m)
	c := newOllama(t, func(o *embedding.OllamaOptions) { o.Model = "all-minilm" }, srv)
	long := strings.Repeat("naïve café ", 100)
	_, err := c.EmbedDocuments(ctxT(t), []string{"short", long})
	if hs.ErrorKind(err) != hs.ETOOLARGE || !strings.Contains(err.Error(), "the input length exceeds the context length") {
		t.Fatalf("EmbedDocuments(over-long input) = %v, want ETOOLARGE with Ollama's message", err)
	}
	if strings.Contains(err.Error(), "café") {
		t.Errorf("the error holds the input: %v", err)
	}
	// The same length in ASCII words is truncated by Ollama and embedded.
	if _, err := c.EmbedDocuments(ctxT(t), []string{strings.Repeat("naive cafe ", 100)}); err != nil {
		t.Errorf("EmbedDocuments(truncatable input) = %v", err)
	}
	// Each half fits.
	half := strings.Repeat("naïve café ", 15)
	if _, err := c.EmbedDocuments(ctxT(t), []string{half, half}); err != nil {
		t.Errorf("EmbedDocuments(halves) = %v", err)
	}
}
