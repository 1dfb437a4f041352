package app

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/search"
)

// adminSettings keeps the admin settings in force. It reads them from
// Nextcloud every interval, as Nextcloud does not tell an ExApp that its
// declarative settings changed (AppAPI's SetValueListener only stores
// them), and puts what changed in force: the embedding model and hosts
// (a new engine), the search defaults, the exclusion rules, the OCR
// languages, the scan interval and the chat model. Its dependencies are
// set before watch runs and not changed after; chat and panel are nil in
// a worker.
type adminSettings struct {
	env      Config // the environment, under the admin's values
	source   appConfigReader
	interval time.Duration
	engines  embeddingSwapper
	extract  *extractor
	rescan   func(hs.UserID)                       // asks for a scan ("" every user)
	chat     func(ctx context.Context, eff Config) // puts eff's chat model in use
	panel    func(ctx context.Context) error       // puts the serving search rules in the panel's initial state
	logger   *slog.Logger

	mu       sync.Mutex // serializes refresh
	state    atomic.Pointer[settingsState]
	rules    atomic.Pointer[indexing.Rules] // exclusions in force, but the paused users
	scanTick chan struct{}                  // the scan interval changed
}

// appConfigReader reads the app's config values: *nextcloud.Client.
type appConfigReader interface {
	GetAppConfig(ctx context.Context, keys ...string) (map[string]string, error)
}

// embeddingSwapper is what the settings change of the engines (*engines).
type embeddingSwapper interface {
	indexingConfig() Config
	swap(ctx context.Context, cfg Config) error
	setDefaults(d search.Defaults)
}

// newAdminSettings returns the admin settings over env, read from source
// every interval; load reads them first.
func newAdminSettings(env Config, source appConfigReader, logger *slog.Logger) *adminSettings {
	return &adminSettings{env: env, source: source, interval: env.SettingsInterval, logger: logger, scanTick: make(chan struct{}, 1)}
}

// load reads the admin settings once at start, for at most 3 seconds:
// Nextcloud may not be up, or the app not yet enabled (AppAPI refuses a
// disabled app's calls), and then the environment applies until watch
// reads them. It returns the configuration in force.
func (s *adminSettings) load(ctx context.Context) Config {
	st := &settingsState{effective: s.env, readAt: time.Now()}
	rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	values, err := s.source.GetAppConfig(rctx, adminKeys()...)
	if err != nil {
		st.readErr = err
		s.logger.Info("admin settings not read at start; the environment applies until they are", "error", err)
	} else {
		st.values = values
		st.effective, st.problems = applyAdmin(s.env, values)
	}
	s.state.Store(st)
	rules := rulesOf(st.effective)
	s.rules.Store(&rules)
	return st.effective
}

// startedWithEnv records that the admin's embedding settings could not be
// applied at start (err), so the environment's model and hosts are in
// force until watch tries them again, and returns the configuration in
// force.
func (s *adminSettings) startedWithEnv(err error) Config {
	st := *s.state.Load()
	st.swapErr, st.failures, st.retryAt = err, 1, time.Now().Add(s.interval)
	st.effective = withEngine(st.effective, s.env)
	s.state.Store(&st)
	return st.effective
}

// effective is the configuration in force: the environment with the
// admin's settings on top.
func (s *adminSettings) effective() Config { return s.state.Load().effective }

// exclusions are the exclusion rules in force, but the paused users.
func (s *adminSettings) exclusions() indexing.Rules { return *s.rules.Load() }

