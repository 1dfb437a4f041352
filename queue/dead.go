package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/kv"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DeadLetter is a job that failed with a retryable error on every one of
// its Options.Retry.Tries() attempts and is no longer queued.
type DeadLetter struct {
	Key      string      `json:"key"` // JobKey of Job
	Job      hs.IndexJob `json:"job"`
	Error    string      `json:"error"`    // the last error, as logged
	Kind     string      `json:"kind"`     // its error kind
	Attempts int         `json:"attempts"` // deliveries made
	Failed   time.Time   `json:"failed"`
}

// bury records a dead letter for job and then hands the failure to
// Options.GaveUp, which decides what it means for the file's state.
// Errors are logged here: the job is terminated either way.
func (q *Queue) bury(ctx context.Context, key string, job hs.IndexJob, herr error, attempts int, log *slog.Logger) {
	d := DeadLetter{Key: key, Job: job, Error: herr.Error(), Kind: hs.ErrorKind(herr), Attempts: attempts, Failed: time.Now().UTC()}
	data, err := json.Marshal(d)
	if err == nil {
		_, err = q.dead.Put(ctx, key, data)
	}
	if err != nil {
		log.Error("job failed for good; dead letter not written", "kind", d.Kind, "error_text", d.Error, slog.Any("error", err))
		return
	}
	log.Error("job failed for good; moved to dead letters", "kind", d.Kind, slog.Any("error", herr))
	if q.opts.GaveUp != nil {
		q.opts.GaveUp(ctx, job, herr, attempts)
	}
}

// DeadLetters returns every dead letter, oldest failure first.
func (q *Queue) DeadLetters(ctx context.Context) ([]DeadLetter, error) {
	var out []DeadLetter
	err := kv.Each(ctx, q.dead, func(e jetstream.KeyValueEntry) error {
		var d DeadLetter
		if err := json.Unmarshal(e.Value(), &d); err != nil {
			q.log.Warn("dead letter unreadable; skipped", "key", e.Key(), slog.Any("error", err))
			return nil
		}
		out = append(out, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("queue: dead letters: %w", err)
	}
	slices.SortFunc(out, func(a, b DeadLetter) int { return a.Failed.Compare(b.Failed) })
	return out, nil
}

// RetryDeadLetter queues the dead letter of file id again, with reason
// ReasonRetry, and removes the record. ENOTFOUND when there is none.
func (q *Queue) RetryDeadLetter(ctx context.Context, id hs.FileID) error {
	return q.RetryDeadLetterKey(ctx, fileKey(id))
}

// RetryDeadLetterKey is RetryDeadLetter for any DeadLetter.Key, including
// jobs that had only a path.
func (q *Queue) RetryDeadLetterKey(ctx context.Context, key string) error {
	e, err := q.dead.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrInvalidKey) {
		return hs.Errorf(hs.ENOTFOUND, "queue: no dead letter %s", key)
	}
	if err != nil {
		return unavailable(fmt.Errorf("queue: retry dead letter %s: %w", key, err))
	}
	var d DeadLetter
	if err := json.Unmarshal(e.Value(), &d); err != nil {
		return hs.Errorf(hs.EINTERNAL, "queue: retry dead letter %s: %w", key, err)
	}
	job := d.Job
	job.Reason = hs.ReasonRetry
	job.Time = time.Now().UTC()
	if err := q.Publish(ctx, job); err != nil {
		return err
	}
	if err := q.dead.Delete(ctx, key, jetstream.LastRevision(e.Revision())); err != nil && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return unavailable(fmt.Errorf("queue: retry dead letter %s: %w", key, err))
	}
	return nil
}

// maxDeliveriesAdvisory is the part of the server's max-deliveries
// advisory the queue reads.
type maxDeliveriesAdvisory struct {
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// watchMaxDeliveries buries jobs the server gave up on without a decision
// from a worker: the last attempt's worker died or lost the connection.
// On a work-queue stream such a message would otherwise stay forever. One
// subscriber in the queue group "hs-dead" handles each advisory, for the
// fresh lane and the retry lane.
func (q *Queue) watchMaxDeliveries() (stop func(), err error) {
	var subs []*nats.Subscription
	stop = func() {
		for _, sub := range subs {
			_ = sub.Unsubscribe()
		}
	}
	for _, l := range []struct {
		stream   jetstream.Stream
		name     string
		consumer string
	}{{q.stream, q.opts.Stream, ConsumerName}, {q.retry, q.opts.Stream + retryStreamSuffix, RetryConsumer}, {q.ocr, q.opts.Stream + ocrStreamSuffix, OCRConsumer}} {
		subject := fmt.Sprintf("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.%s.%s", l.name, l.consumer)
		sub, err := q.nc.QueueSubscribe(subject, "hs-dead", func(m *nats.Msg) {
			var a maxDeliveriesAdvisory
			if err := json.Unmarshal(m.Data, &a); err != nil || a.StreamSeq == 0 {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), decideTimeout)
			defer cancel()
			q.buryAbandoned(ctx, l.stream, a)
		})
		if err != nil {
			stop()
			return nil, unavailable(fmt.Errorf("queue: run: subscribe %s: %w", subject, err))
		}
		subs = append(subs, sub)
	}
	return stop, nil
}

func (q *Queue) buryAbandoned(ctx context.Context, stream jetstream.Stream, a maxDeliveriesAdvisory) {
	raw, err := stream.GetMsg(ctx, a.StreamSeq)
	if err != nil {
		q.log.Debug("abandoned job already gone", "stream_seq", a.StreamSeq, slog.Any("error", err))
		return // already decided, replaced by a newer job, or removed
	}
	log := q.log.With("subject", raw.Subject, "stream_seq", a.StreamSeq)
	if env, err := decodeEnvelope(raw.Data); err == nil {
		if key, err := JobKey(env.IndexJob); err == nil {
			attempts := max(int(a.Deliveries), env.Attempt)
			herr := hs.Errorf(hs.EINTERNAL, "no decision after %d deliveries (worker lost or ack timeout)", a.Deliveries)
			q.bury(ctx, key, env.IndexJob, herr, attempts, log.With("key", key, "file_id", env.FileID))
		}
	}
	if err := stream.DeleteMsg(ctx, a.StreamSeq); err != nil {
		log.Warn("abandoned job not removed", slog.Any("error", err))
	}
}
