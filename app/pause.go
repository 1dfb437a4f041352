package app

import (
	"context"
	"log/slog"
	"maps"
	"strings"
	"sync/atomic"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

// The personal settings form: each user can pause the indexing of their
// own files. AppAPI keeps the value in the user's preferences (personal
// declarative settings, AppAPI lib/Listener/DeclarativeSettings), which
// the app reads for every user every three SettingsIntervals (pauses), as
// Nextcloud tells an ExApp nothing when a value changes. A user who pauses
// has their files removed from the index by a scan of their tree;
// unpausing indexes them again the same way.
const (
	personalFormID = "hybrid_search_personal"
	pauseKey       = "pause_indexing"
)

// personalForm is the personal settings form.
func personalForm(env Config) nextcloud.SettingsForm {
	return nextcloud.SettingsForm{
		ID: personalFormID, Priority: 10, SectionType: "personal", SectionID: "declarative_settings", Title: env.AppDisplayName,
		Description: "Your files in " + env.AppDisplayName + ".",
		Fields: []nextcloud.SettingsField{{
			ID: pauseKey, Type: "checkbox", Title: "Pause indexing of my files", Label: "Pause indexing of my files",
			Description: "While paused, files you own are removed from the search index and not indexed; files others share with you stay searchable. Unpause to index your files again. A folder holding a file named .noindex is never indexed, with everything below it.",
			Default:     false,
		}},
	}
}

// pauses knows which users paused the indexing of their files. It reads
// every user's pause setting every interval (one request per user each
// time, so less often than the admin settings) and asks for a scan of the
// tree of each user whose setting changed.
type pauses struct {
	users    pauseReader
	rescan   func(hs.UserID) // scans a user's tree: files leave or enter the index
	interval time.Duration
	logger   *slog.Logger
	paused   atomic.Pointer[map[hs.UserID]bool]
}

// pauseReader is where the users and their preferences are:
// *nextcloud.Client.
type pauseReader interface {
	ListUsers(ctx context.Context) ([]hs.UserID, error)
	GetUserPreferences(ctx context.Context, user hs.UserID, keys ...string) (map[string]string, error)
}

// watch reads the users' pause settings now and every interval until ctx
// ends.
func (p *pauses) watch(ctx context.Context) {
	p.refresh(ctx)
	every(ctx, p.interval, p.refresh)
}

// refresh reads every user's pause setting and, for each user whose
// setting changed, puts it in force and asks for a scan of their tree. A
// user whose setting cannot be read keeps the last one known.
func (p *pauses) refresh(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	users, err := p.users.ListUsers(rctx)
	if err != nil {
		p.logger.Warn("reading the users' pause settings failed", "error", err)
		return
	}
	prev := p.current()
	next := map[hs.UserID]bool{}
	for _, u := range users {
		vals, err := p.users.GetUserPreferences(rctx, u, pauseKey)
		if err != nil {
			if prev[u] {
				next[u] = true
			}
			p.logger.Debug("reading a user's pause setting failed", "user_id", u, "error", err)
			continue
		}
		if isTrue(vals[pauseKey]) {
			next[u] = true
		}
	}
	if maps.Equal(prev, next) {
		return
	}
	p.paused.Store(&next)
	for u := range next {
		if !prev[u] {
			p.logger.Info("a user paused the indexing of their files", "user_id", u)
			p.rescan(u)
		}
	}
	for u := range prev {
		if !next[u] {
			p.logger.Info("a user resumed the indexing of their files", "user_id", u)
			p.rescan(u)
		}
	}
}

// current are the users whose indexing is paused.
func (p *pauses) current() map[hs.UserID]bool {
	if m := p.paused.Load(); m != nil {
		return *m
	}
	return nil
}

// isTrue reads a checkbox value as AppAPI stores it ("1"; "" is off).
func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// with is r with the paused users.
func (p *pauses) with(r indexing.Rules) indexing.Rules {
	r.Paused = p.current()
	return r
}
