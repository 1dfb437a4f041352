package kv

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/nats-io/nats.go/jetstream"
)

// SharesBucket is the key-value bucket of each user's last seen shares.
const SharesBucket = "HS_SHARES"

// maxShareList bounds one user's stored share list (encoded), well under
// NATS's 1 MiB message limit: about 10,000 shares.
const maxShareList = 512 << 10

// ShareLists keeps, per user, the shares the app last saw them receive,
// in the JetStream key-value bucket HS_SHARES, so every app process tells
// new shares from known ones alike. Keys are base64url(user).
type ShareLists struct {
	kv jetstream.KeyValue
}

// ShareLists opens the share lists, creating their bucket if needed;
// calling it again is safe. A NATS that does not answer gives
// EUNAVAILABLE.
func (db *Store) ShareLists(ctx context.Context) (*ShareLists, error) {
	kv, err := db.bucket(ctx, jetstream.KeyValueConfig{Bucket: SharesBucket, Description: "hybridsearch shares each user last received"})
	if err != nil {
		return nil, err
	}
	return &ShareLists{kv: kv}, nil
}

func shareKey(user hs.UserID) (string, error) {
	if user == "" {
		return "", hs.Errorf(hs.EINVALID, "kv: shares: empty user")
	}
	return base64.RawURLEncoding.EncodeToString([]byte(user)), nil
}

// Get returns user's stored share list; ENOTFOUND when none was stored.
func (s *ShareLists) Get(ctx context.Context, user hs.UserID) ([]hs.Share, error) {
	key, err := shareKey(user)
	if err != nil {
		return nil, err
	}
	e, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, hs.Errorf(hs.ENOTFOUND, "kv: no share list for %s", user)
	}
	if err != nil {
		return nil, unavailable(fmt.Errorf("kv: get shares of %s: %w", user, err))
	}
	var list []hs.Share
	if err := json.Unmarshal(e.Value(), &list); err != nil {
		return nil, hs.Errorf(hs.EINTERNAL, "kv: get shares of %s: %w", user, err)
	}
	return list, nil
}

// Put stores user's share list. A list that encodes to more than 512 KiB
// is ETOOLARGE and not stored.
func (s *ShareLists) Put(ctx context.Context, user hs.UserID, list []hs.Share) error {
	key, err := shareKey(user)
	if err != nil {
		return err
	}
	data, err := json.Marshal(list)
	if err != nil {
		return hs.Errorf(hs.EINVALID, "kv: put shares of %s: %w", user, err)
	}
	if len(data) > maxShareList {
		return hs.Errorf(hs.ETOOLARGE, "kv: put shares of %s: %d shares are more than one list holds", user, len(list))
	}
	if _, err := s.kv.Put(ctx, key, data); err != nil {
		return unavailable(fmt.Errorf("kv: put shares of %s: %w", user, err))
	}
	return nil
}
