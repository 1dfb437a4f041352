package queue

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/kv"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names of the JetStream objects the queue creates.
const (
	DefaultStream = "HYBRIDSEARCH_JOBS" // the work-queue stream
	ConsumerName  = "indexer"           // the durable pull consumer of fresh jobs
	RetryConsumer = "retrier"           // the durable pull consumer of the retry lane
	OCRConsumer   = "recognizer"        // the durable pull consumer of the OCR lane
	DeadBucket    = "HS_DEAD"           // dead letters

	subjectRoot = "hs.jobs"
	retryRoot   = "hs.retry"
	// retryStreamSuffix names the retry lane's stream after the work
	// queue's: HYBRIDSEARCH_JOBS_RETRY.
	retryStreamSuffix = "_RETRY"
	// ocrRoot and ocrStreamSuffix are the OCR lane's subjects and stream
	// (HYBRIDSEARCH_JOBS_OCR).
	ocrRoot         = "hs.ocr"
	ocrStreamSuffix = "_OCR"
)

// Options configure a Queue. Zero fields take the documented defaults.
type Options struct {
	// Stream is the work-queue stream's name; default DefaultStream.
	Stream string
	// Workers is how many handlers run at once in Run; default 2.
	Workers int
	// Retry is how many times a job is tried before it becomes a dead
	// letter (Retry.MaxTries, default 8) and the delay before retry n
	// after a retryable error (Retry.Delay); see hs.RetryPolicy.
	Retry hs.RetryPolicy
	// AckWait is how long the server waits for a decision before it
	// redelivers; default 2 min. While a handler runs, Run tells the server
	// the job is in progress every AckWait/3.
	AckWait time.Duration
	// MaxAckPending caps the fresh jobs delivered and not yet decided;
	// default 1000. Workers fetch one job at a time, so this is not the
	// flow control. Jobs waiting out a retry delay are not counted: a
	// job that fails with a retryable error moves to the retry lane, so
	// retries never hold back fresh work.
	MaxAckPending int
	// RetryWorkers is how many handlers run retries at once, beside
	// Workers; default 4.
	RetryWorkers int
	// RetryPerUser caps the retries of one user (IndexJob.User) running at
	// once in a process; default 1, and always below RetryWorkers when
	// that is more than 1, so one user's retries leave workers to everyone
	// else's. A user's retries past the cap wait their turns on the
	// server, paced by how long the user's retries take.
	RetryPerUser int
	// RetryMaxAckPending caps the retries delivered and not yet decided,
	// including those waiting until they are due; default 10000. Past it,
	// retries wait in the stream (nothing is lost) and fresh work is not
	// affected.
	RetryMaxAckPending int
	// OCRWorkers is how many handlers run jobs of the OCR lane at once,
	// beside Workers and RetryWorkers; default 1. A job whose handler
	// returns hybridsearch.ErrNeedsOCR moves to that lane (a separate
	// stream and consumer) with IndexJob.OCR set, so a long scan never
	// holds back fresh work; its retries stay on the lane.
	OCRWorkers int
	// OCRHandlerTimeout bounds one handler call on the OCR lane; default
	// 2 h (recognising a long scan takes a while; pages have their own
	// timeout).
	OCRHandlerTimeout time.Duration
	// HandlerTimeout bounds one handler call; default 10 min.
	HandlerTimeout time.Duration
	// DrainTimeout bounds how long Run waits for running handlers after its
	// context is done; default 30 s.
	DrainTimeout time.Duration
	// LeaseRetry is the delay before a job whose file lease is held
	// elsewhere is tried again (it does not grow like Retry's delays); default 2 s.
	LeaseRetry time.Duration
	// PublishTimeout bounds how long Publish waits for the server's acks
	// when ctx has no earlier deadline, and each read or write of the
	// dead letters; default 10 s.
	PublishTimeout time.Duration
	// Replicas of the streams and the dead-letter bucket; default 1 (3 on
	// a cluster).
	Replicas int
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// GaveUp, if non-nil, is called once the dead letter of a job is
	// written (its retries used up, or its last worker lost), with the
	// last error and the tries made. The queue writes no file state: this
	// is where indexing decides what the failure means for the file
	// (indexing.Failures).
	GaveUp func(ctx context.Context, job hs.IndexJob, cause error, attempts int)
	// Outcome, if non-nil, is told each job's outcome once it is decided:
	// done, dropped (cannot succeed), retry, busy (another worker holds
	// the file), dead (retries used up), interrupted (shutdown) or ocr
	// (moved to the OCR lane).
	Outcome func(outcome string)

	// pollWait is how long one idle fetch waits; default 1 s (tests use
	// less, so Run stops sooner).
	pollWait time.Duration
}

