package queue

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/kv"
	"github.com/hybrid-search/hybridsearch/queue/natstest"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// testLogger is natstest.Logger.
func testLogger(t testing.TB) *slog.Logger { return natstest.Logger(t) }

// fast are options with short timings for tests; fields set in o win.
func fast(o Options) Options {
	if o.AckWait == 0 {
		o.AckWait = 3 * time.Second
	}
	if o.Retry.Backoff == nil {
		o.Retry.Backoff = []time.Duration{50 * time.Millisecond}
	}
	if o.pollWait == 0 {
		o.pollWait = 200 * time.Millisecond
	}
	if o.DrainTimeout == 0 {
		o.DrainTimeout = 5 * time.Second
	}
	return o
}

// mustOpen starts a server and opens a queue on it with fast options.
func mustOpen(t testing.TB, o Options) (*Queue, *server.Server, *nats.Conn) {
	t.Helper()
	if o.Logger == nil {
		o.Logger = testLogger(t)
	}
	s := natstest.Run(t)
	nc := natstest.Connect(t, s)
	q, err := Open(t.Context(), nc, fast(o))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return q, s, nc
}

// mustKV opens the key-value store on nc, as the app does beside the queue.
func mustKV(t testing.TB, nc *nats.Conn) *kv.Store {
	t.Helper()
	db, err := kv.Open(t.Context(), nc, kv.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("kv.Open: %v", err)
	}
	return db
}

// mustOpenWithStates opens a queue whose dead letters reach the file
// states through indexing, as the app wires them (Options.GaveUp is
// indexing.Failures.GaveUp), and returns the states.
func mustOpenWithStates(t testing.TB, o Options) (*Queue, *kv.States) {
	t.Helper()
	if o.Logger == nil {
		o.Logger = testLogger(t)
	}
	s := natstest.Run(t)
	nc := natstest.Connect(t, s)
	states := mustKV(t, nc).States()
	o.GaveUp = (&indexing.Failures{States: states, Logger: o.Logger}).GaveUp
	q, err := Open(t.Context(), nc, fast(o))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return q, states
}

// startRun runs q.Run in the background. stop cancels it and returns Run's
// error; it also runs in t.Cleanup.
func startRun(t testing.TB, q *Queue, h Handler) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- q.Run(ctx, h) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-errc })
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// awaitTrue is natstest.Await.
func awaitTrue(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	natstest.Await(t, within, what, cond)
}

// awaitPending waits until the queue holds want jobs.
func awaitPending(t testing.TB, q *Queue, want int, within time.Duration) {
	t.Helper()
	var got int
	awaitTrue(t, within, "pending jobs", func() bool {
		var err error
		got, err = q.Pending(context.Background())
		return err == nil && got == want
	})
}

func mustPublish(t testing.TB, q *Queue, jobs ...hs.IndexJob) {
	t.Helper()
	if err := q.Publish(t.Context(), jobs...); err != nil {
		t.Fatalf("Publish: %v", err)
	}
}

func fileJob(id hs.FileID, event string) hs.IndexJob {
	return hs.IndexJob{FileID: id, User: "alice", Path: "/doc.md", Event: event,
		Reason: hs.ReasonEvent, Time: time.Now().UTC()}
}

// calls records handler calls.
type calls struct {
	mu   sync.Mutex
	jobs []hs.IndexJob
	at   []time.Time
}

func (c *calls) add(job hs.IndexJob) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.jobs = append(c.jobs, job)
	c.at = append(c.at, time.Now())
	return len(c.jobs)
}

func (c *calls) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.jobs)
}

func (c *calls) snapshot() ([]hs.IndexJob, []time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]hs.IndexJob(nil), c.jobs...), append([]time.Time(nil), c.at...)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
