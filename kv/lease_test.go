package kv

import (
	"context"
	"errors"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// leaseModes runs a test against both lease implementations: per-key TTL
// (nats-server 2.11+) and the age check used on older servers.
func leaseModes(t *testing.T, test func(t *testing.T, q *Store)) {
	for _, mode := range []struct {
		name     string
		noKeyTTL bool
	}{{"key ttl", false}, {"age check", true}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			q, _, _ := mustOpen(t, Options{noKeyTTL: mode.noKeyTTL})
			if q.keyTTL == mode.noKeyTTL {
				t.Fatalf("keyTTL = %v, want %v", q.keyTTL, !mode.noKeyTTL)
			}
			test(t, q)
		})
	}
}

func TestLeaseExcludesOthers(t *testing.T) {
	t.Parallel()
	leaseModes(t, func(t *testing.T, q *Store) {
		release, err := q.Lease(t.Context(), "f.1", 5*time.Second)
		if err != nil {
			t.Fatalf("Lease: %v", err)
		}
		_, err = q.Lease(t.Context(), "f.1", 5*time.Second)
		if !errors.Is(err, ErrLeaseHeld) || hs.ErrorKind(err) != hs.ECONFLICT {
			t.Fatalf("second Lease: %v, want ErrLeaseHeld (ECONFLICT)", err)
		}
		other, err := q.Lease(t.Context(), "f.2", 5*time.Second)
		if err != nil {
			t.Fatalf("Lease of another key: %v", err)
		}
		other()
		release()
		release() // twice is fine
		again, err := q.Lease(t.Context(), "f.1", 5*time.Second)
		if err != nil {
			t.Fatalf("Lease after release: %v", err)
		}
		again()
	})
}

func TestLeaseBadKey(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	for _, key := range []string{"", "a b", "f.*"} {
		if _, err := q.Lease(t.Context(), key, time.Second); hs.ErrorKind(err) != hs.EINVALID {
			t.Errorf("Lease(%q): %v, want EINVALID", key, err)
		}
	}
}

func TestLeaseExpiresAfterTTL(t *testing.T) {
	t.Parallel()
	leaseModes(t, func(t *testing.T, q *Store) {
		// A holder that crashes: it stops refreshing and never releases.
		ctx, crash := context.WithCancel(t.Context())
		taken := time.Now()
		if _, err := q.Lease(ctx, "f.7", time.Second); err != nil {
			t.Fatalf("Lease: %v", err)
		}
		crash()
		var release func()
		awaitTrue(t, 10*time.Second, "the crashed holder's lease to expire", func() bool {
			var err error
			release, err = q.Lease(context.Background(), "f.7", time.Second)
			if err != nil && !errors.Is(err, ErrLeaseHeld) {
				t.Fatalf("Lease: %v", err)
			}
			return err == nil
		})
		defer release()
		if d := time.Since(taken); d < 900*time.Millisecond {
			t.Errorf("lease with ttl 1s was free again after %s", d)
		}
	})
}

func TestLeaseRefreshKeepsIt(t *testing.T) {
	t.Parallel()
	leaseModes(t, func(t *testing.T, q *Store) {
		release, err := q.Lease(t.Context(), "f.8", time.Second)
		if err != nil {
			t.Fatalf("Lease: %v", err)
		}
		defer release()
		end := time.Now().Add(2500 * time.Millisecond)
		for time.Now().Before(end) {
			if _, err := q.Lease(t.Context(), "f.8", time.Second); !errors.Is(err, ErrLeaseHeld) {
				t.Fatalf("Lease while a refreshed lease is held: %v, want ErrLeaseHeld", err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
}
