package kv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/nats-io/nats.go/jetstream"
)

// States is the per-file state store: one entry per file id in the
// JetStream key-value bucket HS_FILES, shared by every worker process.
// Revisions allow compare-and-set updates.
type States struct {
	kv  jetstream.KeyValue
	log *slog.Logger
}

// States returns the per-file state store.
func (db *Store) States() *States {
	return &States{kv: db.files, log: db.log}
}

func stateKey(id hs.FileID) (string, error) {
	if id <= 0 {
		return "", hs.Errorf(hs.EINVALID, "kv: state: bad file id %d", id)
	}
	return strconv.FormatInt(int64(id), 10), nil
}

// Get returns the state of file id and its revision for Update.
// ENOTFOUND when the file has no state.
func (s *States) Get(ctx context.Context, id hs.FileID) (hs.FileState, uint64, error) {
	key, err := stateKey(id)
	if err != nil {
		return hs.FileState{}, 0, err
	}
	e, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return hs.FileState{}, 0, hs.Errorf(hs.ENOTFOUND, "kv: no state for file %d", id)
	}
	if err != nil {
		return hs.FileState{}, 0, unavailable(fmt.Errorf("kv: get state %d: %w", id, err))
	}
	st, err := decodeState(e.Value())
	if err != nil {
		return hs.FileState{}, 0, hs.Errorf(hs.EINTERNAL, "kv: get state %d: %w", id, err)
	}
	return st, e.Revision(), nil
}

// Put stores st under st.ID, whatever was there.
func (s *States) Put(ctx context.Context, st hs.FileState) error {
	key, data, err := encodeState(st)
	if err != nil {
		return err
	}
	if _, err := s.kv.Put(ctx, key, data); err != nil {
		return unavailable(fmt.Errorf("kv: put state %s: %w", key, err))
	}
	return nil
}

// Update stores st only if the stored revision is still rev (from Get);
// rev 0 means "only if there is no state yet". ECONFLICT otherwise: the
// caller reads again and retries.
func (s *States) Update(ctx context.Context, st hs.FileState, rev uint64) error {
	key, data, err := encodeState(st)
	if err != nil {
		return err
	}
	if rev == 0 {
		_, err = s.kv.Create(ctx, key, data)
	} else {
		_, err = s.kv.Update(ctx, key, data, rev)
	}
	if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return hs.Errorf(hs.ECONFLICT, "kv: update state %s: changed since revision %d", key, rev)
	}
	if err != nil {
		return unavailable(fmt.Errorf("kv: update state %s: %w", key, err))
	}
	return nil
}

// Delete removes the state of file id; deleting a missing state is not an
// error.
func (s *States) Delete(ctx context.Context, id hs.FileID) error {
	key, err := stateKey(id)
	if err != nil {
		return err
	}
	if err := s.kv.Purge(ctx, key); err != nil {
		return unavailable(fmt.Errorf("kv: delete state %s: %w", key, err))
	}
	return nil
}

// List calls fn with every stored state, in no particular order, streaming
// them from the server rather than loading the bucket into memory. It stops
// at and returns fn's first error. An unreadable entry is logged and
// skipped.
func (s *States) List(ctx context.Context, fn func(hs.FileState) error) error {
	err := Each(ctx, s.kv, func(e jetstream.KeyValueEntry) error {
		st, err := decodeState(e.Value())
		if err != nil {
			s.log.Warn("file state unreadable; skipped", "key", e.Key(), slog.Any("error", err))
			return nil
		}
		return fn(st)
	})
	if err != nil {
		return fmt.Errorf("kv: list states: %w", err)
	}
	return nil
}

// legacyState holds what older versions kept in a state: every chunk's
// hash, which made the state of a large file outgrow a NATS message.
type legacyState struct {
	ChunkHashes []json.RawMessage `json:"chunk_hashes"`
}

// decodeState reads a stored state, counting the chunks of one written
// with chunk hashes.
func decodeState(b []byte) (hs.FileState, error) {
	var st hs.FileState
	if err := json.Unmarshal(b, &st); err != nil {
		return st, err
	}
	if st.Chunks == 0 && bytes.Contains(b, []byte(`"chunk_hashes"`)) {
		var old legacyState
		if err := json.Unmarshal(b, &old); err == nil {
			st.Chunks = len(old.ChunkHashes)
		}
	}
	return st, nil
}

func encodeState(st hs.FileState) (string, []byte, error) {
	key, err := stateKey(st.ID)
	if err != nil {
		return "", nil, err
	}
	data, err := json.Marshal(st)
	if err != nil {
		return "", nil, hs.Errorf(hs.EINVALID, "kv: state %s: %w", key, err)
	}
	return key, data, nil
}
