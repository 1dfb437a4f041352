package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
)

// fakeUserPrefs is a user directory with each user's pause value; a user
// in fail cannot be read, and listErr fails the list.
type fakeUserPrefs struct {
	users   []hs.UserID
	pause   map[hs.UserID]string
	fail    map[hs.UserID]bool
	listErr error
}

func (f *fakeUserPrefs) ListUsers(context.Context) ([]hs.UserID, error) {
	return f.users, f.listErr
}

func (f *fakeUserPrefs) GetUserPreferences(_ context.Context, u hs.UserID, keys ...string) (map[string]string, error) {
	if f.fail[u] {
		return nil, errors.New("unreachable")
	}
	if len(keys) != 1 || keys[0] != pauseKey {
		return nil, errors.New("unexpected keys")
	}
	return map[string]string{pauseKey: f.pause[u]}, nil
}

// TestPausesRefresh: a refresh puts the users' pause settings in force
// and scans exactly the users whose setting changed; a user who cannot be
// read keeps the last setting known, and a failed user list changes
// nothing.
func TestPausesRefresh(t *testing.T) {
	tests := []struct {
		name       string
		before     []hs.UserID // paused before the refresh
		dir        fakeUserPrefs
		wantPaused []hs.UserID
		wantScans  []hs.UserID
	}{
		{
			name:       "a user pauses",
			dir:        fakeUserPrefs{users: []hs.UserID{"alice", "bob"}, pause: map[hs.UserID]string{"bob": "1"}},
			wantPaused: []hs.UserID{"bob"},
			wantScans:  []hs.UserID{"bob"},
		},
		{
			name:   "a user resumes, another stays paused",
			before: []hs.UserID{"alice", "bob"},
			dir:    fakeUserPrefs{users: []hs.UserID{"alice", "bob"}, pause: map[hs.UserID]string{"alice": "true", "bob": ""}},
			// alice stays paused: no scan for her.
			wantPaused: []hs.UserID{"alice"},
			wantScans:  []hs.UserID{"bob"},
		},
		{
			name:       "nothing changed",
			before:     []hs.UserID{"bob"},
			dir:        fakeUserPrefs{users: []hs.UserID{"alice", "bob"}, pause: map[hs.UserID]string{"bob": " ON "}},
			wantPaused: []hs.UserID{"bob"},
		},
		{
			name:       "an unreadable user keeps the last setting",
			before:     []hs.UserID{"bob"},
			dir:        fakeUserPrefs{users: []hs.UserID{"alice", "bob"}, fail: map[hs.UserID]bool{"alice": true, "bob": true}},
			wantPaused: []hs.UserID{"bob"},
		},
		{
			name:       "a failed user list changes nothing",
			before:     []hs.UserID{"bob"},
			dir:        fakeUserPrefs{listErr: errors.New("nextcloud down")},
			wantPaused: []hs.UserID{"bob"},
		},
		{
			name:       "a user who left is resumed",
			before:     []hs.UserID{"carol"},
			dir:        fakeUserPrefs{users: []hs.UserID{"alice"}},
			wantPaused: nil,
			wantScans:  []hs.UserID{"carol"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var scans []hs.UserID
			p := &pauses{users: &tt.dir, rescan: func(u hs.UserID) { scans = append(scans, u) },
				logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			if tt.before != nil {
				before := map[hs.UserID]bool{}
				for _, u := range tt.before {
					before[u] = true
				}
				p.paused.Store(&before)
			}
			p.refresh(context.Background())
			if got := slices.Sorted(maps.Keys(p.current())); !slices.Equal(got, tt.wantPaused) {
				t.Errorf("paused = %v, want %v", got, tt.wantPaused)
			}
			slices.Sort(scans)
			if !slices.Equal(scans, tt.wantScans) {
				t.Errorf("scans = %v, want %v", scans, tt.wantScans)
			}
			r := p.with(indexing.Rules{MIMEs: []string{"image/*"}})
			if !maps.Equal(r.Paused, p.current()) || len(r.MIMEs) != 1 {
				t.Errorf("with = %+v, want the rules with the paused users", r)
			}
		})
	}
}
