package queue

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/kv"
	"github.com/nats-io/nats.go/jetstream"
)

func TestRunWorkersAreConcurrent(t *testing.T) {
	t.Parallel()
	const workers = 3
	q, _, _ := mustOpen(t, Options{Workers: workers})
	var running, peak atomic.Int32
	all := make(chan struct{})
	var once sync.Once
	var c calls
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		c.add(job)
		n := running.Add(1)
		defer running.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if n == workers {
			once.Do(func() { close(all) })
		}
		select {
		case <-all:
		case <-time.After(5 * time.Second):
		}
		return nil
	})
	for i := range workers {
		mustPublish(t, q, fileJob(hs.FileID(i+1), "NodeWrittenEvent"))
	}
	awaitPending(t, q, 0, 10*time.Second)
	if got := peak.Load(); got != workers {
		t.Errorf("peak concurrent handlers = %d, want %d", got, workers)
	}
	if got := c.count(); got != workers {
		t.Errorf("handler calls = %d, want %d", got, workers)
	}
}

func TestRunRetriesUnavailable(t *testing.T) {
	t.Parallel()
	backoff := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}
	q, _, _ := mustOpen(t, Options{Retry: hs.RetryPolicy{Backoff: backoff}})
	var c calls
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		if c.add(job) < 3 {
			return hs.Errorf(hs.EUNAVAILABLE, "ollama down")
		}
		return nil
	})
	mustPublish(t, q, fileJob(1, "NodeWrittenEvent"))
	awaitTrue(t, 10*time.Second, "third attempt", func() bool { return c.count() >= 3 })
	awaitPending(t, q, 0, 5*time.Second)
	_, at := c.snapshot()
	for i, want := range backoff {
		if gap := at[i+1].Sub(at[i]); gap < want {
			t.Errorf("attempt %d came %s after attempt %d, want at least the backoff %s", i+2, gap, i+1, want)
		}
	}
	if got := c.count(); got != 3 {
		t.Errorf("handler calls = %d, want 3", got)
	}
}

func TestRunTermsPermanentErrors(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{hs.EINVALID, hs.ENOTFOUND, hs.ETOOLARGE} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			q, _, _ := mustOpen(t, Options{})
			var c calls
			startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
				c.add(job)
				return hs.Errorf(kind, "no")
			})
			mustPublish(t, q, fileJob(1, "NodeWrittenEvent"))
			awaitTrue(t, 5*time.Second, "first call", func() bool { return c.count() == 1 })
			awaitPending(t, q, 0, 5*time.Second)
			time.Sleep(300 * time.Millisecond) // several backoffs: a retry would show
			if got := c.count(); got != 1 {
				t.Errorf("handler calls = %d, want 1 (terminated, not retried)", got)
			}
			if dl, _ := q.DeadLetters(t.Context()); len(dl) != 0 {
				t.Errorf("dead letters = %+v, want none for a permanent error", dl)
			}
		})
	}
}

// TestRunDeadLetterKeepsIndexedFile: a job that fails for good on a file
// indexed for its readers (here one reader's calls refused: a user just
// deleted, whom the user list still vouches for) leaves the file indexed,
// so later reader changes still reach its index entry.
func TestRunDeadLetterKeepsIndexedFile(t *testing.T) {
	t.Parallel()
	q, states := mustOpenWithStates(t, Options{Retry: hs.RetryPolicy{MaxTries: 3}})
	indexed := hs.FileState{ID: 1, Status: hs.StatusIndexed, ETag: "e1", Chunks: 2,
		Readers: []hs.UserID{"alice", "bob"}, Paths: map[hs.UserID]string{"alice": "/plan.md", "bob": "/plan.md"}}
	if err := states.Put(t.Context(), indexed); err != nil {
		t.Fatal(err)
	}
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		return hs.Errorf(hs.EUNAUTHORIZED, "find file 1 as bob: 401 Unauthorized")
	})
	job := fileJob(1, "")
	job.User, job.Reason = "bob", hs.ReasonScan
	mustPublish(t, q, job)
	awaitTrue(t, 10*time.Second, "a dead letter", func() bool {
		dead, _ := q.DeadLetters(context.Background())
		return len(dead) == 1
	})
	awaitPending(t, q, 0, 5*time.Second)
	st, _, err := states.Get(t.Context(), 1)
	if err != nil || st.Status != hs.StatusIndexed || st.Chunks != 2 || !slices.Equal(st.Readers, indexed.Readers) {
		t.Errorf("file state after a dead letter = %+v, %v; want it indexed as before", st, err)
	}
}

