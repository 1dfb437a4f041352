package exapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
	"github.com/hybrid-search/hybridsearch/nextcloud/webhook"
)

// Nextcloud is the part of the Nextcloud client the lifecycle uses. All
// calls are made without a user, as AppAPI requires.
type Nextcloud interface {
	SetInitProgress(ctx context.Context, progress int) error
	SetInitError(ctx context.Context, msg string) error
	RegisterTopMenu(ctx context.Context, m nextcloud.TopMenu) error
	UnregisterTopMenu(ctx context.Context, name string) error
	SetInitialState(ctx context.Context, menu, key string, value any) error
	RegisterScript(ctx context.Context, menu, path, afterAppID string) error
	RegisterStyle(ctx context.Context, menu, path string) error
	RegisterSettingsForm(ctx context.Context, f nextcloud.SettingsForm) error
	UnregisterSettingsForm(ctx context.Context, formID string) error
	RegisterFileAction(ctx context.Context, a nextcloud.FileAction) error
	UnregisterFileAction(ctx context.Context, name string) error
	ListWebhooks(ctx context.Context, uri string) ([]nextcloud.Webhook, error)
	CreateWebhook(ctx context.Context, s nextcloud.WebhookSpec) (nextcloud.Webhook, error)
	DeleteWebhook(ctx context.Context, id int) error
	DeleteWebhooksByApp(ctx context.Context, appID string) (int, error)
	AppEnabled(ctx context.Context) (bool, error)
}

// LiveReporter receives whether live updates (the app's webhooks) are on,
// and if not why: an hs.Live* code and a sentence naming the fix
// (*indexing.Live).
type LiveReporter interface {
	SetLive(enabled bool, code, reason string)
}

// What the status says when live updates are off.
const (
	reasonListenersOff = "The Nextcloud app webhook_listeners is disabled, so Nextcloud sends no file changes and they are found only by the reconciliation scan. Run: occ app:enable webhook_listeners"
	reasonAppDisabled  = "Hybrid Search is disabled in AppAPI, which removes its webhooks; enabling it registers them again."
	reasonMissing      = "%d of the app's %d webhooks are not registered in Nextcloud (deleted by hand?); disable and enable Hybrid Search to register them again."
)

// The names under which the app registers its UI.
const (
	MenuName        = "search"                 // top-menu entry: /apps/app_api/embedded/<app>/search
	MenuIcon        = "img/app.svg"            // served by the app
	ScriptPath      = "js/hybrid_search-main"  // without .js, as AppAPI wants
	StylePath       = "css/hybrid_search-main" // without .css
	InitialStateKey = "hybrid_search_info"     // loadState('app_api', key)
	WebhookURI      = "/webhook"               // where Nextcloud delivers file events (handlers.WebhookPath)
	filesPathFilter = `/^\/[^\/]+\/files\//`   // only /<uid>/files/..., not appdata or trash
)

// SimilarAction is the Files app's "Find similar" action. Its handler
// answers with a redirect to the panel (MenuName), which opens with the
// documents most similar to the chosen files. It shows for the MIME types
// the app indexes: AppAPI's files plugin matches when a file's type
// contains one of the comma-separated parts.
var SimilarAction = nextcloud.FileAction{
	Name: "find_similar", DisplayName: "Find similar", ActionHandler: "api/files/similar", Icon: "img/similar.svg", Order: 50,
	MIME: "text/, application/pdf, application/rtf, application/json, application/xml, application/xhtml, application/epub, " +
		"application/javascript, application/x-yaml, application/yaml, application/csv, message/rfc822, " +
		"application/vnd.oasis.opendocument, application/vnd.openxmlformats-officedocument, application/vnd.ms-",
}

// WebhookEvents are the file events the app registers webhooks for, with
// the payload key whose path the filter checks (two-node events carry
// source/target): the Register entries of webhook.FileEvents, which the
// webhook intake accepts.
var WebhookEvents = registeredEvents()

