package queue

import (
	"context"
	"fmt"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// publishWindow is how many publishes Publish keeps in flight at once; it
// stays below the client's async limit (4000) so a scan that queues tens
// of thousands of files never stalls.
const publishWindow = 1000

// Publish queues jobs and returns once the server has stored every one
// (async publish, then wait for each ack). A newer job for a file replaces
// one still waiting; a duplicate (same MsgID within two minutes) is dropped.
// A job without a file id or path is EINVALID, and nothing is published.
// When the server does not ack within ctx's deadline or PublishTimeout,
// Publish returns EUNAVAILABLE; jobs acked before that stay queued.
func (q *Queue) Publish(ctx context.Context, jobs ...hs.IndexJob) error {
	msgs := make([]*nats.Msg, 0, len(jobs))
	for _, job := range jobs {
		key, err := JobKey(job)
		if err != nil {
			return err
		}
		data, err := encodeJob(job)
		if err != nil {
			return fmt.Errorf("queue: publish %s: %w", key, err)
		}
		m := nats.NewMsg(subject(job, key))
		m.Data = data
		m.Header.Set(jetstream.MsgIDHeader, MsgID(job))
		msgs = append(msgs, m)
	}
	ctx, cancel := context.WithTimeout(ctx, q.opts.PublishTimeout)
	defer cancel()
	for start := 0; start < len(msgs); start += publishWindow {
		if err := q.publishBatch(ctx, msgs[start:min(start+publishWindow, len(msgs))]); err != nil {
			return err
		}
	}
	return nil
}

func (q *Queue) publishBatch(ctx context.Context, msgs []*nats.Msg) error {
	futures := make([]jetstream.PubAckFuture, 0, len(msgs))
	for _, m := range msgs {
		f, err := q.js.PublishMsgAsync(m, jetstream.WithExpectStream(q.opts.Stream))
		if err != nil {
			return unavailable(fmt.Errorf("queue: publish %s: %w", m.Subject, err))
		}
		futures = append(futures, f)
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return unavailable(fmt.Errorf("queue: publish %s: %w", f.Msg().Subject, err))
		case <-ctx.Done():
			return hs.WrapError(hs.EUNAVAILABLE,
				fmt.Errorf("queue: publish %s: no ack: %w", f.Msg().Subject, ctx.Err()), "queue unavailable")
		}
	}
	return nil
}

// republish queues job again under a fresh message id, so the duplicate
// window does not drop it.
func (q *Queue) republish(ctx context.Context, job hs.IndexJob) error {
	job.Time = time.Now().UTC()
	return q.Publish(ctx, job)
}