// watch reads the admin settings every interval and applies what changed,
// until ctx ends.
func (s *adminSettings) watch(ctx context.Context) {
	every(ctx, s.interval, s.refresh)
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

// refresh reads the admin settings now and applies them.
func (s *adminSettings) refresh(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	values, err := s.source.GetAppConfig(rctx, adminKeys()...)
	cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := s.state.Load()
	if err != nil {
		if prev.readErr == nil {
			s.logger.Warn("reading the admin settings failed; the last ones stay in force", "error", err)
		}
		next := *prev
		next.readErr = err
		s.state.Store(&next)
		return
	}
	s.apply(ctx, prev, values)
	s.syncPanel(ctx)
}

// syncPanel puts the search rules in force, with the admin's defaults, in
// the panel's initial state, so a panel opened after an admin change
// starts with them. The panel sends nothing while Nextcloud holds them
// (exapp.Lifecycle.SetSearchRules); after a failure the next read tries
// again. Callers hold mu.
func (s *adminSettings) syncPanel(ctx context.Context) {
	if s.panel == nil {
		return // a worker has no UI
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.panel(rctx); err != nil && ctx.Err() == nil {
		s.logger.Warn("the panel's initial state keeps the previous search defaults until the next try", "error", err)
	}
}

// apply puts the admin values in force: the embedding model and hosts (a
// new engine), the search defaults, the exclusion rules (then a scan,
// which queues files that the rules now decide differently about) and the
// scan interval. A model that cannot be opened leaves the engine in use
// and is tried again, less and less often. Callers hold mu.
func (s *adminSettings) apply(ctx context.Context, prev *settingsState, values map[string]string) {
	now := time.Now()
	if prev.readErr == nil && maps.Equal(prev.values, values) && (prev.swapErr == nil || now.Before(prev.retryAt)) {
		return
	}
	eff, problems := applyAdmin(s.env, values)
	old := prev.effective
	st := &settingsState{values: values, problems: problems, readAt: now}
	if cur := s.engines.indexingConfig(); !sameEngine(cur, eff) {
		if err := s.engines.swap(ctx, eff); err != nil {
			s.logger.Warn("the new embedding settings could not be applied; the previous ones stay in force", "error", err)
			st.swapErr, st.failures = err, prev.failures+1
			st.retryAt = now.Add(min(s.interval<<min(st.failures, 10), 5*time.Minute))
			eff = withEngine(eff, cur)
		}
	}
	s.engines.setDefaults(search.Defaults{Fusion: eff.SearchFusion, Weights: eff.SearchWeights})
	if !slices.Equal(old.OCRLanguages, eff.OCRLanguages) {
		s.extract.setOCRLanguages(eff.OCRLanguages)
	}
	if !sameRules(old, eff) {
		s.extract.setLimit(eff.MaxFileSize)
		rules := rulesOf(eff)
		s.rules.Store(&rules)
		s.rescan("")
	}
	st.effective = eff
	s.state.Store(st)
	if s.chat != nil {
		s.chat(ctx, eff)
	}
	if eff.ScanInterval != old.ScanInterval {
		select {
		case s.scanTick <- struct{}{}:
		default: // a change is already signalled; the ticker reads the latest
		}
	}
	if len(problems) > 0 {
		s.logger.Warn("some admin settings cannot be used; their environment values stay", "problems", problemText(problems))
	}
	s.logger.Info("admin settings applied", "model", eff.EmbedModel, "hosts", eff.OllamaHosts, "fusion", eff.SearchFusion,
		"weights", eff.SearchWeights, "exclude_paths", eff.ExcludePaths, "exclude_mime", eff.ExcludeMIME,
		"max_file_size", eff.MaxFileSize, "scan_interval", eff.ScanInterval)
}

// runScanTicker requests a full scan every scan interval in force (0:
// none), taking a new interval whenever the settings change it, until ctx
// ends.
func (s *adminSettings) runScanTicker(ctx context.Context) {
	every := s.effective().ScanInterval
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
			s.rescan("")
		case <-s.scanTick:
			d := s.effective().ScanInterval
			if d != every {
				every = d
				reset(d)
				s.logger.Info("scan interval changed", "scan_interval", d)
			}
		}
	}
}

// check is the "settings" component of the status: an error names the
// admin values that could not be used or read.
func (s *adminSettings) check(context.Context) error {
	st := s.state.Load()
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