func registeredEvents() []struct{ Class, PathKey string } {
	var out []struct{ Class, PathKey string }
	for _, e := range webhook.FileEvents {
		if e.Register {
			out = append(out, struct{ Class, PathKey string }{e.Class, e.PathKey})
		}
	}
	return out
}

// InitStep is one part of initialization. Run may call report with the
// fraction of the step done (0..1) so long steps show progress.
type InitStep struct {
	Name string
	Run  func(ctx context.Context, report func(fraction float64)) error
}

// Lifecycle runs initialization and the enable/disable registrations.
// Create it with New.
type Lifecycle struct {
	nc          Nextcloud
	appID       string
	version     string
	displayName string
	steps       []InitStep
	forms       []nextcloud.SettingsForm
	actions     []nextcloud.FileAction
	onEnable    func(ctx context.Context) error
	onDisable   func(ctx context.Context) error
	rules       hs.SearchRules
	mcpURL      string
	live        LiveReporter
	logger      *slog.Logger
	ctx         context.Context // bounds background work; from Main

	// liveMu serializes SetEnabled and CheckLive, so a check that started
	// before an enable or disable cannot report the state from before it.
	liveMu   sync.Mutex
	liveCode string // the reason code last reported, "" while live

	mu      sync.Mutex
	running bool
	done    chan struct{} // closed when the current init ends

	// stateMu guards what SetSearchRules shares with the enable and
	// disable registrations.
	stateMu  sync.Mutex
	disabled bool   // disabled since the last enable: no UI to update
	posted   []byte // the initial state Nextcloud holds, if known
}

// Options configure a Lifecycle.
type Options struct {
	AppID, Version, DisplayName string
	// Steps run in order on /init; progress is reported after each.
	Steps []InitStep
	// SettingsForms are the declarative settings forms and FileActions the
	// Files app actions registered on enable and removed on disable.
	SettingsForms []nextcloud.SettingsForm
	FileActions   []nextcloud.FileAction
	// OnEnable, if non-nil, runs after the registrations on enable
	// (for example to start the first full scan); OnDisable before removal.
	OnEnable  func(ctx context.Context) error
	OnDisable func(ctx context.Context) error
	// SearchRules go to the panel in its initial state (PanelInfo), so its
	// checks, choices and defaults follow the server's; the zero value
	// means hs.DefaultSearchRules().
	SearchRules hs.SearchRules
	// MCPURL is PanelInfo.MCPURL.
	MCPURL string
	// Live, if non-nil, hears whether the webhooks are registered: on
	// enable and disable, and on every CheckLive.
	Live   LiveReporter
	Logger *slog.Logger // nil means slog.Default()
}

// PanelInfo is the panel's initial state (InitialStateKey), registered on
// enable: who the app is and the search rules it checks requests by.
type PanelInfo struct {
	AppID       string         `json:"app_id"`
	Version     string         `json:"version"`
	DisplayName string         `json:"display_name"`
	SearchRules hs.SearchRules `json:"search_rules"`
	// MCPURL is the MCP endpoint to give assistants: through AppAPI's
	// proxy, in the /index.php form, which works whether or not the
	// instance has pretty URLs and is the resource the OAuth metadata
	// names ("" when not configured).
	MCPURL string `json:"mcp_url,omitempty"`
}

// New returns a Lifecycle whose background work ends when ctx is done.
func New(ctx context.Context, nc Nextcloud, o Options) *Lifecycle {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Lifecycle{nc: nc, appID: o.AppID, version: o.Version, displayName: o.DisplayName, steps: o.Steps,
		forms: o.SettingsForms, actions: o.FileActions, onEnable: o.OnEnable, onDisable: o.OnDisable, rules: o.SearchRules.OrDefault(),
		mcpURL: o.MCPURL, live: o.Live, logger: o.Logger, ctx: ctx}
}

// StartInit runs the init steps in the background, reporting progress to
// Nextcloud, and returns at once. A call while one runs does nothing.
func (l *Lifecycle) StartInit() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running {
		return
	}
	l.running = true
	l.done = make(chan struct{})
	go l.runInit(l.done)
}

