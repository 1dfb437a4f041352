package embedding_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

func TestTwoHostsShareTheWork(t *testing.T) {
	a, b := embeddingtest.NewServer(t), embeddingtest.NewServer(t)
	for _, s := range []*embeddingtest.Server{a, b} {
		s.SetCost(200*time.Microsecond, false) // not serial: the client must hold back by itself
	}
	c := newOllama(t, func(o *embedding.OllamaOptions) { o.BatchSize = 8 }, a, b)
	in := texts(128, func(i int) string { return fmt.Sprintf("text %d", i) })
	got, err := c.EmbedDocuments(ctxT(t), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(in) {
		t.Fatalf("got %d vectors, want %d", len(got), len(in))
	}
	na, nb := inputCount(a.EmbedRequests()), inputCount(b.EmbedRequests())
	if na == 0 || nb == 0 || na+nb != len(in) {
		t.Errorf("inputs per host = %d + %d, want both > 0 and %d in all", na, nb, len(in))
	}
	for name, s := range map[string]*embeddingtest.Server{"a": a, "b": b} {
		if m := s.MaxInFlight(); m > 2 {
			t.Errorf("host %s had %d embed requests in flight at once, want at most 2 (one embedding, one queued)", name, m)
		}
	}
}

func TestConcurrentCallsKeepAtMostTwoBatchesPerHost(t *testing.T) {
	srv := embeddingtest.NewServer(t)
	srv.SetCost(200*time.Microsecond, false)
	c := newOllama(t, func(o *embedding.OllamaOptions) { o.BatchSize = 4 }, srv)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for w := range errs {
		wg.Go(func() {
			_, errs[w] = c.EmbedDocuments(ctxT(t), texts(16, func(i int) string { return fmt.Sprintf("worker %d text %d", w, i) }))
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", w, err)
		}
	}
	if m := srv.MaxInFlight(); m > 2 {
		t.Errorf("embed requests in flight at once = %d, want at most 2", m)
	}
	if n := inputCount(srv.EmbedRequests()); n != 64 {
		t.Errorf("inputs sent = %d, want 64", n)
	}
}

func TestHostDownOtherServesEverything(t *testing.T) {
	a, b := embeddingtest.NewServer(t), embeddingtest.NewServer(t)
	b.Down()
	c := newOllama(t, func(o *embedding.OllamaOptions) { o.HostCooldown = 50 * time.Millisecond }, a, b)
	in := texts(100, func(i int) string { return fmt.Sprintf("text %d", i) })
	if _, err := c.EmbedDocuments(ctxT(t), in); err != nil {
		t.Fatalf("EmbedDocuments with one host down: %v", err)
	}
	if _, err := c.EmbedQuery(ctxT(t), "question"); err != nil {
		t.Fatalf("EmbedQuery with one host down: %v", err)
	}
	if n := inputCount(a.EmbedRequests()); n != 101 {
		t.Errorf("inputs served by the live host = %d, want 101", n)
	}

	// Back up: after the cooldown the host takes work again.
	b.Up()
	await(t, "the recovered host to receive a batch", func() bool {
		if _, err := c.EmbedDocuments(ctxT(t), in); err != nil {
			t.Fatalf("EmbedDocuments after Up: %v", err)
		}
		return len(b.EmbedRequests()) > 0
	})
}

func TestHostGoesDownMidway(t *testing.T) {
	a, b := embeddingtest.NewServer(t), embeddingtest.NewServer(t)
	c := newOllama(t, func(o *embedding.OllamaOptions) { o.BatchSize = 10 }, a, b)
	if _, err := c.Probe(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	b.Down()
	in := texts(60, func(i int) string { return fmt.Sprintf("text %d", i) })
	got, err := c.EmbedDocuments(ctxT(t), in)
	if err != nil {
		t.Fatalf("EmbedDocuments: %v", err)
	}
	if len(got) != 60 || inputCount(a.EmbedRequests()) != 60 {
		t.Errorf("got %d vectors, live host served %d inputs; want 60 and 60", len(got), inputCount(a.EmbedRequests()))
	}
}

func TestModelOnOneHostOnly(t *testing.T) {
	a, b := embeddingtest.NewServer(t), embeddingtest.NewServer(t)
	a.SetModels() // not pulled on a
	c := newOllama(t, func(o *embedding.OllamaOptions) { o.BatchSize = 10 }, a, b)
	if _, err := c.EmbedDocuments(ctxT(t), texts(40, func(i int) string { return fmt.Sprint("t", i) })); err != nil {
		t.Fatalf("EmbedDocuments: %v", err)
	}
	if n := inputCount(b.EmbedRequests()); n != 40 {
		t.Errorf("host with the model served %d inputs, want 40", n)
	}
}

func TestQueryGoesToLeastBusyHost(t *testing.T) {
	a, b := embeddingtest.NewServer(t), embeddingtest.NewServer(t)
	c := newOllama(t, nil, a, b)
	if _, err := c.Probe(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	a.SetCost(300*time.Millisecond, true)
	done := make(chan error, 1)
	go func() {
		_, err := c.EmbedDocuments(ctxT(t), []string{"a long document batch"})
		done <- err
	}()
	await(t, "the batch to reach host a", func() bool { return a.MaxInFlight() == 1 })
	if _, err := c.EmbedQuery(ctxT(t), "quick question"); err != nil {
		t.Fatal(err)
	}
	if reqs := b.EmbedRequests(); len(reqs) != 1 || reqs[0].Inputs[0] != "search_query: quick question" {
		t.Errorf("host b requests = %+v, want the query", reqs)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestAllHostsDown(t *testing.T) {
	a, b := embeddingtest.NewServer(t), embeddingtest.NewServer(t)
	c := newOllama(t, nil, a, b)
	if _, err := c.Probe(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	a.Down()
	b.Down()
	for _, call := range []func() error{
		func() error {
			_, err := c.EmbedDocuments(ctxT(t), texts(70, func(i int) string { return fmt.Sprint("t", i) }))
			return err
		},
		func() error { _, err := c.EmbedQuery(ctxT(t), "q"); return err },
	} {
		if err := call(); err == nil {
			t.Error("want an error with every host down")
		}
	}
}

// BenchmarkEmbedDocuments shows throughput against Ollama-like hosts that
// serve one request at a time: two hosts should take about half the time.
func BenchmarkEmbedDocuments(b *testing.B) {
	for _, hosts := range []int{1, 2} {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			var urls []string
			for range hosts {
				s := embeddingtest.NewServer(b)
				s.SetModels(embeddingtest.KnownModel("all-minilm")) // small vectors: measure waiting, not JSON
				s.SetCost(500*time.Microsecond, true)
				urls = append(urls, s.URL)
			}
			c, err := embedding.NewOllama(embedding.OllamaOptions{Hosts: urls, Model: "all-minilm", Logger: discard()})
			if err != nil {
				b.Fatal(err)
			}
			in := texts(256, func(i int) string { return fmt.Sprintf("benchmark text %d", i) })
			ctx := context.Background()
			for b.Loop() {
				if _, err := c.EmbedDocuments(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(in))/b.Elapsed().Seconds(), "inputs/s")
		})
	}
}

// inFlight is a transport that counts the /api/embed requests in flight
// at once across every host.
type inFlight struct {
	mu       sync.Mutex
	now, max int
	hosts    map[string]bool // hosts that got a request
}

func (f *inFlight) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(r.URL.Path, "/api/embed") {
		return http.DefaultTransport.RoundTrip(r)
	}
	f.mu.Lock()
	f.now++
	f.max = max(f.max, f.now)
	f.hosts[r.URL.Host] = true
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.now--; f.mu.Unlock() }()
	return http.DefaultTransport.RoundTrip(r)
}

// TestOneCallKeepsAtMostTwoHostsBusy: one EmbedDocuments call (one file)
// of many texts on four idle hosts has at most RequestsPerCall (2)
// requests in flight, so the other two hosts stay free for other files;
// a larger RequestsPerCall uses more of them.
func TestOneCallKeepsAtMostTwoHostsBusy(t *testing.T) {
	tests := []struct {
		name    string
		perCall int
		want    int
	}{
		{name: "default", perCall: 0, want: 2},
		{name: "three", perCall: 3, want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var servers []*embeddingtest.Server
			for range 4 {
				s := embeddingtest.NewServer(t)
				s.SetCost(2*time.Millisecond, true)
				servers = append(servers, s)
			}
			f := &inFlight{hosts: map[string]bool{}}
			c := newOllama(t, func(o *embedding.OllamaOptions) {
				o.BatchSize, o.RequestsPerCall, o.HTTPClient = 8, tt.perCall, &http.Client{Transport: f}
			}, servers...)
			in := texts(256, func(i int) string { return fmt.Sprintf("chunk %d", i) })
			got, err := c.EmbedDocuments(ctxT(t), in)
			if err != nil || len(got) != len(in) {
				t.Fatalf("EmbedDocuments = %d vectors, %v; want %d", len(got), err, len(in))
			}
			if f.max > tt.want {
				t.Errorf("requests in flight at once = %d, want at most %d", f.max, tt.want)
			}
			if n := len(f.hosts); n < 2 {
				t.Errorf("hosts used = %d, want the call spread over at least 2", n)
			}
		})
	}
}
