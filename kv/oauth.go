package kv

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	hs "github.com/hybrid-search/hybridsearch"
)

// Records is one JetStream key-value bucket of small records (the OAuth
// server's clients, authorization requests, codes and refresh tokens),
// each of which disappears MaxAge after it was last written. Revisions
// make check-and-set updates possible, so a code or refresh token can be
// spent exactly once even with several app processes.
type Records struct {
	kv   jetstream.KeyValue
	name string
}

// Records opens (creating or updating) the bucket name whose entries live
// maxAge after their last write, holding at most maxBytes (0: no limit;
// when full, Create fails with EUNAVAILABLE and nothing old is dropped).
func (db *Store) Records(ctx context.Context, name, description string, maxAge time.Duration, maxBytes int64) (*Records, error) {
	if maxBytes == 0 {
		maxBytes = -1
	}
	kv, err := db.bucket(ctx, jetstream.KeyValueConfig{Bucket: name, Description: description, TTL: maxAge, MaxBytes: maxBytes})
	if err != nil {
		return nil, err
	}
	return &Records{kv: kv, name: name}, nil
}

// Create stores value under key and returns its revision; ECONFLICT if
// key exists, EINVALID for a key NATS does not allow.
func (r *Records) Create(ctx context.Context, key string, value []byte) (uint64, error) {
	rev, err := r.kv.Create(ctx, key, value)
	switch {
	case errors.Is(err, jetstream.ErrKeyExists):
		return 0, hs.Errorf(hs.ECONFLICT, "kv: %s: %s exists", r.name, key)
	case errors.Is(err, jetstream.ErrInvalidKey):
		return 0, hs.Errorf(hs.EINVALID, "kv: %s: bad key", r.name)
	case err != nil:
		return 0, unavailable(fmt.Errorf("kv: %s: create: %w", r.name, err))
	}
	return rev, nil
}

// Get returns key's value and revision; ENOTFOUND if there is none (also
// for a key NATS does not allow, which no record can have).
func (r *Records) Get(ctx context.Context, key string) ([]byte, uint64, error) {
	e, err := r.kv.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrInvalidKey), errors.Is(err, jetstream.ErrKeyDeleted):
		return nil, 0, hs.Errorf(hs.ENOTFOUND, "kv: %s: no record", r.name)
	case err != nil:
		return nil, 0, unavailable(fmt.Errorf("kv: %s: get: %w", r.name, err))
	}
	return e.Value(), e.Revision(), nil
}

// Update replaces key's value if its revision is still rev and returns
// the new revision; ECONFLICT if someone else wrote (or deleted) it first.
func (r *Records) Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	n, err := r.kv.Update(ctx, key, value, rev)
	switch {
	case err == nil:
		return n, nil
	case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyNotFound):
		return 0, hs.Errorf(hs.ECONFLICT, "kv: %s: %s changed", r.name, key)
	case errors.Is(err, jetstream.ErrInvalidKey):
		return 0, hs.Errorf(hs.EINVALID, "kv: %s: bad key", r.name)
	}
	return 0, unavailable(fmt.Errorf("kv: %s: update: %w", r.name, err))
}

// Delete removes key; deleting a missing record is not an error.
func (r *Records) Delete(ctx context.Context, key string) error {
	err := r.kv.Purge(ctx, key)
	if err != nil && !errors.Is(err, jetstream.ErrInvalidKey) {
		return unavailable(fmt.Errorf("kv: %s: delete: %w", r.name, err))
	}
	return nil
}

// Size returns how many records the bucket holds and their bytes on
// disk (with the stream's overhead).
func (r *Records) Size(ctx context.Context) (records, bytes uint64, err error) {
	st, err := r.kv.Status(ctx)
	if err != nil {
		return 0, 0, unavailable(fmt.Errorf("kv: %s: status: %w", r.name, err))
	}
	return st.Values(), st.Bytes(), nil
}