// WaitInit waits until the running initialization (if any) ends.
func (l *Lifecycle) WaitInit(ctx context.Context) error {
	l.mu.Lock()
	done := l.done
	l.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *Lifecycle) runInit(done chan struct{}) {
	defer func() {
		l.mu.Lock()
		l.running = false
		l.mu.Unlock()
		close(done)
	}()
	ctx := l.ctx
	report := func(p int) {
		if err := retry(ctx, func() error { return l.nc.SetInitProgress(ctx, p) }); err != nil {
			l.logger.Error("reporting init progress failed", "progress", p, "error", err)
		}
	}
	report(0)
	last := 0
	for i, step := range l.steps {
		start := time.Now()
		partial := func(f float64) {
			p := int((float64(i) + min(max(f, 0), 1)) * 100 / float64(len(l.steps)))
			if p > last && p < 100 {
				last = p
				report(p)
			}
		}
		if err := retry(ctx, func() error { return step.Run(ctx, partial) }); err != nil {
			msg := fmt.Sprintf("initialization step %q failed: %s", step.Name, hs.ErrorMessage(err))
			l.logger.Error("initialization failed", "step", step.Name, "error", err)
			if err := l.nc.SetInitError(ctx, msg); err != nil {
				l.logger.Error("reporting init error failed", "error", err)
			}
			return
		}
		l.logger.Info("initialization step done", "step", step.Name, "duration_ms", time.Since(start).Milliseconds())
		if p := (i + 1) * 100 / len(l.steps); p < 100 && p > last {
			last = p
			report(p)
		}
	}
	report(100)
}

// retry runs f until it succeeds, fails with a non-transient error, ctx
// ends, or 6 attempts were made, waiting 0.5 s, 1 s, 2 s, ... in between.
func retry(ctx context.Context, f func() error) error {
	wait := 500 * time.Millisecond
	var err error
	for attempt := 0; attempt < 6; attempt++ {
		if err = f(); err == nil || hs.ErrorKind(err) != hs.EUNAVAILABLE {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
		wait *= 2
	}
	return err
}

// SetEnabled registers the app's UI and webhooks (enabled) or removes them.
// Enabling twice leaves exactly one of each. Enabling fails while the
// Nextcloud app webhook_listeners is disabled, with an error naming the fix
// (AppAPI logs it and disables the app again).
func (l *Lifecycle) SetEnabled(ctx context.Context, enabled bool) error {
	l.liveMu.Lock()
	defer l.liveMu.Unlock()
	if !enabled {
		l.setLive(false, hs.LiveAppDisabled, reasonAppDisabled)
		return l.disable(ctx)
	}
	if err := l.registerUI(ctx); err != nil {
		return err
	}
	if err := l.registerWebhooks(ctx); err != nil {
		if errors.Is(err, nextcloud.ErrWebhookListenersDisabled) {
			l.setLive(false, hs.LiveWebhookListenersDisabled, reasonListenersOff)
			return &causedError{msg: "the Nextcloud app webhook_listeners is disabled, and Hybrid Search needs it to hear of file changes: " +
				"run occ app:enable webhook_listeners, then enable Hybrid Search again", err: err}
		}
		l.setLive(false, hs.LiveRegistrationFailed, "Registering the app's webhooks failed: "+hs.ErrorMessage(err))
		return err
	}
	l.setLive(true, "", "")
	if l.onEnable != nil {
		if err := l.onEnable(ctx); err != nil {
			return fmt.Errorf("enable: %w", err)
		}
	}
	l.logger.Info("app enabled: UI, settings forms, file actions and webhooks registered")
	return nil
}

func (l *Lifecycle) registerUI(ctx context.Context) error {
	menu := nextcloud.TopMenu{Name: MenuName, DisplayName: l.displayName, Icon: MenuIcon}
	if err := l.nc.RegisterTopMenu(ctx, menu); err != nil {
		return fmt.Errorf("register top menu: %w", err)
	}
	l.stateMu.Lock()
	l.disabled, l.posted = false, nil // enabling registers the state anew
	err := l.postState(ctx)
	l.stateMu.Unlock()
	if err != nil {
		return err
	}
	if err := l.nc.RegisterScript(ctx, MenuName, ScriptPath, ""); err != nil {
		return fmt.Errorf("register script: %w", err)
	}
	if err := l.nc.RegisterStyle(ctx, MenuName, StylePath); err != nil {
		return fmt.Errorf("register style: %w", err)
	}
	for _, f := range l.forms {
		if err := l.nc.RegisterSettingsForm(ctx, f); err != nil {
			return fmt.Errorf("register settings form %s: %w", f.ID, err)
		}
	}
	for _, a := range l.actions {
		if err := l.nc.RegisterFileAction(ctx, a); err != nil {
			return fmt.Errorf("register file action %s: %w", a.Name, err)
		}
	}
	return nil
}

// registerWebhooks makes the app's webhooks exactly WebhookEvents at
// WebhookURI: it keeps one correct registration per event, deletes
// duplicates and stale ones (those at another URI among them: earlier
// builds used /api/webhook), and creates what is missing.
func (l *Lifecycle) registerWebhooks(ctx context.Context) error {
	existing, err := l.nc.ListWebhooks(ctx, "")
	if err != nil {
		return fmt.Errorf("list webhooks: %w", err)
	}
	want := map[string]string{}
	for _, ev := range WebhookEvents {
		want[ev.Class] = ev.PathKey
	}
	have := map[string]bool{}
	for _, w := range existing {
		if w.AppID != l.appID {
			continue
		}
		key, ok := want[w.Event]
		if ok && !have[w.Event] && w.URI == WebhookURI && w.HTTPMethod == "POST" && fmt.Sprint(w.EventFilter[key]) == filesPathFilter {
			have[w.Event] = true
			continue
		}
		if err := l.nc.DeleteWebhook(ctx, w.ID); err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
			return fmt.Errorf("delete stale webhook %d: %w", w.ID, err)
		}
	}
	for _, ev := range WebhookEvents {
		if have[ev.Class] {
			continue
		}
		spec := nextcloud.WebhookSpec{
			HTTPMethod:  "POST",
			URI:         WebhookURI,
			Event:       ev.Class,
			EventFilter: map[string]any{ev.PathKey: filesPathFilter},
			Headers:     map[string]string{"Content-Type": "application/json"},
		}
		if _, err := l.nc.CreateWebhook(ctx, spec); err != nil {
			return fmt.Errorf("create webhook %s: %w", ev.Class, err)
		}
	}
	return nil
}

