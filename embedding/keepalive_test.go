package embedding_test

import (
	"math"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

// TestKeepAlive: by default no keep_alive is sent, so Ollama keeps the
// model as its own setting says (OLLAMA_KEEP_ALIVE, 5 minutes unless set)
// and a request of the app never extends another client's wait for the
// model; a keep-alive set is sent as set, a negative one as Ollama's
// "forever" (-1), 0 as "unload when idle".
func TestKeepAlive(t *testing.T) {
	dur := func(d time.Duration) *time.Duration { return &d }
	tests := []struct {
		name string
		set  *time.Duration
		want *time.Duration // as Ollama reads it; nil: not sent
	}{
		{"default: not sent", nil, nil},
		{"ten minutes", dur(10 * time.Minute), dur(10 * time.Minute)},
		{"zero: unload when idle", dur(0), dur(0)},
		{"negative: forever", dur(-time.Second), dur(time.Duration(math.MaxInt64))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := embeddingtest.NewServer(t)
			c := newOllama(t, func(o *embedding.OllamaOptions) { o.KeepAlive = tt.set }, srv)
			if _, err := c.EmbedDocuments(ctxT(t), []string{"a text"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.EmbedQuery(ctxT(t), "a query"); err != nil {
				t.Fatal(err)
			}
			reqs := srv.EmbedRequests()
			if len(reqs) != 2 {
				t.Fatalf("%d embed requests, want 2", len(reqs))
			}
			for _, r := range reqs {
				switch {
				case tt.want == nil && r.KeepAlive != nil:
					t.Errorf("keep_alive %v sent, want none", *r.KeepAlive)
				case tt.want != nil && (r.KeepAlive == nil || *r.KeepAlive != *tt.want):
					t.Errorf("keep_alive = %v, want %v", r.KeepAlive, *tt.want)
				}
			}
		})
	}
}