// TestRunDeadLetterMarksBrokenFileFailed: a job that fails for good on
// the file itself (its new version cannot be read) marks an indexed file
// failed, so the admin sees it.
func TestRunDeadLetterMarksBrokenFileFailed(t *testing.T) {
	t.Parallel()
	q, states := mustOpenWithStates(t, Options{Retry: hs.RetryPolicy{MaxTries: 3}})
	if err := states.Put(t.Context(), hs.FileState{ID: 1, Status: hs.StatusIndexed, ETag: "e1", Chunks: 2,
		Readers: []hs.UserID{"alice"}, Paths: map[hs.UserID]string{"alice": "/plan.md"}}); err != nil {
		t.Fatal(err)
	}
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		return hs.Errorf(hs.EINTERNAL, "extract: the PDF is damaged")
	})
	job := fileJob(1, "")
	job.User = "alice"
	mustPublish(t, q, job)
	awaitTrue(t, 10*time.Second, "the file marked failed", func() bool {
		st, _, err := states.Get(t.Context(), 1)
		return err == nil && st.Status == hs.StatusFailed && strings.Contains(st.Error, "damaged")
	})
}

func TestRunDeadLetterAndRetry(t *testing.T) {
	t.Parallel()
	q, states := mustOpenWithStates(t, Options{Retry: hs.RetryPolicy{MaxTries: 3}})
	if err := states.Put(t.Context(), hs.FileState{ID: 1, Status: hs.StatusPending}); err != nil {
		t.Fatal(err)
	}
	var healthy atomic.Bool
	var c calls
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		c.add(job)
		if healthy.Load() {
			return nil
		}
		return hs.Errorf(hs.EUNAVAILABLE, "embedder: connection refused")
	})
	job := fileJob(1, "NodeWrittenEvent")
	mustPublish(t, q, job)

	var dead []DeadLetter
	awaitTrue(t, 10*time.Second, "a dead letter", func() bool {
		dead, _ = q.DeadLetters(context.Background())
		return len(dead) == 1
	})
	d := dead[0]
	if d.Key != "f.1" || d.Job.FileID != 1 || d.Attempts != 3 || d.Kind != hs.EUNAVAILABLE ||
		!strings.Contains(d.Error, "connection refused") || d.Failed.IsZero() {
		t.Errorf("dead letter = %+v, want key f.1, 3 attempts, kind unavailable, the error", d)
	}
	awaitPending(t, q, 0, 5*time.Second)
	if got := c.count(); got != 3 {
		t.Errorf("handler calls = %d, want MaxDeliver = 3", got)
	}
	st, _, err := states.Get(t.Context(), 1)
	if err != nil || st.Status != hs.StatusFailed || st.Attempts != 3 || !strings.Contains(st.Error, "connection refused") {
		t.Errorf("file state after dead letter = %+v, %v; want failed with the error", st, err)
	}

	healthy.Store(true)
	if err := q.RetryDeadLetter(t.Context(), 1); err != nil {
		t.Fatalf("RetryDeadLetter: %v", err)
	}
	awaitTrue(t, 5*time.Second, "the retried job", func() bool { return c.count() == 4 })
	jobs, _ := c.snapshot()
	if got := jobs[3]; got.FileID != 1 || got.Reason != hs.ReasonRetry || got.Path != job.Path {
		t.Errorf("retried job = %+v, want file 1 with reason retry", got)
	}
	awaitPending(t, q, 0, 5*time.Second)
	if dl, _ := q.DeadLetters(t.Context()); len(dl) != 0 {
		t.Errorf("dead letters after retry = %+v, want none", dl)
	}
	if err := q.RetryDeadLetter(t.Context(), 1); hs.ErrorKind(err) != hs.ENOTFOUND {
		t.Errorf("RetryDeadLetter of a missing record: %v, want ENOTFOUND", err)
	}
}

