package embeddingtest_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

// busyClient is a busy indexer: until stop is closed it starts a request
// for model (60 ms of work) every 15 ms, so several are always under way;
// keepAlive, if non-nil, goes with each.
func busyClient(t *testing.T, s *embeddingtest.Server, model string, keepAlive *time.Duration, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(15 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			req := &api.EmbedRequest{Model: model, Input: []string{"indexing a chunk"}}
			if keepAlive != nil {
				req.KeepAlive = &api.Duration{Duration: *keepAlive}
			}
			wg.Go(func() {
				if _, err := client(t, s).Embed(context.Background(), req); err != nil {
					t.Errorf("the busy client's request: %v", err)
				}
			})
		}
	})
	return &wg
}

// TestSchedulerReloadWait: as in Ollama's scheduler, a request that needs
// the model reloaded (other options) or another model loaded (with one
// model at a time) waits while a busy client keeps the model in use, and
// then as long as that client's keep_alive, which each of its requests
// renews; from a busy client that sends no keep_alive, it waits only until
// no request of that client is under way.
func TestSchedulerReloadWait(t *testing.T) {
	keep := 1500 * time.Millisecond
	const busyFor = 500 * time.Millisecond
	tests := []struct {
		name      string
		keepAlive *time.Duration
		other     *api.EmbedRequest
		longWait  bool
	}{
		{"other options, keep_alive sent", &keep, &api.EmbedRequest{Model: "nomic-embed-text", Input: "x", Options: map[string]any{"num_ctx": 8192}}, true},
		{"other options, none sent", nil, &api.EmbedRequest{Model: "nomic-embed-text", Input: "x", Options: map[string]any{"num_ctx": 8192}}, false},
		{"another model, keep_alive sent", &keep, &api.EmbedRequest{Model: "all-minilm", Input: "x"}, true},
		{"another model, none sent", nil, &api.EmbedRequest{Model: "all-minilm", Input: "x"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := embeddingtest.NewServer(t)
			s.SetModels(embeddingtest.KnownModel("nomic-embed-text"), embeddingtest.KnownModel("all-minilm"))
			s.SetScheduler(embeddingtest.SchedOptions{MaxLoaded: 1})
			s.SetCost(60*time.Millisecond, false)
			stop := make(chan struct{})
			wg := busyClient(t, s, "nomic-embed-text", tt.keepAlive, stop)
			// The other request comes once the busy client has the model
			// loaded (not after a fixed pause, which a loaded machine can
			// outlast before the client's first request), and the client
			// goes on for busyFor after that.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if _, ok := s.Loaded()["nomic-embed-text:latest"]; ok {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the busy client's model is not loaded after 10 s")
				}
			}
			time.AfterFunc(busyFor, func() { close(stop) })
			start := time.Now()
			if _, err := client(t, s).Embed(context.Background(), tt.other); err != nil {
				t.Fatal(err)
			}
			wait := time.Since(start)
			wg.Wait()
			t.Logf("the other request waited %s (busy client: %s more, keep-alive %v)", wait.Round(time.Millisecond), busyFor, tt.keepAlive)
			switch {
			case tt.longWait && wait < keep:
				t.Errorf("waited %s, want at least the busy client's keep-alive, %s", wait, keep)
			case !tt.longWait && wait > keep:
				t.Errorf("waited %s, want to be served once the busy client paused, before its keep-alive", wait)
			}
		})
	}
}

// TestSchedulerUnloadsAfterKeepAlive: an idle model is unloaded after its
// keep-alive: the request's, else the server's.
func TestSchedulerUnloadsAfterKeepAlive(t *testing.T) {
	s := embeddingtest.NewServer(t)
	s.SetScheduler(embeddingtest.SchedOptions{KeepAlive: 200 * time.Millisecond})
	if _, err := client(t, s).Embed(context.Background(), &api.EmbedRequest{Model: "nomic-embed-text", Input: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Loaded()["nomic-embed-text:latest"]; !ok {
		t.Fatal("the model is not loaded after a request")
	}
	time.Sleep(400 * time.Millisecond)
	if len(s.Loaded()) != 0 {
		t.Errorf("loaded after the server's keep-alive: %v", s.Loaded())
	}
	if _, err := client(t, s).Embed(context.Background(), &api.EmbedRequest{Model: "nomic-embed-text", Input: "x", KeepAlive: &api.Duration{Duration: time.Hour}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	if _, ok := s.Loaded()["nomic-embed-text:latest"]; !ok || s.Loads("nomic-embed-text") != 2 {
		t.Errorf("with keep_alive 1h: loaded %v after %d loads", s.Loaded(), s.Loads("nomic-embed-text"))
	}
}
