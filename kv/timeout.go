package kv

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// timedKV bounds each key-value operation by d, whatever the caller's
// deadline. A request lost with a NATS cluster node (the connection moved
// to another node before the answer came) would otherwise wait until the
// caller's own deadline — a job handler's ten minutes — while the job is
// kept in progress and its file waits. Bounded, the operation fails with
// a deadline error and the job is retried.
type timedKV struct {
	jetstream.KeyValue
	d time.Duration
}

func (kv timedKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, kv.d)
	defer cancel()
	return kv.KeyValue.Get(ctx, key)
}

func (kv timedKV) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, kv.d)
	defer cancel()
	return kv.KeyValue.Put(ctx, key, value)
}

func (kv timedKV) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, kv.d)
	defer cancel()
	return kv.KeyValue.Create(ctx, key, value, opts...)
}

func (kv timedKV) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, kv.d)
	defer cancel()
	return kv.KeyValue.Update(ctx, key, value, revision)
}

func (kv timedKV) Delete(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error {
	ctx, cancel := context.WithTimeout(ctx, kv.d)
	defer cancel()
	return kv.KeyValue.Delete(ctx, key, opts...)
}

func (kv timedKV) Purge(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error {
	ctx, cancel := context.WithTimeout(ctx, kv.d)
	defer cancel()
	return kv.KeyValue.Purge(ctx, key, opts...)
}
