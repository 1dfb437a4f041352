package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/kv"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// retryWait is the pause after a failed fetch (NATS down).
	retryWait = time.Second
	// decideTimeout bounds one ack, nak or term round trip.
	decideTimeout = 5 * time.Second
	// drainGrace is how long Run still waits after cancelling handlers
	// that outlived DrainTimeout.
	drainGrace = 2 * time.Second
)

// Handler processes one job. Its error's kind decides what happens to the
// job; see Run.
type Handler func(ctx context.Context, job hs.IndexJob) error

// lane is one of the queue's three consumers: fresh jobs, retries, or
// jobs that need OCR.
type lane struct {
	name     string
	consumer jetstream.Consumer
	retry    bool
	ocr      bool
}

// counted reports whether the lane's messages carry their attempt and
// due time (an envelope), rather than counting deliveries.
func (l *lane) counted() bool { return l.retry || l.ocr }

// Run processes jobs with Options.Workers concurrent handlers on the fresh
// lane, Options.RetryWorkers on the retry lane and Options.OCRWorkers on
// the OCR lane, all sharing the durable
// consumers, so any number of processes can call Run on the same stream.
// It blocks until ctx is done, then stops fetching, waits up to
// DrainTimeout for running handlers (their contexts are not cancelled by
// ctx, only by HandlerTimeout or the end of the drain) and returns. It
// returns nil after a clean drain, and an error when handlers were still
// running at the end of the drain, Run could not start, or the NATS
// connection closed for good (then running handlers are cancelled).
//
// The handler's error decides the job's fate (this is the only place the
// mapping lives):
//   - nil: acked (and the ack confirmed by the server).
//   - EINVALID, ENOTFOUND, ETOOLARGE: terminated, never retried; the
//     handler records the reason in the file's state itself.
//   - anything else (EUNAVAILABLE, ECONFLICT, EUNAUTHORIZED, EINTERNAL, an
//     error of no kind, a panic, a handler timeout): attempt n is retried
//     after Retry.Delay(n) on the retry lane (a separate stream and
//     consumer, so jobs waiting out a backoff never hold back fresh ones,
//     where one user's retries take at most RetryPerUser workers and
//     wait their turns behind the others'), until attempt Retry.Tries(),
//     which writes a DeadLetter, terminates the job and calls
//     Options.GaveUp (where indexing marks the file failed).
//   - hs.ErrNeedsOCR (fresh or retry lane): the job moves to the
//     OCR lane (Options.OCRWorkers), where the handler gets it with
//     IndexJob.OCR set and its retries stay; attempts start afresh.
//   - kv.ErrLeaseHeld is not a failure: the job is tried again after
//     LeaseRetry on its own lane; on the fresh lane's last delivery it is
//     queued afresh unless a newer job for the file is already waiting.
//
// A message that is not a job is terminated and logged. A job whose
// NotBefore (or, on the retry lane, whose due time) is in the future goes
// back to the server until then without reaching the handler. While a
// handler runs, the job's ack timer is reset every AckWait/3. Run takes
// no lease: the handler takes its file's (kv.Store.Lease), once it knows the file.
func (q *Queue) Run(ctx context.Context, handle Handler) error {
	if handle == nil {
		return hs.Errorf(hs.EINVALID, "queue: run: nil handler")
	}
	stop, err := q.watchMaxDeliveries()
	if err != nil {
		return err
	}
	defer stop()
	hctx, cancelHandlers := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelHandlers()

	// A connection closed for good (closed by its owner, or out of
	// reconnect attempts) never fetches again: Run stops with an error
	// instead of polling it forever.
	wctx, stopWorkers := context.WithCancelCause(ctx)
	defer stopWorkers(nil)
	fresh := &lane{name: "fresh", consumer: q.consumer}
	retry := &lane{name: "retry", consumer: q.retrier, retry: true}
	ocr := &lane{name: "ocr", consumer: q.ocrer, ocr: true}
	var wg sync.WaitGroup
	for range q.opts.Workers {
		wg.Go(func() { q.work(wctx, hctx, fresh, handle, stopWorkers) })
	}
	for range q.opts.RetryWorkers {
		wg.Go(func() { q.work(wctx, hctx, retry, handle, stopWorkers) })
	}
	for range q.opts.OCRWorkers {
		wg.Go(func() { q.work(wctx, hctx, ocr, handle, stopWorkers) })
	}
	q.log.Info("queue workers started", "workers", q.opts.Workers, "retry_workers", q.opts.RetryWorkers, "ocr_workers", q.opts.OCRWorkers, "stream", q.opts.Stream)
	<-wctx.Done()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	if cause := context.Cause(wctx); ctx.Err() == nil && cause != nil {
		cancelHandlers() // their jobs cannot be acked any more
		select {
		case <-done:
		case <-time.After(drainGrace):
		}
		return fmt.Errorf("queue: run: %w", cause)
	}
	drain := time.NewTimer(q.opts.DrainTimeout)
	defer drain.Stop()
	select {
	case <-done:
		q.log.Info("queue workers drained")
		return nil
	case <-drain.C:
	}
	cancelHandlers()
	select {
	case <-done:
	case <-time.After(drainGrace):
	}
	return fmt.Errorf("queue: run: handlers still running after drain timeout %s", q.opts.DrainTimeout)
}