func TestRunRecoversPanic(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	var c calls
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		if c.add(job) == 1 {
			panic("chunker bug")
		}
		return nil
	})
	mustPublish(t, q, fileJob(1, "NodeWrittenEvent"))
	awaitTrue(t, 5*time.Second, "the retry after a panic", func() bool { return c.count() == 2 })
	awaitPending(t, q, 0, 5*time.Second)
	mustPublish(t, q, fileJob(2, "NodeWrittenEvent"))
	awaitTrue(t, 5*time.Second, "the next job", func() bool { return c.count() == 3 })
}

func TestRunPanicIsInternal(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{Retry: hs.RetryPolicy{MaxTries: 1}})
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error { panic("boom") })
	mustPublish(t, q, fileJob(4, "NodeWrittenEvent"))
	var dead []DeadLetter
	awaitTrue(t, 5*time.Second, "a dead letter", func() bool {
		dead, _ = q.DeadLetters(context.Background())
		return len(dead) == 1
	})
	if dead[0].Kind != hs.EINTERNAL || !strings.Contains(dead[0].Error, "boom") {
		t.Errorf("dead letter = %+v, want kind internal with the panic value", dead[0])
	}
}

func TestRunInProgressKeepsJobAlive(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{AckWait: time.Second})
	var c calls
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		c.add(job)
		select {
		case <-time.After(2500 * time.Millisecond): // a long embedding run
		case <-ctx.Done():
			return ctx.Err()
		}
		return nil
	})
	mustPublish(t, q, fileJob(1, "NodeWrittenEvent"))
	awaitTrue(t, 5*time.Second, "the call", func() bool { return c.count() == 1 })
	awaitPending(t, q, 0, 10*time.Second)
	ci, err := q.consumer.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := c.count(); got != 1 || ci.NumRedelivered != 0 {
		t.Errorf("handler calls = %d, redelivered = %d; want 1 and 0 (InProgress kept it)", got, ci.NumRedelivered)
	}
}

func TestRunNewerJobWaitsForLease(t *testing.T) {
	t.Parallel()
	q, _, nc := mustOpen(t, Options{Workers: 2, Retry: hs.RetryPolicy{MaxTries: 3,
		Backoff: []time.Duration{100 * time.Millisecond}}})
	leases := mustKV(t, nc)
	var running atomic.Int32
	var overlap atomic.Bool
	release := make(chan struct{})
	var c calls
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		// The handler takes the file's lease, as the indexing pipeline does
		// (after resolving a path-only job to its file).
		key, err := JobKey(job)
		if err != nil {
			return err
		}
		unlock, err := leases.Lease(ctx, key, 5*time.Second)
		if err != nil {
			return err
		}
		defer unlock()
		if running.Add(1) > 1 {
			overlap.Store(true)
		}
		defer running.Add(-1)
		if c.add(job) == 1 {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return nil
	})
	mustPublish(t, q, fileJob(9, "first"))
	awaitTrue(t, 5*time.Second, "the first job to start", func() bool { return c.count() == 1 })
	mustPublish(t, q, fileJob(9, "second"))
	// The second job is delivered while the first runs and meets the
	// lease, more often than MaxDeliver, so it is also queued afresh.
	awaitTrue(t, 10*time.Second, "repeated deliveries of the second job", func() bool {
		ci, err := q.consumer.Info(context.Background())
		return err == nil && ci.Delivered.Consumer >= 6
	})
	if got := c.count(); got != 1 {
		t.Fatalf("handler calls while the first job holds the lease = %d, want 1", got)
	}
	if _, err := leases.Lease(t.Context(), "f.9", time.Second); !errors.Is(err, kv.ErrLeaseHeld) {
		t.Errorf("Lease f.9 while the first job runs: %v, want ErrLeaseHeld", err)
	}
	close(release)
	awaitTrue(t, 10*time.Second, "the second job", func() bool { return c.count() == 2 })
	awaitPending(t, q, 0, 5*time.Second)
	jobs, _ := c.snapshot()
	if jobs[0].Event != "first" || jobs[1].Event != "second" || overlap.Load() {
		t.Errorf("jobs ran as %q, %q (overlap %v); want first then second, never together",
			jobs[0].Event, jobs[1].Event, overlap.Load())
	}
	if dl, _ := q.DeadLetters(t.Context()); len(dl) != 0 {
		t.Errorf("dead letters = %+v; waiting for a lease must not bury a job", dl)
	}
}

