package kv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

const (
	// minLeaseTTL is the server's smallest per-message TTL.
	minLeaseTTL = time.Second
	// maxLeaseAge is the leases bucket's MaxAge: a backstop that removes
	// any lease not refreshed for this long, on every server version.
	maxLeaseAge = time.Hour
	// leaseMarkerTTL is how long the marker of an expired lease is kept.
	leaseMarkerTTL = time.Minute
)

// ErrLeaseHeld is the error (kind ECONFLICT) Lease returns, wrapped, when
// another holder has the lease. The job queue tries such a job again soon (queue.Run).
var ErrLeaseHeld = &hs.Error{Kind: hs.ECONFLICT, Message: "lease held by another worker"}

// leaseValue is what a lease entry holds.
type leaseValue struct {
	Owner string        `json:"owner"`
	TTL   time.Duration `json:"ttl"`
}

// Lease takes the lease named key (JobKey form, e.g. "f.42") for ttl, so
// that no other holder, in this or another process, gets it until it is
// released or expires. ttl under one second counts as one second. Until
// release is called or ctx is done the lease is refreshed every ttl/3, so
// long work keeps it; a holder that crashes loses it after ttl. release is
// safe to call more than once and from any goroutine.
//
// When another holder has the lease, Lease returns an error that wraps
// ErrLeaseHeld (kind ECONFLICT). A bad key is EINVALID.
//
// On NATS servers with per-key TTL (2.11 and later) the server removes an
// expired lease. Older servers (Debian's 2.9) lack it; there a lease older
// than its holder's ttl (by the entry's server time stamp against this
// machine's clock) is taken over by compare-and-set, and the bucket's MaxAge
// of one hour removes forgotten entries.
func (db *Store) Lease(ctx context.Context, key string, ttl time.Duration) (release func(), err error) {
	ttl = max(ttl, minLeaseTTL)
	val, err := json.Marshal(leaseValue{Owner: nuid.Next(), TTL: ttl})
	if err != nil {
		return nil, fmt.Errorf("kv: lease %s: %w", key, err)
	}
	rev, err := db.takeLease(ctx, key, val, ttl)
	if err != nil {
		return nil, err
	}
	l := &lease{db: db, key: key, val: val, ttl: ttl, rev: rev, done: make(chan struct{})}
	l.wg.Go(func() { l.refresh(ctx) })
	return l.release, nil
}

func (db *Store) takeLease(ctx context.Context, key string, val []byte, ttl time.Duration) (uint64, error) {
	var opts []jetstream.KVCreateOpt
	if db.keyTTL {
		opts = append(opts, jetstream.KeyTTL(ttl))
	}
	rev, err := db.leases.Create(ctx, key, val, opts...)
	switch {
	case err == nil:
		return rev, nil
	case errors.Is(err, jetstream.ErrInvalidKey):
		return 0, hs.Errorf(hs.EINVALID, "kv: lease %q: bad key", key)
	case !errors.Is(err, jetstream.ErrKeyExists):
		return 0, unavailable(fmt.Errorf("kv: lease %s: %w", key, err))
	}
	// The lease exists. A holder that stopped refreshing it (it crashed)
	// loses it after its ttl, even where the server's own key TTL did not
	// fire (seen after an embedded server restarted: its TTL state is
	// rebuilt and stale entries can linger).
	e, err := db.leases.Get(ctx, key)
	if err != nil {
		return 0, fmt.Errorf("kv: lease %s: %w", key, ErrLeaseHeld)
	}
	var held leaseValue
	if json.Unmarshal(e.Value(), &held) == nil && time.Since(e.Created()) < max(held.TTL, minLeaseTTL) {
		return 0, fmt.Errorf("kv: lease %s: %w", key, ErrLeaseHeld)
	}
	if db.keyTTL {
		// Remove the stale entry (only if unchanged) and create a fresh one
		// that carries a TTL again.
		if err := db.leases.Delete(ctx, key, jetstream.LastRevision(e.Revision())); err != nil {
			return 0, fmt.Errorf("kv: lease %s: %w", key, ErrLeaseHeld)
		}
		rev, err := db.leases.Create(ctx, key, val, opts...)
		if err != nil {
			return 0, fmt.Errorf("kv: lease %s: %w", key, ErrLeaseHeld)
		}
		return rev, nil
	}
	rev, err = db.leases.Update(ctx, key, val, e.Revision())
	if err != nil {
		return 0, fmt.Errorf("kv: lease %s: %w", key, ErrLeaseHeld)
	}
	return rev, nil
}

// lease is one held lease.
type lease struct {
	db   *Store
	key  string
	val  []byte
	ttl  time.Duration
	once sync.Once
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	rev  uint64 // current revision; 0 once the lease is lost
}

// refresh renews the lease every ttl/3 until release or ctx is done.
func (l *lease) refresh(ctx context.Context) {
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		l.mu.Lock()
		rev, err := l.renew(ctx, l.rev)
		if err != nil {
			l.rev = 0
			l.mu.Unlock()
			l.db.log.Warn("lease lost", "key", l.key, slog.Any("error", err))
			return
		}
		l.rev = rev
		l.mu.Unlock()
	}
}

// renew rewrites the lease entry if it is still at rev, restarting its TTL.
func (l *lease) renew(ctx context.Context, rev uint64) (uint64, error) {
	if !l.db.keyTTL {
		return l.db.leases.Update(ctx, l.key, l.val, rev)
	}
	m := nats.NewMsg("$KV." + LeasesBucket + "." + l.key)
	m.Data = l.val
	ack, err := l.db.js.PublishMsg(ctx, m, jetstream.WithMsgTTL(l.ttl), jetstream.WithExpectLastSequencePerSubject(rev))
	if err != nil {
		return 0, err
	}
	return ack.Sequence, nil
}

// release stops refreshing and deletes the lease if this holder still has it.
func (l *lease) release() {
	l.once.Do(func() {
		close(l.done)
		l.wg.Wait()
		l.mu.Lock()
		rev := l.rev
		l.mu.Unlock()
		if rev == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.db.opts.Timeout)
		defer cancel()
		opts := []jetstream.KVDeleteOpt{jetstream.LastRevision(rev)}
		if l.db.keyTTL {
			opts = append(opts, jetstream.PurgeTTL(leaseMarkerTTL))
		}
		err := l.db.leases.Purge(ctx, l.key, opts...)
		if err != nil && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			l.db.log.Warn("lease not released; it expires on its own", "key", l.key, slog.Any("error", err))
		}
	})
}