func (o Options) withDefaults() Options {
	if o.Stream == "" {
		o.Stream = DefaultStream
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.AckWait <= 0 {
		o.AckWait = 2 * time.Minute
	}
	if o.MaxAckPending <= 0 {
		o.MaxAckPending = 1000
	}
	if o.RetryWorkers <= 0 {
		o.RetryWorkers = 4
	}
	if o.RetryPerUser <= 0 {
		o.RetryPerUser = 1
	}
	if o.RetryWorkers > 1 {
		o.RetryPerUser = min(o.RetryPerUser, o.RetryWorkers-1)
	}
	if o.RetryMaxAckPending <= 0 {
		o.RetryMaxAckPending = 10000
	}
	if o.OCRWorkers <= 0 {
		o.OCRWorkers = 1
	}
	if o.OCRHandlerTimeout <= 0 {
		o.OCRHandlerTimeout = 2 * time.Hour
	}
	if o.HandlerTimeout <= 0 {
		o.HandlerTimeout = 10 * time.Minute
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 30 * time.Second
	}
	if o.PublishTimeout <= 0 {
		o.PublishTimeout = 10 * time.Second
	}
	if o.LeaseRetry <= 0 {
		o.LeaseRetry = 2 * time.Second
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.pollWait <= 0 {
		o.pollWait = time.Second
	}
	return o
}

// Queue is the index-job work queue on JetStream, with its retry lane (a
// second stream and consumer, where jobs wait out their backoff without
// holding back fresh jobs), its OCR lane and its dead letters (the
// bucket HS_DEAD). It is safe for concurrent use.
// The caller owns the *nats.Conn and closes it after Run has returned.
type Queue struct {
	opts     Options
	nc       *nats.Conn
	js       jetstream.JetStream
	stream   jetstream.Stream
	consumer jetstream.Consumer
	retry    jetstream.Stream   // the retry lane
	retrier  jetstream.Consumer // its consumer
	ocr      jetstream.Stream   // the OCR lane
	ocrer    jetstream.Consumer // its consumer
	dead     jetstream.KeyValue
	turns    *turns // each user's share of the retry lane
	log      *slog.Logger
}

// Open creates or updates the streams, the durable consumers and the
// dead-letter bucket,
// so calling it again (from another process, or with other Options) is safe.
// A NATS that does not answer gives an EUNAVAILABLE error.
func Open(ctx context.Context, nc *nats.Conn, o Options) (*Queue, error) {
	o = o.withDefaults()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("queue: open: %w", err)
	}
	q := &Queue{opts: o, nc: nc, js: js, turns: newTurns(o.RetryPerUser), log: o.Logger.With("component", "queue")}
	q.stream, err = js.CreateOrUpdateStream(ctx, jobStream(o, o.Stream, "hybridsearch index jobs, newest per file", subjectRoot))
	if err != nil {
		return nil, unavailable(fmt.Errorf("queue: open: stream %s: %w", o.Stream, err))
	}
	q.consumer, err = q.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       ConsumerName,
		Description:   "hybridsearch indexing workers",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       o.AckWait,
		MaxDeliver:    o.Retry.Tries(),
		MaxAckPending: o.MaxAckPending,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, unavailable(fmt.Errorf("queue: open: consumer %s: %w", ConsumerName, err))
	}
	if q.retry, q.retrier, err = q.openLane(ctx, retryLane); err != nil {
		return nil, err
	}
	if q.ocr, q.ocrer, err = q.openLane(ctx, ocrLane); err != nil {
		return nil, err
	}
	q.dead, err = kv.OpenBucket(ctx, js, jetstream.KeyValueConfig{Bucket: DeadBucket, Description: "hybridsearch dead letters", Replicas: o.Replicas}, o.PublishTimeout)
	if err != nil {
		return nil, fmt.Errorf("queue: %w", err)
	}
	return q, nil
}