func TestRunHonoursNotBefore(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	var c calls
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error { c.add(job); return nil })
	job := fileJob(1, "BeforeNodeDeletedEvent")
	job.NotBefore = time.Now().Add(700 * time.Millisecond)
	mustPublish(t, q, job)
	awaitTrue(t, 5*time.Second, "the delayed job", func() bool { return c.count() == 1 })
	if _, at := c.snapshot(); at[0].Before(job.NotBefore) {
		t.Errorf("job ran %s before its NotBefore", job.NotBefore.Sub(at[0]))
	}
}

func TestRunTermsUndecodable(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	var c calls
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error { c.add(job); return nil })
	for _, data := range []string{"not json", `{"v":99,"file_id":1}`, `{"v":1,"user":"alice"}`} {
		if _, err := q.js.Publish(t.Context(), "hs.jobs.f.1", []byte(data)); err != nil {
			t.Fatal(err)
		}
		awaitPending(t, q, 0, 5*time.Second)
	}
	if got := c.count(); got != 0 {
		t.Errorf("handler calls for messages that are not jobs = %d, want 0", got)
	}
	// Term removes a message from a work-queue stream asynchronously.
	awaitTrue(t, 5*time.Second, "the stream to empty", func() bool {
		info, err := q.stream.Info(t.Context())
		return err == nil && info.State.Msgs == 0
	})
}

func TestRunFailingFilesDoNotBlockOthers(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{Workers: 1, Retry: hs.RetryPolicy{Backoff: []time.Duration{time.Minute}}})
	done := make(chan hs.FileID, 1)
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		if job.FileID <= 10 {
			return hs.Errorf(hs.EUNAVAILABLE, "down")
		}
		done <- job.FileID
		return nil
	})
	for i := range 10 { // more than 4 × Workers in backoff at once
		mustPublish(t, q, fileJob(hs.FileID(i+1), "NodeWrittenEvent"))
	}
	mustPublish(t, q, fileJob(11, "NodeWrittenEvent"))
	select {
	case id := <-done:
		if id != 11 {
			t.Errorf("done = %d, want 11", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a healthy file waited behind files in backoff")
	}
}

func TestRunDrainsOnShutdown(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	started := make(chan struct{})
	handlerErr := make(chan error, 1)
	stop := startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		close(started)
		time.Sleep(500 * time.Millisecond) // work in flight at shutdown
		handlerErr <- ctx.Err()
		return nil
	})
	mustPublish(t, q, fileJob(1, "NodeWrittenEvent"))
	<-started
	begin := time.Now()
	if err := stop(); err != nil {
		t.Fatalf("Run after a clean drain: %v", err)
	}
	if d := time.Since(begin); d < 300*time.Millisecond {
		t.Errorf("Run returned after %s, before its handler finished", d)
	}
	if err := <-handlerErr; err != nil {
		t.Errorf("handler context ended during the drain: %v", err)
	}
	if n, _ := q.Pending(t.Context()); n != 0 {
		t.Errorf("Pending after drain = %d, want 0 (the job was acked)", n)
	}
}

