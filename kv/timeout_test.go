package kv

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// stalledKV never answers: its calls wait until their context ends, as a
// request lost with a NATS node does.
type stalledKV struct{ jetstream.KeyValue }

func (stalledKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (stalledKV) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func (stalledKV) Purge(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error {
	<-ctx.Done()
	return ctx.Err()
}

// A bucket operation that gets no answer fails after the queue's timeout,
// not after the caller's (a job handler's ten minutes).
func TestBucketOperationsAreBounded(t *testing.T) {
	kv := timedKV{stalledKV{}, 50 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for name, op := range map[string]func() error{
		"get":   func() error { _, err := kv.Get(ctx, "k"); return err },
		"put":   func() error { _, err := kv.Put(ctx, "k", nil); return err },
		"purge": func() error { return kv.Purge(ctx, "k") },
	} {
		start := time.Now()
		err := op()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Minute {
			t.Errorf("%s: %v after %s; want a deadline error after about 50ms", name, err, time.Since(start))
		}
	}
}