// retryLaneMaxDeliver bounds the deliveries of one retry-lane message:
// one to wait until it is due, one to run, a few for a busy lease or a
// lost worker. Attempts are counted in the message, not here; each
// attempt is a new message.
const retryLaneMaxDeliver = 20

// jobStream is the configuration of a work-queue stream of jobs under
// root: the newest message per subject (file and user), deduplicated for
// two minutes, with o's replicas.
func jobStream(o Options, name, description, root string) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              name,
		Description:       description,
		Subjects:          []string{root + ".>"},
		Retention:         jetstream.WorkQueuePolicy,
		Storage:           jetstream.FileStorage,
		MaxMsgsPerSubject: 1,
		Discard:           jetstream.DiscardOld,
		Duplicates:        2 * time.Minute,
		Replicas:          o.Replicas,
	}
}

// sideLane is one of the side lanes: a work-queue stream holding the newest job
// per file and user, read by one durable consumer; attempts are counted in
// the message.
type sideLane struct {
	suffix, about, root   string // stream name suffix, its description, its subject root
	consumer, consumerFor string // durable consumer name, its description
}

var (
	// retryLane holds jobs waiting out their backoff (hs.retry.>).
	retryLane = sideLane{retryStreamSuffix, "hybridsearch index jobs waiting to be retried", retryRoot, RetryConsumer, "hybridsearch retries"}
	// ocrLane holds jobs whose files need text recognition (hs.ocr.>).
	ocrLane = sideLane{ocrStreamSuffix, "hybridsearch index jobs that need OCR", ocrRoot, OCRConsumer, "hybridsearch text recognition"}
)

// openLane creates or updates l's stream and durable consumer.
func (q *Queue) openLane(ctx context.Context, l sideLane) (jetstream.Stream, jetstream.Consumer, error) {
	o := q.opts
	name := o.Stream + l.suffix
	st, err := q.js.CreateOrUpdateStream(ctx, jobStream(o, name, l.about, l.root))
	if err != nil {
		return nil, nil, unavailable(fmt.Errorf("queue: open: stream %s: %w", name, err))
	}
	c, err := st.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       l.consumer,
		Description:   l.consumerFor,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       o.AckWait,
		MaxDeliver:    retryLaneMaxDeliver,
		MaxAckPending: o.RetryMaxAckPending,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, nil, unavailable(fmt.Errorf("queue: open: consumer %s: %w", l.consumer, err))
	}
	return st, c, nil
}

// Pending returns the number of jobs waiting plus those delivered and not
// yet decided (running or waiting out a retry delay), on every lane.
func (q *Queue) Pending(ctx context.Context) (int, error) {
	n := 0
	for _, c := range []jetstream.Consumer{q.consumer, q.retrier, q.ocrer} {
		info, err := c.Info(ctx)
		if err != nil {
			return 0, unavailable(fmt.Errorf("queue: pending: %w", err))
		}
		n += int(info.NumPending) + info.NumAckPending
	}
	return n, nil
}

// Backlog returns Pending and when the oldest message still in the fresh,
// retry or OCR lane was queued (zero when all are empty), for the metrics.
func (q *Queue) Backlog(ctx context.Context) (int, time.Time, error) {
	n, err := q.Pending(ctx)
	if err != nil {
		return 0, time.Time{}, err
	}
	var oldest time.Time
	for _, s := range []jetstream.Stream{q.stream, q.retry, q.ocr} {
		info, err := s.Info(ctx)
		if err != nil {
			return 0, time.Time{}, unavailable(fmt.Errorf("queue: backlog: %w", err))
		}
		if st := info.State; st.Msgs > 0 && (oldest.IsZero() || st.FirstTime.Before(oldest)) {
			oldest = st.FirstTime
		}
	}
	return n, oldest, nil
}
