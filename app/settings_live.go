package app

import (
	"context"
	"maps"
	"slices"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/search"
)

// initialSettings reads the admin settings once at start, for at most 3
// seconds: Nextcloud may not be up, or the app not yet enabled (AppAPI
// refuses a disabled app's calls), and then the environment applies until
// the watcher reads them.
func (m *App) initialSettings(ctx context.Context) Config {
	st := &settingsState{effective: m.Config, readAt: time.Now()}
	rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	values, err := m.Nextcloud.GetAppConfig(rctx, adminKeys()...)
	if err != nil {
		st.readErr = err
		m.Logger.Info("admin settings not read at start; the environment applies until they are", "error", err)
	} else {
		st.values = values
		st.effective, st.problems = applyAdmin(m.Config, values)
	}
	m.settings.Store(st)
	return st.effective
}

// effective is the configuration in force: the environment with the
// admin's settings on top.
func (m *App) effective() Config { return m.settings.Load().effective }

// currentRules are the exclusion rules in force.
func (m *App) currentRules() indexing.Rules { return m.pauses.with(*m.rules.Load()) }

// watchSettings reads the admin settings every SettingsInterval and applies
// what changed, until ctx ends. Nextcloud does not tell an ExApp that its
// declarative settings changed (AppAPI's SetValueListener only stores
// them), so reading is the only way.
func (m *App) watchSettings(ctx context.Context) {
	every(ctx, m.Config.SettingsInterval, m.refreshSettings)
}

// every calls f every d until ctx ends.
func every(ctx context.Context, d time.Duration, f func(context.Context)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f(ctx)
		}
	}
}

// refreshSettings reads the admin settings now and applies them.
func (m *App) refreshSettings(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	values, err := m.Nextcloud.GetAppConfig(rctx, adminKeys()...)
	cancel()
	m.setMu.Lock()
	defer m.setMu.Unlock()
	prev := m.settings.Load()
	if err != nil {
		if prev.readErr == nil {
			m.Logger.Warn("reading the admin settings failed; the last ones stay in force", "error", err)
		}
		next := *prev
		next.readErr = err
		m.settings.Store(&next)
		return
	}
	m.applySettings(ctx, prev, values)
	m.syncPanelState(ctx)
}

// syncPanelState puts the search rules in force, with the admin's
// defaults, in the panel's initial state, so a panel opened after an admin
// change starts with them. It sends nothing while Nextcloud holds them
// (exapp.Lifecycle.SetSearchRules) and tries again on the next read after
// a failure. Callers hold setMu.
func (m *App) syncPanelState(ctx context.Context) {
	if m.Lifecycle == nil {
		return // a worker has no UI
	}
	e := m.acquire()
	rules := e.Search.Rules()
	e.release()
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := m.Lifecycle.SetSearchRules(rctx, rules); err != nil && ctx.Err() == nil {
		m.Logger.Warn("the panel's initial state keeps the previous search defaults until the next try", "error", err)
	}
}

// applySettings puts the admin values in force: the embedding model and
// hosts (a new engine), the search defaults, the exclusion rules (then a
// scan, which queues files that the rules now decide differently about)
// and the scan interval. A model that cannot be opened leaves the engine
// in use and is tried again, less and less often. Callers hold setMu.
func (m *App) applySettings(ctx context.Context, prev *settingsState, values map[string]string) {
	now := time.Now()
	if prev.readErr == nil && maps.Equal(prev.values, values) && (prev.swapErr == nil || now.Before(prev.retryAt)) {
		return
	}
	eff, problems := applyAdmin(m.Config, values)
	old := prev.effective
	st := &settingsState{values: values, problems: problems, readAt: now}
	if cur := m.Engine(); !sameEngine(cur.Config, eff) {
		if err := m.swapEngine(ctx, eff); err != nil {
			m.Logger.Warn("the new embedding settings could not be applied; the previous ones stay in force", "error", err)
			st.swapErr, st.failures = err, prev.failures+1
			st.retryAt = now.Add(min(m.Config.SettingsInterval<<min(st.failures, 10), 5*time.Minute))
			eff = withEngine(eff, cur.Config)
		}
	}
	for _, e := range []*Engine{m.acquire(), m.acquireIndexing()} {
		if err := e.Search.SetDefaults(search.Defaults{Fusion: eff.SearchFusion, Weights: eff.SearchWeights}); err != nil {
			m.Logger.Warn("search defaults refused", "error", err) // applyAdmin checked them: not expected
		}
		e.release()
	}
	if !slices.Equal(old.OCRLanguages, eff.OCRLanguages) {
		m.extract.setOCRLanguages(eff.OCRLanguages)
	}
	if !sameRules(old, eff) {
		m.extract.setLimit(eff.MaxFileSize)
		rules := rulesOf(eff)
		m.rules.Store(&rules)
		m.Scanner.Request("")
	}
	st.effective = eff
	m.settings.Store(st)
	if m.Answer != nil && m.applyChat(eff) {
		go m.syncAssistant(ctx)
	}
	if eff.ScanInterval != old.ScanInterval {
		select {
		case m.scanTick <- struct{}{}:
		default: // a change is already signalled; the ticker reads the latest
		}
	}
	if len(problems) > 0 {
		m.Logger.Warn("some admin settings cannot be used; their environment values stay", "problems", problemText(problems))
	}
	m.Logger.Info("admin settings applied", "model", eff.EmbedModel, "hosts", eff.OllamaHosts, "fusion", eff.SearchFusion,
		"weights", eff.SearchWeights, "exclude_paths", eff.ExcludePaths, "exclude_mime", eff.ExcludeMIME,
		"max_file_size", eff.MaxFileSize, "scan_interval", eff.ScanInterval)
}

