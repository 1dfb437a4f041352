package kv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names of the buckets Open creates.
const (
	FilesBucket  = "HS_FILES"  // per-file state
	LeasesBucket = "HS_LEASES" // per-file leases
)

// DefaultTimeout is Options.Timeout when it is 0.
const DefaultTimeout = 10 * time.Second

// Options configure a Store. Zero fields take the documented defaults.
type Options struct {
	// Timeout bounds each read or write of a bucket, whatever the
	// caller's deadline; default DefaultTimeout (10 s).
	Timeout time.Duration
	// Replicas of the buckets; default 1 (3 on a cluster).
	Replicas int
	// Logger; nil means slog.Default().
	Logger *slog.Logger

	// noKeyTTL forces the lease fallback for servers without per-key TTL
	// (tests only).
	noKeyTTL bool
}

// Store is the app's key-value storage on JetStream: the per-file state
// and lease buckets, opened by Open, and the token, share-list and OAuth
// buckets, opened on first use. It is safe for concurrent use. The caller
// owns the *nats.Conn.
type Store struct {
	opts   Options
	js     jetstream.JetStream
	files  jetstream.KeyValue
	leases jetstream.KeyValue
	keyTTL bool // the leases bucket supports per-key TTL
	log    *slog.Logger
}

// Open creates or updates the per-file state and lease buckets, so
// calling it again (from another process, or with other Options) is safe.
// A NATS that does not answer gives an EUNAVAILABLE error.
func Open(ctx context.Context, nc *nats.Conn, o Options) (*Store, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("kv: open: %w", err)
	}
	db := &Store{opts: o, js: js, log: o.Logger.With("component", "kv")}
	if db.files, err = db.bucket(ctx, jetstream.KeyValueConfig{Bucket: FilesBucket, Description: "hybridsearch per-file state"}); err != nil {
		return nil, err
	}
	if err := db.openLeases(ctx); err != nil {
		return nil, err
	}
	return db, nil
}

// bucket creates or updates the bucket cfg with the store's replicas.
func (db *Store) bucket(ctx context.Context, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	cfg.Replicas = db.opts.Replicas
	return OpenBucket(ctx, db.js, cfg, db.opts.Timeout)
}

// OpenBucket creates or updates the bucket cfg (one value per key, on
// file storage) and returns it with each operation bounded by timeout.
// It is how the job queue keeps its dead letters beside the store's
// buckets. A NATS that does not answer gives EUNAVAILABLE.
func OpenBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig, timeout time.Duration) (jetstream.KeyValue, error) {
	cfg.History = 1
	cfg.Storage = jetstream.FileStorage
	b, err := js.CreateOrUpdateKeyValue(ctx, cfg)
	if err != nil {
		return nil, unavailable(fmt.Errorf("kv: open: bucket %s: %w", cfg.Bucket, err))
	}
	return timedKV{b, timeout}, nil
}

// openLeases creates the leases bucket with per-key TTL when the server
// has it (nats-server 2.11 and later). Older servers get a bucket whose
// entries expire after maxLeaseAge; Lease then also treats an entry older
// than its holder's ttl as expired.
func (db *Store) openLeases(ctx context.Context) error {
	cfg := jetstream.KeyValueConfig{
		Bucket:      LeasesBucket,
		Description: "hybridsearch per-file leases",
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    db.opts.Replicas,
		TTL:         maxLeaseAge,
	}
	if !db.opts.noKeyTTL {
		withTTL := cfg
		withTTL.LimitMarkerTTL = leaseMarkerTTL
		b, err := db.js.CreateOrUpdateKeyValue(ctx, withTTL)
		if err == nil {
			db.leases, db.keyTTL = timedKV{b, db.opts.Timeout}, true
			return nil
		}
		if !errors.Is(err, jetstream.ErrLimitMarkerTTLNotSupported) {
			return unavailable(fmt.Errorf("kv: open: bucket %s: %w", LeasesBucket, err))
		}
		db.log.Warn("NATS server has no per-key TTL; leases expire by age check", "bucket", LeasesBucket)
	}
	b, err := db.js.CreateOrUpdateKeyValue(ctx, cfg)
	if err != nil {
		return unavailable(fmt.Errorf("kv: open: bucket %s: %w", LeasesBucket, err))
	}
	db.leases = timedKV{b, db.opts.Timeout}
	return nil
}

// Each calls fn with every live entry of b, streaming them from the
// server instead of loading the bucket first. It stops at and returns
// fn's first error; a watch that cannot start or ends early is
// EUNAVAILABLE.
func Each(ctx context.Context, b jetstream.KeyValue, fn func(jetstream.KeyValueEntry) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return unavailable(err)
	}
	defer func() { _ = w.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				return unavailable(errors.New("watch closed"))
			}
			if e == nil {
				return nil // initial values done
			}
			if err := fn(e); err != nil {
				return err
			}
		}
	}
}

// unavailable marks err as EUNAVAILABLE unless it already has a kind or is
// the caller's own cancellation.
func unavailable(err error) error {
	var e *hs.Error
	if err == nil || errors.As(err, &e) || errors.Is(err, context.Canceled) {
		return err
	}
	return hs.WrapError(hs.EUNAVAILABLE, err, "key-value store unavailable")
}