func TestRunDrainTimeout(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{DrainTimeout: 200 * time.Millisecond})
	started := make(chan struct{})
	stop := startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		close(started)
		<-ctx.Done() // ignores shutdown until cancelled
		return ctx.Err()
	})
	mustPublish(t, q, fileJob(1, "NodeWrittenEvent"))
	<-started
	if err := stop(); err == nil {
		t.Fatal("Run returned nil though a handler outlived the drain timeout")
	}
	if n, _ := q.Pending(t.Context()); n != 1 {
		t.Errorf("Pending after an interrupted job = %d, want 1 (handed back)", n)
	}
}

func TestAbandonedJobBecomesDeadLetter(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{Retry: hs.RetryPolicy{MaxTries: 2}, AckWait: time.Second})
	stop, err := q.watchMaxDeliveries()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	mustPublish(t, q, fileJob(5, "NodeWrittenEvent"))
	for range 2 { // a worker that dies on every attempt: no decision at all
		awaitTrue(t, 5*time.Second, "a delivery", func() bool {
			b, err := q.consumer.Fetch(1, jetstream.FetchMaxWait(time.Second))
			if err != nil {
				return false
			}
			n := 0
			for range b.Messages() {
				n++
			}
			return n == 1
		})
	}
	var dead []DeadLetter
	awaitTrue(t, 10*time.Second, "a dead letter", func() bool {
		// The server gives up when it next looks for work for a fetch.
		if b, err := q.consumer.Fetch(1, jetstream.FetchMaxWait(200*time.Millisecond)); err == nil {
			for m := range b.Messages() {
				t.Errorf("job delivered after MaxDeliver: %s", m.Subject())
			}
		}
		dead, _ = q.DeadLetters(context.Background())
		return len(dead) == 1
	})
	if dead[0].Key != "f.5" || dead[0].Attempts != 2 {
		t.Errorf("dead letter = %+v, want key f.5 after 2 deliveries", dead[0])
	}
	awaitTrue(t, 5*time.Second, "the message to be removed", func() bool {
		info, err := q.stream.Info(context.Background())
		return err == nil && info.State.Msgs == 0
	})
}

func TestRunHandlerTimeout(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{HandlerTimeout: 200 * time.Millisecond})
	var c calls
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		if c.add(job) == 1 {
			<-ctx.Done() // stuck until the deadline
			return ctx.Err()
		}
		return nil
	})
	mustPublish(t, q, fileJob(1, "NodeWrittenEvent"))
	awaitTrue(t, 5*time.Second, "the retry after a timeout", func() bool { return c.count() == 2 })
	awaitPending(t, q, 0, 5*time.Second)
}

func TestRunNilHandler(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	if err := q.Run(t.Context(), nil); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("Run(nil): %v, want EINVALID", err)
	}
}

