package kv

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/nats-io/nats.go/jetstream"
)

// TokensBucket is the key-value bucket of bearer-token records.
const TokensBucket = "HS_TOKENS"

// TokenStore keeps the records of the per-user bearer tokens (never the
// tokens themselves) in the JetStream key-value bucket HS_TOKENS, so every
// app process sees issues and revocations at once. Keys are
// "<base64url(user)>.<token id>", so one user's tokens are listed without
// reading anyone else's.
type TokenStore struct {
	kv  jetstream.KeyValue
	log *slog.Logger
}

// Tokens opens the token store, creating its bucket if needed; calling it
// again is safe. A NATS that does not answer gives EUNAVAILABLE.
func (db *Store) Tokens(ctx context.Context) (*TokenStore, error) {
	kv, err := db.bucket(ctx, jetstream.KeyValueConfig{Bucket: TokensBucket, Description: "hybridsearch bearer-token records"})
	if err != nil {
		return nil, err
	}
	return &TokenStore{kv: kv, log: db.log}, nil
}

// userPrefix is the key prefix of user's tokens.
func userPrefix(user hs.UserID) (string, error) {
	if user == "" {
		return "", hs.Errorf(hs.EINVALID, "kv: token: empty user")
	}
	return base64.RawURLEncoding.EncodeToString([]byte(user)), nil
}

func tokenKey(user hs.UserID, id string) (string, error) {
	p, err := userPrefix(user)
	if err != nil {
		return "", err
	}
	if id == "" || len(id) > 64 || strings.ContainsFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) {
		return "", hs.Errorf(hs.EINVALID, "kv: token: bad id %q", id)
	}
	return p + "." + id, nil
}

// Create stores a new record; ECONFLICT if one with the same user and id
// exists.
func (s *TokenStore) Create(ctx context.Context, t hs.Token) error {
	key, data, err := encodeToken(t)
	if err != nil {
		return err
	}
	_, err = s.kv.Create(ctx, key, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return hs.Errorf(hs.ECONFLICT, "kv: create token %s: exists", t.ID)
	}
	if err != nil {
		return unavailable(fmt.Errorf("kv: create token %s: %w", t.ID, err))
	}
	return nil
}

// Put stores t over any record with its user and id.
func (s *TokenStore) Put(ctx context.Context, t hs.Token) error {
	key, data, err := encodeToken(t)
	if err != nil {
		return err
	}
	if _, err := s.kv.Put(ctx, key, data); err != nil {
		return unavailable(fmt.Errorf("kv: put token %s: %w", t.ID, err))
	}
	return nil
}

// Get returns user's token record id; ENOTFOUND if there is none (also
// for an id that is not well-formed, which no record can have).
func (s *TokenStore) Get(ctx context.Context, user hs.UserID, id string) (hs.Token, error) {
	key, err := tokenKey(user, id)
	if err != nil {
		if hs.ErrorKind(err) == hs.EINVALID && user != "" {
			return hs.Token{}, hs.Errorf(hs.ENOTFOUND, "kv: no token %q", id)
		}
		return hs.Token{}, err
	}
	e, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return hs.Token{}, hs.Errorf(hs.ENOTFOUND, "kv: no token %q", id)
	}
	if err != nil {
		return hs.Token{}, unavailable(fmt.Errorf("kv: get token %s: %w", id, err))
	}
	var t hs.Token
	if err := json.Unmarshal(e.Value(), &t); err != nil {
		return hs.Token{}, hs.Errorf(hs.EINTERNAL, "kv: get token %s: %w", id, err)
	}
	return t, nil
}

// List returns user's token records, oldest first (ties by id). An
// unreadable record is logged and skipped.
func (s *TokenStore) List(ctx context.Context, user hs.UserID) ([]hs.Token, error) {
	prefix, err := userPrefix(user)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.kv.WatchFiltered(ctx, []string{prefix + ".*"}, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, unavailable(fmt.Errorf("kv: list tokens: %w", err))
	}
	defer func() { _ = w.Stop() }()
	out := []hs.Token{}
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("kv: list tokens: %w", ctx.Err())
		case e, ok := <-w.Updates():
			if !ok {
				return nil, unavailable(errors.New("kv: list tokens: watch closed"))
			}
			if e == nil { // initial values done
				slices.SortFunc(out, func(a, b hs.Token) int {
					if c := a.Created.Compare(b.Created); c != 0 {
						return c
					}
					return strings.Compare(a.ID, b.ID)
				})
				return out, nil
			}
			var t hs.Token
			if err := json.Unmarshal(e.Value(), &t); err != nil {
				s.log.Warn("token record unreadable; skipped", "key", e.Key(), slog.Any("error", err))
				continue
			}
			out = append(out, t)
		}
	}
}

// Delete removes user's record id; deleting a missing record is not an
// error.
func (s *TokenStore) Delete(ctx context.Context, user hs.UserID, id string) error {
	key, err := tokenKey(user, id)
	if err != nil {
		return err
	}
	if err := s.kv.Purge(ctx, key); err != nil {
		return unavailable(fmt.Errorf("kv: delete token %s: %w", id, err))
	}
	return nil
}

func encodeToken(t hs.Token) (string, []byte, error) {
	key, err := tokenKey(t.User, t.ID)
	if err != nil {
		return "", nil, err
	}
	data, err := json.Marshal(t)
	if err != nil {
		return "", nil, hs.Errorf(hs.EINVALID, "kv: token %s: %w", t.ID, err)
	}
	return key, data, nil
}