// runScanTicker requests a full scan every scan interval (0: none), taking
// a new interval whenever the settings change it, until ctx ends.
func (m *App) runScanTicker(ctx context.Context, every time.Duration) {
	var t *time.Ticker
	var tick <-chan time.Time
	reset := func(d time.Duration) {
		if t != nil {
			t.Stop()
			t, tick = nil, nil
		}
		if d > 0 {
			t = time.NewTicker(d)
			tick = t.C
		}
	}
	reset(every)
	defer reset(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			m.Scanner.Request("")
		case <-m.scanTick:
			d := m.effective().ScanInterval
			if d != every {
				every = d
				reset(d)
				m.Logger.Info("scan interval changed", "scan_interval", d)
			}
		}
	}
}

// checkSettings is the "settings" component of the status: an error names
// the admin values that could not be used or read.
func (m *App) checkSettings(context.Context) error {
	st := m.settings.Load()
	var msg, code string // the code of the gravest state
	if len(st.problems) > 0 {
		msg, code = "values not used (the environment's apply): "+problemText(st.problems), hs.ComponentSettingsIgnored
	}
	if st.swapErr != nil {
		msg, code = join(msg, "the embedding settings could not be applied: "+hs.ErrorMessage(st.swapErr)), hs.ComponentSettingsNotApplied
	}
	if st.readErr != nil {
		msg, code = join(msg, "the admin settings could not be read from Nextcloud: "+hs.ErrorMessage(st.readErr)), hs.ComponentSettingsUnreadable
	}
	if msg != "" {
		return hs.Errorf(hs.EINVALID, "%s", msg).WithCode(code)
	}
	return nil
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// panelSettings is GET /api/settings: what the panel needs to know of the
// settings in force.
type panelSettings struct {
	Fusion   string     `json:"fusion"`  // the default fusion
	Weights  hs.Weights `json:"weights"` // the default weights
	Semantic bool       `json:"semantic"`
	Model    string     `json:"model,omitempty"`
	// Reindexing names the model of a new index that is being filled;
	// searches use the previous one until it has caught up.
	Reindexing string `json:"reindexing,omitempty"`
	// Problems are settings the admin entered that are not in force, for
	// admins only.
	Problems string `json:"problems,omitempty"`
	// Ask says whether asking your files (POST /api/ask) is on, and with
	// which chat model.
	Ask askSettings `json:"ask"`
}

// askSettings is panelSettings.Ask.
type askSettings struct {
	Enabled bool   `json:"enabled"`
	Model   string `json:"model,omitempty"`
}

// PanelSettings serves GET /api/settings.
func (c current) PanelSettings(ctx context.Context, user hs.UserID) (any, error) {
	e := c.m.acquire()
	d := e.Search.Defaults()
	out := panelSettings{Fusion: d.Fusion, Weights: d.Weights, Semantic: e.Embedder != nil}
	if out.Semantic {
		out.Model = e.Config.EmbedModel
	}
	if next := c.m.Engine(); next != e {
		out.Reindexing = "none (keyword and fuzzy only)"
		if next.Embedder != nil {
			out.Reindexing = next.Config.EmbedModel
		}
	}
	e.release()
	if c.m.Answer != nil {
		out.Ask.Model = c.m.Answer.ModelName()
		out.Ask.Enabled = out.Ask.Model != ""
	}
	if admin, err := c.m.Nextcloud.IsAdmin(ctx, user); err == nil && admin {
		if err := c.m.checkSettings(ctx); err != nil {
			out.Problems = hs.ErrorMessage(err)
		}
	}
	return out, nil
}