// SetSearchRules puts rules (new defaults after an admin changed them) in
// the panel's initial state: at once while the app is enabled, so a panel
// opened from now on starts with them, and on every later enable. AppAPI
// keeps one initial state per app, menu and key and replaces its value
// when it is set again (app_api v34.0.3,
// lib/Service/UI/InitialStateService.php setExAppInitialState:
// insertOrUpdate on the existing row's id), and the embedded page reads
// the states on every load (lib/Controller/TopMenuController.php
// viewExAppPage). Rules equal to those Nextcloud holds send nothing; after
// a failed call the next one sends them again.
func (l *Lifecycle) SetSearchRules(ctx context.Context, rules hs.SearchRules) error {
	l.stateMu.Lock()
	defer l.stateMu.Unlock()
	l.rules = rules.OrDefault()
	if l.disabled {
		return nil
	}
	return l.postState(ctx)
}

// postState registers the panel's initial state (PanelInfo) unless
// Nextcloud holds exactly it. Callers hold stateMu.
func (l *Lifecycle) postState(ctx context.Context) error {
	info := PanelInfo{AppID: l.appID, Version: l.version, DisplayName: l.displayName, SearchRules: l.rules, MCPURL: l.mcpURL}
	raw, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("register initial state: %w", err)
	}
	if bytes.Equal(raw, l.posted) {
		return nil
	}
	l.posted = nil
	if err := l.nc.SetInitialState(ctx, MenuName, InitialStateKey, info); err != nil {
		return fmt.Errorf("register initial state: %w", err)
	}
	l.posted = raw
	return nil
}