// TestRunRetriesDoNotBlockFreshWork: many jobs waiting out a long backoff
// (more than MaxAckPending of them) never hold back a fresh job; they wait
// on the retry lane.
func TestRunRetriesDoNotBlockFreshWork(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{Workers: 1, MaxAckPending: 20, Retry: hs.RetryPolicy{Backoff: []time.Duration{time.Hour}}})
	var failed atomic.Int64
	done := make(chan hs.FileID, 1)
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		if job.FileID <= 100 {
			failed.Add(1)
			return hs.Errorf(hs.EUNAVAILABLE, "nextcloud: 503 for this user")
		}
		done <- job.FileID
		return nil
	})
	jobs := make([]hs.IndexJob, 100)
	for i := range jobs {
		jobs[i] = fileJob(hs.FileID(i+1), "NodeWrittenEvent")
	}
	mustPublish(t, q, jobs...)
	awaitTrue(t, 20*time.Second, "every failing job tried once", func() bool { return failed.Load() == 100 })
	mustPublish(t, q, fileJob(101, "NodeWrittenEvent"))
	select {
	case id := <-done:
		if id != 101 {
			t.Errorf("done = %d, want 101", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a fresh job waited behind 100 jobs in backoff")
	}
	// The fresh job is acked just after the handler returned.
	awaitTrue(t, 5*time.Second, "the 100 waiting retries pending, nothing else", func() bool {
		n, err := q.Pending(t.Context())
		return err == nil && n == 100
	})
	if got := failed.Load(); got != 100 {
		t.Errorf("failing jobs ran %d times, want 100 (their retries are an hour away)", got)
	}
}

// TestRetryLaneIsFairAcrossUsers: 300 of carol's jobs fail slowly (a
// storage that answers 503 after 20 ms) and keep coming back; alice's one
// job fails once and then passes. Her retry runs when it is due, not
// behind carol's: one user's retries take at most one retry worker.
func TestRetryLaneIsFairAcrossUsers(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{Workers: 2, Retry: hs.RetryPolicy{Backoff: []time.Duration{500 * time.Millisecond}}, Logger: discardLogger()})
	var carolRuns, aliceTries, carolNow, carolMost atomic.Int64
	aliceDone := make(chan time.Time, 1)
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		if job.User == "carol" {
			carolRuns.Add(1)
			n := carolNow.Add(1)
			defer carolNow.Add(-1)
			for m := carolMost.Load(); n > m && !carolMost.CompareAndSwap(m, n); m = carolMost.Load() {
			}
			time.Sleep(20 * time.Millisecond)
			return hs.Errorf(hs.EUNAVAILABLE, "nextcloud: 503 for carol")
		}
		if aliceTries.Add(1) == 1 {
			return hs.Errorf(hs.EUNAVAILABLE, "nextcloud: 503 once")
		}
		aliceDone <- time.Now()
		return nil
	})
	jobs := make([]hs.IndexJob, 300)
	for i := range jobs {
		jobs[i] = fileJob(hs.FileID(i+1), "NodeWrittenEvent")
		jobs[i].User = "carol"
	}
	mustPublish(t, q, jobs...)
	// By 600 runs every fresh job has run (two fresh workers, 100 a
	// second); from here on only carol's retries run.
	awaitTrue(t, 60*time.Second, "carol's jobs failing and being retried", func() bool { return carolRuns.Load() >= 600 })
	carolMost.Store(0)
	start := time.Now()
	mustPublish(t, q, fileJob(1000, "NodeWrittenEvent"))
	select {
	case at := <-aliceDone:
		took := at.Sub(start)
		t.Logf("alice's job indexed %s after it was queued (one failure, retry due after 500 ms) while carol's 300 retried", took.Round(time.Millisecond))
		if took > 3*time.Second {
			t.Errorf("alice's retry came %s after her job, want within 3 s: it waited behind carol's", took.Round(time.Millisecond))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("alice's retry did not run within 30 s: it waited behind carol's")
	}
	if m := carolMost.Load(); m != 1 {
		t.Errorf("at most %d of carol's retries ran at once, want 1", m)
	}
}

// TestRunStopsWhenConnectionClosed: a connection closed for good never
// fetches again, so Run returns an error (its owner stops the process)
// instead of polling it forever while nothing is indexed.
func TestRunStopsWhenConnectionClosed(t *testing.T) {
	t.Parallel()
	q, _, nc := mustOpen(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		errc <- q.Run(ctx, func(context.Context, hs.IndexJob) error { return nil })
	}()
	time.Sleep(100 * time.Millisecond) // the workers fetch
	nc.Close()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "closed") {
			t.Fatalf("Run after the connection closed = %v, want an error saying it is closed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run still runs 10 s after its connection closed")
	}
}
