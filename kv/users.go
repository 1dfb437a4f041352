package kv

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/nats-io/nats.go/jetstream"
)

// Users lists the users that have token records, sorted.
func (s *TokenStore) Users(ctx context.Context) ([]hs.UserID, error) {
	return keyUsers(ctx, s.kv, "tokens", func(key string) string { p, _, _ := strings.Cut(key, "."); return p })
}

// Forget deletes every token record of user (app tokens and OAuth grants).
func (s *TokenStore) Forget(ctx context.Context, user hs.UserID) error {
	list, err := s.List(ctx, user)
	if err != nil {
		return err
	}
	for _, t := range list {
		if err := s.Delete(ctx, user, t.ID); err != nil {
			return err
		}
	}
	return nil
}

// Users lists the users that have a stored share list, sorted.
func (s *ShareLists) Users(ctx context.Context) ([]hs.UserID, error) {
	return keyUsers(ctx, s.kv, "shares", func(key string) string { return key })
}

// Forget deletes user's stored share list; a missing one is not an error.
func (s *ShareLists) Forget(ctx context.Context, user hs.UserID) error {
	key, err := shareKey(user)
	if err != nil {
		return err
	}
	if err := s.kv.Purge(ctx, key); err != nil {
		return unavailable(fmt.Errorf("kv: forget shares of %s: %w", user, err))
	}
	return nil
}

// keyUsers lists, sorted, the users whose base64url-encoded ids prefix
// takes from the keys of kv (the bucket of what).
func keyUsers(ctx context.Context, kv jetstream.KeyValue, what string, prefix func(key string) string) ([]hs.UserID, error) {
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, unavailable(fmt.Errorf("kv: users with %s: %w", what, err))
	}
	defer func() { _ = keys.Stop() }()
	seen := map[hs.UserID]bool{}
	for k := range keys.Keys() {
		u, err := base64.RawURLEncoding.DecodeString(prefix(k))
		if err != nil || len(u) == 0 {
			continue // not a key this package wrote
		}
		seen[hs.UserID(u)] = true
	}
	out := make([]hs.UserID, 0, len(seen))
	for u := range seen {
		out = append(out, u)
	}
	slices.Sort(out)
	return out, nil
}