// work is one worker of a lane: fetch one job, process it, repeat until
// ctx is done. A closed connection ends every worker through fail.
func (q *Queue) work(ctx, hctx context.Context, l *lane, handle Handler, fail context.CancelCauseFunc) {
	for ctx.Err() == nil {
		// A fetch is never cut short (a job the server hands to an abandoned
		// fetch would sit until AckWait), so pollWait also bounds how long
		// Run takes to stop fetching.
		batch, err := l.consumer.Fetch(1, jetstream.FetchMaxWait(q.opts.pollWait))
		if err != nil && q.nc.IsClosed() {
			fail(fmt.Errorf("the NATS connection is closed: %w", err))
			return
		}
		if err != nil {
			q.log.Warn("queue fetch failed", "lane", l.name, slog.Any("error", err))
			sleepCtx(ctx, retryWait)
			continue
		}
		for msg := range batch.Messages() {
			if ctx.Err() != nil {
				// Arrived while stopping: hand it straight back.
				_ = msg.Nak()
				continue
			}
			q.process(hctx, l, msg, handle)
		}
		if err := batch.Error(); err != nil && ctx.Err() == nil && !errors.Is(err, jetstream.ErrNoMessages) {
			q.log.Debug("queue fetch ended", "lane", l.name, slog.Any("error", err))
			sleepCtx(ctx, retryWait)
		}
	}
}

// process runs the handler for one message and decides its fate.
func (q *Queue) process(hctx context.Context, l *lane, msg jetstream.Msg, handle Handler) {
	md, err := msg.Metadata()
	if err != nil {
		q.log.Error("queue message without metadata", "subject", msg.Subject(), slog.Any("error", err))
		_ = msg.Term()
		return
	}
	env, err := decodeEnvelope(msg.Data())
	if err != nil {
		q.log.Error("queue message is not a job; dropped", "subject", msg.Subject(), "stream_seq", md.Sequence.Stream, slog.Any("error", err))
		_ = msg.TermWithReason("undecodable")
		return
	}
	job := env.IndexJob
	key, err := JobKey(job)
	if err != nil {
		q.log.Error("queue job names no file; dropped", "subject", msg.Subject(), slog.Any("error", err))
		_ = msg.TermWithReason("invalid job")
		return
	}
	attempt := int(md.NumDelivered)
	due := job.NotBefore
	if l.counted() {
		attempt = max(env.Attempt, 1)
		if l.retry {
			attempt = max(attempt, 2)
		}
		if env.Due.After(due) {
			due = env.Due
		}
	}
	if l.ocr {
		job.OCR = true
	}
	if wait := time.Until(due); wait > 0 && (l.counted() || attempt < q.opts.Retry.Tries()) {
		// Not due yet (an event that precedes its change, or a retry
		// waiting out its backoff): come back then.
		_ = msg.NakWithDelay(wait)
		return
	}
	if l.retry {
		release, turn := q.turns.take(job.User)
		if release == nil {
			// The user has a retry running: others go first.
			q.awaitTurn(hctx, msg, md, key, job, attempt, turn)
			return
		}
		defer release()
	}
	start := time.Now()
	err = q.call(hctx, l, msg, key, job, handle)
	log := q.log.With("key", key, "file_id", job.FileID, "user_id", job.User, "lane", l.name, "attempt", attempt,
		"duration_ms", time.Since(start).Milliseconds())
	q.decide(hctx, l, msg, md, attempt, key, job, err, log)
}

