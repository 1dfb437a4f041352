package app

import (
	"context"
	"maps"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

// The personal settings form: each user can pause the indexing of their
// own files. AppAPI keeps the value in the user's preferences (personal
// declarative settings, AppAPI lib/Listener/DeclarativeSettings), which
// the app reads for every user every pauseInterval, as Nextcloud tells an
// ExApp nothing when a value changes. A user who pauses has their files
// removed from the index by a scan of their tree; unpausing indexes them
// again the same way.
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

// pauseInterval is how often the users' pause settings are read: one
// request per user each time, so less often than the admin settings.
func (m *App) pauseInterval() time.Duration {
	return 3 * m.Config.SettingsInterval
}

// watchPauses reads the users' pause settings every pauseInterval until
// ctx ends.
func (m *App) watchPauses(ctx context.Context) {
	m.refreshPauses(ctx)
	every(ctx, m.pauseInterval(), m.refreshPauses)
}

// refreshPauses reads every user's pause setting and, for each user whose
// setting changed, puts it in force and asks for a scan of their tree. A
// user whose setting cannot be read keeps the last one known.
func (m *App) refreshPauses(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	users, err := m.Nextcloud.ListUsers(rctx)
	if err != nil {
		m.Logger.Warn("reading the users' pause settings failed", "error", err)
		return
	}
	prev := m.pausedUsers()
	next := map[hs.UserID]bool{}
	for _, u := range users {
		vals, err := m.Nextcloud.GetUserPreferences(rctx, u, pauseKey)
		if err != nil {
			if prev[u] {
				next[u] = true
			}
			m.Logger.Debug("reading a user's pause setting failed", "user_id", u, "error", err)
			continue
		}
		if isTrue(vals[pauseKey]) {
			next[u] = true
		}
	}
	if maps.Equal(prev, next) {
		return
	}
	m.paused.Store(&next)
	for u := range next {
		if !prev[u] {
			m.Logger.Info("a user paused the indexing of their files", "user_id", u)
			m.Scanner.Request(u)
		}
	}
	for u := range prev {
		if !next[u] {
			m.Logger.Info("a user resumed the indexing of their files", "user_id", u)
			m.Scanner.Request(u)
		}
	}
}

// pausedUsers are the users whose indexing is paused.
func (m *App) pausedUsers() map[hs.UserID]bool {
	if p := m.paused.Load(); p != nil {
		return *p
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

// withPaused is r with the paused users.
func (m *App) withPaused(r indexing.Rules) indexing.Rules {
	r.Paused = m.pausedUsers()
	return r
}
