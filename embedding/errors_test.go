package embedding_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

func TestModelMissing(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	srv.SetModels()
	c := newOllama(t, nil, srv)
	want := fmt.Sprintf(`embedding model "nomic-embed-text" is not available on %s: run "ollama pull nomic-embed-text" there`, srv.URL)

	_, err := c.EmbedDocuments(ctxT(t), []string{"a"})
	if hs.ErrorKind(err) != hs.EUNAVAILABLE || hs.ErrorMessage(err) != want {
		t.Fatalf("EmbedDocuments err = %q (kind %s), want EUNAVAILABLE %q", hs.ErrorMessage(err), hs.ErrorKind(err), want)
	}

	// The admin pulls the model; the next attempt works without a restart.
	srv.AddModel(embeddingtest.KnownModel("nomic-embed-text"))
	if _, err := c.EmbedDocuments(ctxT(t), []string{"a"}); err != nil {
		t.Fatalf("after pull: %v", err)
	}

	// The model disappears after the probe: the embed 404 says the same.
	srv.RemoveModel("nomic-embed-text:latest")
	_, err = c.EmbedQuery(ctxT(t), "query")
	if hs.ErrorKind(err) != hs.EUNAVAILABLE || hs.ErrorMessage(err) != want {
		t.Errorf("EmbedQuery err = %q (kind %s), want EUNAVAILABLE %q", hs.ErrorMessage(err), hs.ErrorKind(err), want)
	}
}

func TestErrorKinds(t *testing.T) {
	const secret = "the quarterly numbers are confidential"
	tests := []struct {
		name     string
		setup    func(*embeddingtest.Server)
		wantKind string
		wantText string
	}{
		{name: "503 queue full", setup: func(s *embeddingtest.Server) { s.Fail(503, 1) }, wantKind: hs.EUNAVAILABLE, wantText: "server busy"},
		{name: "500 runner crashed", setup: func(s *embeddingtest.Server) { s.Fail(500, 1) }, wantKind: hs.EUNAVAILABLE, wantText: "status 500"},
		{name: "400 input too long", setup: func(s *embeddingtest.Server) { s.Fail(400, 1) }, wantKind: hs.ETOOLARGE, wantText: "too long for the model's context"},
		{
			name: "400 cannot be truncated further",
			setup: func(s *embeddingtest.Server) {
				s.FailWith(400, 1, "input exceeds maximum context length and cannot be truncated further")
			},
			wantKind: hs.ETOOLARGE, wantText: "cannot be truncated further",
		},
		{
			name:     "400 input rejected",
			setup:    func(s *embeddingtest.Server) { s.FailWith(400, 1, "invalid input type") },
			wantKind: hs.EINVALID, wantText: "rejected the input",
		},
		{name: "404 model gone", setup: func(s *embeddingtest.Server) { s.Fail(404, 1) }, wantKind: hs.EUNAVAILABLE, wantText: "ollama pull"},
		{name: "host down", setup: func(s *embeddingtest.Server) { s.Down() }, wantKind: hs.EUNAVAILABLE, wantText: "unreachable"},
		{
			name: "one vector missing",
			setup: func(s *embeddingtest.Server) {
				s.SetRewrite(func(r *api.EmbedResponse) { r.Embeddings = r.Embeddings[1:] })
			},
			wantKind: hs.EINTERNAL, wantText: "got 1 vectors for 2 inputs",
		},
		{
			name: "wrong dimension",
			setup: func(s *embeddingtest.Server) {
				s.SetRewrite(func(r *api.EmbedResponse) { r.Embeddings[0] = r.Embeddings[0][:384] })
			},
			wantKind: hs.EINTERNAL, wantText: "384 dimensions, want 768",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embeddingtest.NewServer(t)
			log, lb := newLog(t)
			c := newOllama(t, func(o *embedding.OllamaOptions) { o.Logger = log }, srv)
			if _, err := c.Probe(ctxT(t)); err != nil {
				t.Fatal(err)
			}
			tt.setup(srv)
			_, err := c.EmbedDocuments(ctxT(t), []string{secret, "second " + secret})
			if got := hs.ErrorKind(err); got != tt.wantKind {
				t.Fatalf("kind = %q (%v), want %q", got, err, tt.wantKind)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("err = %q, want it to contain %q", err, tt.wantText)
			}
			if strings.Contains(err.Error(), "confidential") || strings.Contains(lb.String(), "confidential") {
				t.Errorf("the input text leaked into the error or the log: %v", err)
			}
		})
	}
}

func TestErrorThenRecovery(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	c := newOllama(t, nil, srv)
	srv.Fail(503, 1)
	if _, err := c.EmbedQuery(ctxT(t), "q"); hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Fatalf("first query: %v, want EUNAVAILABLE", err)
	}
	if _, err := c.EmbedQuery(ctxT(t), "q"); err != nil {
		t.Fatalf("second query: %v", err)
	}
}

func TestTimeoutFromContext(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	c := newOllama(t, nil, srv)
	if _, err := c.Probe(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	srv.SetCost(10*time.Second, false)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.EmbedDocuments(ctx, []string{"slow"})
	if hs.ErrorKind(err) != hs.EUNAVAILABLE || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want EUNAVAILABLE wrapping context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("EmbedDocuments returned after %v; the context deadline was 50ms", d)
	}
}

func TestPerRequestTimeout(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	c := newOllama(t, func(o *embedding.OllamaOptions) { o.Timeout = 100 * time.Millisecond }, srv)
	if _, err := c.Probe(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	srv.SetCost(10*time.Second, false)
	_, err := c.EmbedQuery(ctxT(t), "slow")
	if hs.ErrorKind(err) != hs.EUNAVAILABLE || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("err = %v, want EUNAVAILABLE timed out", err)
	}
}