// call runs handle with a deadline and the in-progress ticker,
// turning a panic into an EINTERNAL error.
func (q *Queue) call(hctx context.Context, l *lane, msg jetstream.Msg, key string, job hs.IndexJob, handle Handler) (err error) {
	timeout := q.opts.HandlerTimeout
	if l.ocr {
		timeout = q.opts.OCRHandlerTimeout
	}
	ctx, cancel := context.WithTimeout(hctx, timeout)
	defer cancel()
	stop := q.keepAlive(ctx, msg)
	defer stop()
	defer func() {
		if r := recover(); r != nil {
			q.log.Error("queue handler panicked", "key", key, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = hs.Errorf(hs.EINTERNAL, "queue: handler panic: %v", r)
		}
	}()
	return handle(ctx, job)
}

// keepAlive tells the server every AckWait/3 that msg is still being
// worked on, until stop is called or ctx (the handler's) is done: a
// handler stuck past its deadline no longer holds the job, which the
// server then redelivers after AckWait.
func (q *Queue) keepAlive(ctx context.Context, msg jetstream.Msg) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(q.opts.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if err := msg.InProgress(); err != nil {
					q.log.Warn("queue in-progress signal failed", "subject", msg.Subject(), slog.Any("error", err))
				}
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// decide acks, naks, retries or terminates msg according to the
// handler's error on attempt number attempt.
func (q *Queue) decide(hctx context.Context, l *lane, msg jetstream.Msg, md *jetstream.MsgMetadata, attempt int, key string, job hs.IndexJob, herr error, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(hctx), decideTimeout)
	defer cancel()
	kind := hs.ErrorKind(herr)
	lastDelivery := !l.counted() && int(md.NumDelivered) >= q.opts.Retry.Tries()
	var err error
	outcome := "retry"
	defer func() {
		if q.opts.Outcome != nil {
			q.opts.Outcome(outcome)
		}
	}()
	switch {
	case herr == nil:
		err = msg.DoubleAck(ctx)
		outcome = "done"
		log.Debug("job done")
	case errors.Is(herr, hs.ErrNeedsOCR) && !l.ocr:
		// Recognition runs on its own lane, beside fresh work.
		if rerr := q.publishLane(ctx, ocrSubject(job, key), q.ocr, key, job, 1, time.Now(), MsgID(job)+".ocr"); rerr != nil {
			log.Warn("OCR lane unavailable; the job waits on its own lane", slog.Any("error", rerr))
			err = msg.NakWithDelay(q.opts.Retry.Delay(attempt))
		} else {
			err, outcome = msg.DoubleAck(ctx), "ocr"
			log.Info("job moved to the OCR lane")
		}
	case errors.Is(herr, hs.ErrNeedsOCR):
		err, outcome = msg.TermWithReason("needs OCR on the OCR lane"), "dropped"
		log.Error("job on the OCR lane asked for OCR again; dropped", slog.Any("error", herr))
	case kind == hs.EINVALID || kind == hs.ENOTFOUND || kind == hs.ETOOLARGE:
		err = msg.TermWithReason(kind)
		outcome = "dropped"
		log.Info("job dropped", "kind", kind, slog.Any("error", herr))
	case hctx.Err() != nil:
		// Shutdown cut the handler short: let another worker have it now.
		err, outcome = msg.Nak(), "interrupted"
		log.Warn("job interrupted by shutdown", slog.Any("error", herr))
	case errors.Is(herr, kv.ErrLeaseHeld) && !lastDelivery:
		// Another worker has the file now (or a crashed one had it, until
		// its lease expires): look again soon, without growing delays.
		err, outcome = msg.NakWithDelay(q.opts.LeaseRetry), "busy"
		log.Debug("file busy elsewhere; will retry", "retry_in_ms", q.opts.LeaseRetry.Milliseconds())
	case errors.Is(herr, kv.ErrLeaseHeld):
		q.requeue(ctx, md, key, job, log)
		err, outcome = msg.Term(), "busy"
	case attempt < q.opts.Retry.Tries() && !lastDelivery:
		delay := q.opts.Retry.Delay(attempt)
		schedule := q.scheduleRetry
		if l.ocr {
			schedule = q.scheduleOCRRetry // recognition is retried on its lane
		}
		if rerr := schedule(ctx, key, job, attempt+1, time.Now().Add(delay)); rerr != nil {
			// The retry lane is unreachable: keep the job here instead.
			log.Warn("retry lane unavailable; the job waits on its own lane", slog.Any("error", rerr))
			err = msg.NakWithDelay(delay)
		} else {
			err = msg.DoubleAck(ctx)
		}
		log.Warn("job failed; will retry", "kind", kind, "retry_in_ms", delay.Milliseconds(), slog.Any("error", herr))
	default:
		q.bury(ctx, key, job, herr, attempt, log)
		err, outcome = msg.TermWithReason("dead letter"), "dead"
	}
	if err != nil {
		// A replaced (newer job waiting) or expired message cannot be
		// acked; the server redelivers whatever is still owed.
		log.Debug("queue decision not confirmed", slog.Any("error", err))
	}
}

// awaitTurn puts a retry back on the retry lane until its turn. A message
// put back many times goes on as a new one, so waiting for turns never
// uses up the deliveries kept for lost workers (retryLaneMaxDeliver).
func (q *Queue) awaitTurn(hctx context.Context, msg jetstream.Msg, md *jetstream.MsgMetadata, key string, job hs.IndexJob, attempt int, turn time.Time) {
	wait := time.Until(turn)
	if int(md.NumDelivered) < retryLaneMaxDeliver/2 {
		_ = msg.NakWithDelay(wait)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(hctx), decideTimeout)
	defer cancel()
	if last, err := q.retry.GetLastMsgForSubject(ctx, msg.Subject()); err == nil && last.Sequence != md.Sequence.Stream {
		_ = msg.Term() // a newer retry of the file replaces this one
		return
	}
	id := MsgID(job) + ".r" + strconv.Itoa(attempt) + ".t" + strconv.FormatUint(md.Sequence.Stream, 10)
	if err := q.publishRetry(ctx, key, job, attempt, turn, id); err != nil {
		_ = msg.NakWithDelay(wait)
		return
	}
	_ = msg.DoubleAck(ctx)
}

// scheduleRetry puts attempt number attempt of job on the retry lane, to
// run at due. A newer retry of the same file and user replaces an older
// one still waiting.
func (q *Queue) scheduleRetry(ctx context.Context, key string, job hs.IndexJob, attempt int, due time.Time) error {
	return q.publishRetry(ctx, key, job, attempt, due, MsgID(job)+".r"+strconv.Itoa(attempt))
}

// scheduleOCRRetry puts attempt number attempt of an OCR job back on the
// OCR lane, to run at due.
func (q *Queue) scheduleOCRRetry(ctx context.Context, key string, job hs.IndexJob, attempt int, due time.Time) error {
	return q.publishLane(ctx, ocrSubject(job, key), q.ocr, key, job, attempt, due, MsgID(job)+".ocr"+strconv.Itoa(attempt))
}

// publishRetry publishes a retry-lane message with the message id id.
func (q *Queue) publishRetry(ctx context.Context, key string, job hs.IndexJob, attempt int, due time.Time, id string) error {
	return q.publishLane(ctx, retrySubject(job, key), q.retry, key, job, attempt, due, id)
}

// publishLane publishes an envelope of job (attempt, due) on subj of the
// lane stream s with the message id id.
func (q *Queue) publishLane(ctx context.Context, subj string, s jetstream.Stream, key string, job hs.IndexJob, attempt int, due time.Time, id string) error {
	data, err := json.Marshal(envelope{V: codecVersion, IndexJob: job, Attempt: attempt, Due: due.UTC()})
	if err != nil {
		return fmt.Errorf("queue: requeue %s: %w", key, err)
	}
	m := nats.NewMsg(subj)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, id)
	if _, err := q.js.PublishMsg(ctx, m, jetstream.WithExpectStream(s.CachedInfo().Config.Name)); err != nil {
		return unavailable(fmt.Errorf("queue: requeue %s on %s: %w", key, s.CachedInfo().Config.Name, err))
	}
	return nil
}

// requeue publishes job again when its message is still the newest for its
// subject, so a job that only waited for a lease is not lost.
func (q *Queue) requeue(ctx context.Context, md *jetstream.MsgMetadata, key string, job hs.IndexJob, log *slog.Logger) {
	last, err := q.stream.GetLastMsgForSubject(ctx, subject(job, key))
	if err == nil && last.Sequence != md.Sequence.Stream {
		log.Debug("job waited for its lease; a newer job replaces it")
		return
	}
	if err := q.republish(ctx, job); err != nil {
		log.Error("job waited for its lease and could not be queued again", slog.Any("error", err))
		return
	}
	log.Info("job waited for its lease; queued again")
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