func (l *Lifecycle) disable(ctx context.Context) error {
	l.stateMu.Lock()
	l.disabled, l.posted = true, nil
	l.stateMu.Unlock()
	var errs []error
	if l.onDisable != nil {
		if err := l.onDisable(ctx); err != nil {
			errs = append(errs, fmt.Errorf("disable: %w", err))
		}
	}
	if _, err := l.nc.DeleteWebhooksByApp(ctx, l.appID); err != nil && !errors.Is(err, nextcloud.ErrWebhookListenersDisabled) {
		errs = append(errs, fmt.Errorf("delete webhooks: %w", err))
	}
	if err := l.nc.UnregisterTopMenu(ctx, MenuName); err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
		errs = append(errs, fmt.Errorf("unregister top menu: %w", err))
	}
	for _, f := range l.forms {
		if err := l.nc.UnregisterSettingsForm(ctx, f.ID); err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
			errs = append(errs, fmt.Errorf("unregister settings form %s: %w", f.ID, err))
		}
	}
	for _, a := range l.actions {
		if err := l.nc.UnregisterFileAction(ctx, a.Name); err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
			errs = append(errs, fmt.Errorf("unregister file action %s: %w", a.Name, err))
		}
	}
	if len(errs) == 0 {
		l.logger.Info("app disabled: UI, settings forms, file actions and webhooks removed")
	}
	return errors.Join(errs...)
}

// setLive tells the LiveReporter, if any. Callers hold liveMu.
func (l *Lifecycle) setLive(enabled bool, code, reason string) {
	l.liveCode = code
	if l.live != nil {
		l.live.SetLive(enabled, code, reason)
	}
}

// CheckLive finds out whether live updates are on without changing
// anything, for the status after a restart (AppAPI calls /enabled only when
// an admin enables the app) and to notice webhook_listeners being disabled
// later: it asks AppAPI whether the app is enabled (ex-app/state, which
// answers even while it is disabled, so nothing is logged then), and if
// so lists the webhooks and compares them with WebhookEvents. A check that
// fails changes nothing and returns the error.
func (l *Lifecycle) CheckLive(ctx context.Context) error {
	l.liveMu.Lock()
	defer l.liveMu.Unlock()
	enabled, err := l.nc.AppEnabled(ctx)
	if err != nil {
		return fmt.Errorf("check live updates: %w", err)
	}
	if !enabled {
		// After an enable that failed for want of webhook_listeners AppAPI
		// disables the app; that cause is the one to keep saying.
		if l.liveCode != hs.LiveWebhookListenersDisabled {
			l.setLive(false, hs.LiveAppDisabled, reasonAppDisabled)
		}
		return nil
	}
	hooks, err := l.nc.ListWebhooks(ctx, WebhookURI)
	if errors.Is(err, nextcloud.ErrWebhookListenersDisabled) {
		l.setLive(false, hs.LiveWebhookListenersDisabled, reasonListenersOff)
		return nil
	}
	if err != nil {
		return fmt.Errorf("check live updates: %w", err)
	}
	have := map[string]bool{}
	for _, w := range hooks {
		if w.AppID == l.appID {
			have[w.Event] = true
		}
	}
	missing := 0
	for _, ev := range WebhookEvents {
		if !have[ev.Class] {
			missing++
		}
	}
	if missing > 0 {
		l.setLive(false, hs.LiveWebhooksMissing, fmt.Sprintf(reasonMissing, missing, len(WebhookEvents)))
		return nil
	}
	l.setLive(true, "", "")
	return nil
}

// WatchLive runs CheckLive now and then every interval until ctx ends,
// each check bounded to 15 s; failures are logged at debug level (the
// state stays as it was).
func (l *Lifecycle) WatchLive(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		if err := l.CheckLive(cctx); err != nil && ctx.Err() == nil {
			l.logger.Debug("checking the webhooks failed", "error", err)
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// causedError is an error whose text is msg alone (AppAPI logs it as the
// reason /enabled failed) and whose cause is err.
type causedError struct {
	msg string
	err error
}

func (e *causedError) Error() string { return e.msg }
func (e *causedError) Unwrap() error { return e.err }
