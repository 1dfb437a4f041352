package exapp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/exapp"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

// fakeNC is an in-memory stand-in for the Nextcloud calls the lifecycle makes.
type fakeNC struct {
	mu        sync.Mutex
	progress  []int
	initErr   string
	menus     map[string]nextcloud.TopMenu
	scripts   []string
	styles    []string
	states    map[string]any
	forms     map[string]nextcloud.SettingsForm
	actions   map[string]nextcloud.FileAction
	hooks     map[int]nextcloud.Webhook
	nextID    int
	failUntil int // calls to SetInitProgress fail with EUNAVAILABLE until this many were made
	calls     int
	stateSets int   // SetInitialState calls
	stateErr  error // if set, SetInitialState fails with it
	hooksOff  bool  // webhook_listeners is disabled: its API answers 404
	listErr   error // if set, ListWebhooks fails with it
	disabled  bool  // AppAPI has the app disabled
}

// hooksErr is the error the webhook API gives while webhook_listeners is
// off, as nextcloud.Client returns it.
func (f *fakeNC) hooksErr() error {
	if f.hooksOff {
		return hs.Errorf(hs.EUNAVAILABLE, "nextcloud: %w (GET …: 404 Not Found)", nextcloud.ErrWebhookListenersDisabled)
	}
	return nil
}
func (f *fakeNC) AppEnabled(ctx context.Context) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.disabled, nil
}

func newFake() *fakeNC {
	return &fakeNC{menus: map[string]nextcloud.TopMenu{}, states: map[string]any{}, hooks: map[int]nextcloud.Webhook{}, nextID: 1,
		forms: map[string]nextcloud.SettingsForm{}, actions: map[string]nextcloud.FileAction{}}
}

func (f *fakeNC) SetInitProgress(ctx context.Context, p int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls <= f.failUntil {
		return hs.Errorf(hs.EUNAVAILABLE, "nextcloud: down")
	}
	f.progress = append(f.progress, p)
	return nil
}
func (f *fakeNC) SetInitError(ctx context.Context, msg string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.initErr = msg
	return nil
}
func (f *fakeNC) RegisterTopMenu(ctx context.Context, m nextcloud.TopMenu) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.menus[m.Name] = m
	return nil
}
func (f *fakeNC) UnregisterTopMenu(ctx context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.menus[name]; !ok {
		return hs.Errorf(hs.ENOTFOUND, "no menu")
	}
	delete(f.menus, name)
	f.scripts, f.styles = nil, nil
	return nil
}
func (f *fakeNC) SetInitialState(ctx context.Context, menu, key string, value any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stateSets++
	if f.stateErr != nil {
		return f.stateErr
	}
	f.states[key] = value
	return nil
}
func (f *fakeNC) RegisterScript(ctx context.Context, menu, path, after string) error {
	if !contains(f.scripts, path) {
		f.scripts = append(f.scripts, path)
	}
	return nil
}
func (f *fakeNC) RegisterStyle(ctx context.Context, menu, path string) error {
	if !contains(f.styles, path) {
		f.styles = append(f.styles, path)
	}
	return nil
}
func (f *fakeNC) RegisterSettingsForm(ctx context.Context, form nextcloud.SettingsForm) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forms[form.ID] = form
	return nil
}
func (f *fakeNC) UnregisterSettingsForm(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.forms[id]; !ok {
		return hs.Errorf(hs.ENOTFOUND, "no form")
	}
	delete(f.forms, id)
	return nil
}
func (f *fakeNC) RegisterFileAction(ctx context.Context, a nextcloud.FileAction) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.actions[a.Name] = a
	return nil
}
func (f *fakeNC) UnregisterFileAction(ctx context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.actions[name]; !ok {
		return hs.Errorf(hs.ENOTFOUND, "no action")
	}
	delete(f.actions, name)
	return nil
}
func (f *fakeNC) ListWebhooks(ctx context.Context, uri string) ([]nextcloud.Webhook, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.hooksErr(); err != nil {
		return nil, err
	}
	if f.listErr != nil {
		return nil, f.listErr
	}
	var out []nextcloud.Webhook
	for id := 1; id < f.nextID; id++ {
		if w, ok := f.hooks[id]; ok && (uri == "" || w.URI == uri) {
			out = append(out, w)
		}
	}
	return out, nil
}
func (f *fakeNC) CreateWebhook(ctx context.Context, s nextcloud.WebhookSpec) (nextcloud.Webhook, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.hooksErr(); err != nil {
		return nextcloud.Webhook{}, err
	}
	filter, _ := s.EventFilter.(map[string]any)
	w := nextcloud.Webhook{ID: f.nextID, AppID: "hybrid_search", HTTPMethod: s.HTTPMethod, URI: s.URI, Event: s.Event, EventFilter: filter}
	f.hooks[w.ID] = w
	f.nextID++
	return w, nil
}
func (f *fakeNC) DeleteWebhook(ctx context.Context, id int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.hooks, id)
	return nil
}
func (f *fakeNC) DeleteWebhooksByApp(ctx context.Context, appID string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.hooksErr(); err != nil {
		return 0, err
	}
	n := 0
	for id, w := range f.hooks {
		if w.AppID == appID {
			delete(f.hooks, id)
			n++
		}
	}
	return n, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func newLifecycle(f *fakeNC, steps ...exapp.InitStep) *exapp.Lifecycle {
	return exapp.New(context.Background(), f, exapp.Options{AppID: "hybrid_search", Version: "0.1.0", DisplayName: "Hybrid Search", Steps: steps})
}

func TestInitReportsProgress(t *testing.T) {
	f := newFake()
	ok := func(ctx context.Context, report func(float64)) error { return nil }
	l := newLifecycle(f, exapp.InitStep{Name: "a", Run: ok}, exapp.InitStep{Name: "b", Run: ok}, exapp.InitStep{Name: "c", Run: ok}, exapp.InitStep{Name: "d", Run: ok})
	l.StartInit()
	l.StartInit() // a second call while running does nothing
	if err := l.WaitInit(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []int{0, 25, 50, 75, 100}
	if fmt.Sprint(f.progress) != fmt.Sprint(want) {
		t.Errorf("progress = %v, want %v", f.progress, want)
	}
	if f.initErr != "" {
		t.Errorf("init error = %q", f.initErr)
	}
}

func TestInitStepReportsFraction(t *testing.T) {
	f := newFake()
	l := newLifecycle(f, exapp.InitStep{Name: "scan", Run: func(ctx context.Context, report func(float64)) error {
		report(0.5)
		return nil
	}})
	l.StartInit()
	_ = l.WaitInit(context.Background())
	if fmt.Sprint(f.progress) != fmt.Sprint([]int{0, 50, 100}) {
		t.Errorf("progress = %v, want [0 50 100]", f.progress)
	}
}

func TestInitFailureReportsError(t *testing.T) {
	f := newFake()
	l := newLifecycle(f,
		exapp.InitStep{Name: "reach store", Run: func(ctx context.Context, report func(float64)) error {
			return hs.Errorf(hs.EINVALID, "collection has dimension 384, model gives 768")
		}},
		exapp.InitStep{Name: "never", Run: func(ctx context.Context, report func(float64)) error {
			t.Error("step after a failure ran")
			return nil
		}})
	l.StartInit()
	_ = l.WaitInit(context.Background())
	if !strings.Contains(f.initErr, `"reach store"`) || !strings.Contains(f.initErr, "dimension 384") {
		t.Errorf("init error = %q", f.initErr)
	}
	for _, p := range f.progress {
		if p == 100 {
			t.Error("progress reached 100 after a failure")
		}
	}
}

func TestInitRetriesTransientErrors(t *testing.T) {
	f := newFake()
	f.failUntil = 2 // the first two progress reports fail
	attempts := 0
	l := newLifecycle(f, exapp.InitStep{Name: "flaky", Run: func(ctx context.Context, report func(float64)) error {
		attempts++
		if attempts < 2 {
			return hs.Errorf(hs.EUNAVAILABLE, "nats: not yet")
		}
		return nil
	}})
	start := time.Now()
	l.StartInit()
	_ = l.WaitInit(context.Background())
	if attempts != 2 || f.initErr != "" || f.progress[len(f.progress)-1] != 100 {
		t.Errorf("attempts = %d, err = %q, progress = %v", attempts, f.initErr, f.progress)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("retries took %s", time.Since(start))
	}
}

func TestEnableIsIdempotentAndRepairsWebhooks(t *testing.T) {
	f := newFake()
	l := newLifecycle(f)
	ctx := context.Background()
	// A stale registration (wrong filter) and a duplicate exist beforehand.
	_, _ = f.CreateWebhook(ctx, nextcloud.WebhookSpec{HTTPMethod: "POST", URI: exapp.WebhookURI, Event: exapp.WebhookEvents[0].Class, EventFilter: map[string]any{"event.node.path": "/old/"}})
	good := nextcloud.WebhookSpec{HTTPMethod: "POST", URI: exapp.WebhookURI, Event: exapp.WebhookEvents[1].Class, EventFilter: map[string]any{exapp.WebhookEvents[1].PathKey: `/^\/[^\/]+\/files\//`}}
	_, _ = f.CreateWebhook(ctx, good)
	_, _ = f.CreateWebhook(ctx, good)
	for i := 0; i < 2; i++ {
		if err := l.SetEnabled(ctx, true); err != nil {
			t.Fatal(err)
		}
	}
	hooks, _ := f.ListWebhooks(ctx, exapp.WebhookURI)
	if len(hooks) != len(exapp.WebhookEvents) {
		t.Fatalf("%d webhooks, want %d", len(hooks), len(exapp.WebhookEvents))
	}
	seen := map[string]bool{}
	for _, w := range hooks {
		if seen[w.Event] {
			t.Errorf("duplicate webhook for %s", w.Event)
		}
		seen[w.Event] = true
		if fmt.Sprint(w.EventFilter) == "map[event.node.path:/old/]" {
			t.Errorf("stale webhook kept")
		}
	}
	if len(f.menus) != 1 || len(f.scripts) != 1 || len(f.styles) != 1 || f.states[exapp.InitialStateKey] == nil {
		t.Errorf("UI: menus %v scripts %v styles %v states %v", f.menus, f.scripts, f.styles, f.states)
	}
	if err := l.SetEnabled(ctx, false); err != nil {
		t.Fatal(err)
	}
	if hooks, _ := f.ListWebhooks(ctx, ""); len(hooks) != 0 || len(f.menus) != 0 {
		t.Errorf("after disable: %d webhooks, %d menus", len(hooks), len(f.menus))
	}
	// Disabling twice is harmless (the menu is already gone).
	if err := l.SetEnabled(ctx, false); err != nil {
		t.Errorf("second disable: %v", err)
	}
}

// TestEnableMovesWebhooksOffTheProxiedPath: earlier builds registered
// their webhooks at /api/webhook, which info.xml's api/ route
// let users reach through the proxy. Enabling replaces them with ones at
// WebhookURI and leaves other apps' webhooks alone.
func TestEnableMovesWebhooksOffTheProxiedPath(t *testing.T) {
	f := newFake()
	l := newLifecycle(f)
	ctx := context.Background()
	for _, ev := range exapp.WebhookEvents {
		_, _ = f.CreateWebhook(ctx, nextcloud.WebhookSpec{HTTPMethod: "POST", URI: "/api/webhook", Event: ev.Class,
			EventFilter: map[string]any{ev.PathKey: `/^\/[^\/]+\/files\//`}})
	}
	other, _ := f.CreateWebhook(ctx, nextcloud.WebhookSpec{HTTPMethod: "POST", URI: "/api/webhook", Event: exapp.WebhookEvents[0].Class})
	f.mu.Lock()
	other.AppID = "another_app"
	f.hooks[other.ID] = other
	f.mu.Unlock()
	if err := l.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	if exapp.WebhookURI != "/webhook" {
		t.Errorf("WebhookURI = %q, want /webhook", exapp.WebhookURI)
	}
	hooks, _ := f.ListWebhooks(ctx, "")
	ours := 0
	for _, w := range hooks {
		switch {
		case w.AppID != "hybrid_search":
			if w.ID != other.ID {
				t.Errorf("unexpected webhook %+v", w)
			}
		case w.URI != exapp.WebhookURI:
			t.Errorf("webhook %d still at %s", w.ID, w.URI)
		default:
			ours++
		}
	}
	if ours != len(exapp.WebhookEvents) || len(hooks) != ours+1 {
		t.Errorf("%d webhooks of ours (want %d), %d in all; another app's must stay", ours, len(exapp.WebhookEvents), len(hooks))
	}
}

func TestEnableHookErrors(t *testing.T) {
	f := newFake()
	l := exapp.New(context.Background(), f, exapp.Options{AppID: "hybrid_search", DisplayName: "Hybrid Search",
		OnEnable: func(ctx context.Context) error { return errors.New("scan could not start") }})
	if err := l.SetEnabled(context.Background(), true); err == nil || !strings.Contains(err.Error(), "scan could not start") {
		t.Errorf("SetEnabled = %v, want the hook's error", err)
	}
}

// TestInitialStateCarriesTheSearchRules: the panel's initial state names
// the app and carries the search rules the server checks requests by,
// with the defaults the app was given.
func TestInitialStateCarriesTheSearchRules(t *testing.T) {
	rules, err := hs.DefaultSearchRules().WithDefaults(hs.SearchDefaults{Fusion: hs.FusionLinear})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		rules  hs.SearchRules
		fusion string
	}{{"default rules", hs.SearchRules{}, hs.FusionRRF}, {"rules given", rules, hs.FusionLinear}} {
		f := newFake()
		l := exapp.New(context.Background(), f, exapp.Options{AppID: "hybrid_search", Version: "1.2.3", DisplayName: "Hybrid Search", SearchRules: tt.rules})
		if err := l.SetEnabled(context.Background(), true); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(f.states[exapp.InitialStateKey])
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			AppID       string         `json:"app_id"`
			Version     string         `json:"version"`
			SearchRules hs.SearchRules `json:"search_rules"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if got.AppID != "hybrid_search" || got.Version != "1.2.3" || got.SearchRules.MaxTopK != 50 || got.SearchRules.MaxQueryRunes != 1000 ||
			got.SearchRules.Defaults.Fusion != tt.fusion || len(got.SearchRules.Algorithms) != 4 {
			t.Errorf("%s: initial state %s", tt.name, b)
		}
	}
}

// TestSetSearchRulesUpdatesTheInitialState: new defaults reach the
// panel's initial state at once while the app is enabled, once; a failed
// call is made again next time; while disabled they wait for the enable.
func TestSetSearchRulesUpdatesTheInitialState(t *testing.T) {
	ctx := context.Background()
	defaultsIn := func(f *fakeNC) hs.SearchDefaults {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.states[exapp.InitialStateKey].(exapp.PanelInfo).SearchRules.Defaults
	}
	withWeights := func(w hs.Weights) hs.SearchRules {
		r, err := hs.DefaultSearchRules().WithDefaults(hs.SearchDefaults{Fusion: hs.FusionLinear, Weights: w})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	f := newFake()
	l := exapp.New(ctx, f, exapp.Options{AppID: "hybrid_search", DisplayName: "Hybrid Search"})
	if err := l.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	sets := f.stateSets
	if err := l.SetSearchRules(ctx, hs.DefaultSearchRules()); err != nil || f.stateSets != sets {
		t.Errorf("the same rules again: %v, %d calls, want none", err, f.stateSets-sets)
	}
	w := hs.Weights{Semantic: 0.2, Keyword: 0.7, Fuzzy: 0.1}
	if err := l.SetSearchRules(ctx, withWeights(w)); err != nil {
		t.Fatal(err)
	}
	if d := defaultsIn(f); d.Fusion != hs.FusionLinear || d.Weights != w || f.stateSets != sets+1 {
		t.Errorf("defaults in the initial state %+v after %d calls, want linear %v after 1", d, f.stateSets-sets, w)
	}
	// Nextcloud fails the call: the next one sends the rules again.
	f.stateErr = hs.Errorf(hs.EUNAVAILABLE, "nextcloud: down")
	w2 := hs.Weights{Semantic: 0.1, Keyword: 0.8, Fuzzy: 0.1}
	if err := l.SetSearchRules(ctx, withWeights(w2)); err == nil {
		t.Error("SetSearchRules with Nextcloud down succeeded")
	}
	f.stateErr = nil
	if err := l.SetSearchRules(ctx, withWeights(w2)); err != nil || defaultsIn(f).Weights != w2 {
		t.Errorf("after the failure: %v, defaults %+v", err, defaultsIn(f))
	}
	// Disabled: nothing is registered until the app is enabled again.
	if err := l.SetEnabled(ctx, false); err != nil {
		t.Fatal(err)
	}
	sets = f.stateSets
	if err := l.SetSearchRules(ctx, withWeights(w)); err != nil || f.stateSets != sets {
		t.Errorf("while disabled: %v, %d calls, want none", err, f.stateSets-sets)
	}
	if err := l.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	if d := defaultsIn(f); d.Weights != w {
		t.Errorf("defaults in the initial state after enable %+v, want %v", d, w)
	}
}

func TestEnableRegistersFormsAndFileActions(t *testing.T) {
	f := newFake()
	form := nextcloud.SettingsForm{ID: "hs_admin", SectionType: "admin", SectionID: "declarative_settings", Title: "Hybrid Search",
		Fields: []nextcloud.SettingsField{{ID: "embed_model", Title: "Model", Type: "text"}}}
	action := nextcloud.FileAction{Name: "similar", DisplayName: "Find similar", ActionHandler: "api/files/similar", MIME: "text/"}
	l := exapp.New(context.Background(), f, exapp.Options{AppID: "hybrid_search", DisplayName: "Hybrid Search",
		SettingsForms: []nextcloud.SettingsForm{form}, FileActions: []nextcloud.FileAction{action}})
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := l.SetEnabled(ctx, true); err != nil {
			t.Fatal(err)
		}
	}
	if len(f.forms) != 1 || f.forms["hs_admin"].Title != "Hybrid Search" || len(f.actions) != 1 || f.actions["similar"].ActionHandler != "api/files/similar" {
		t.Errorf("after enable: forms %v, actions %v", f.forms, f.actions)
	}
	for i := 0; i < 2; i++ {
		if err := l.SetEnabled(ctx, false); err != nil {
			t.Fatalf("disable %d: %v", i+1, err)
		}
		if len(f.forms) != 0 || len(f.actions) != 0 {
			t.Errorf("after disable: forms %v, actions %v", f.forms, f.actions)
		}
	}
}

// fakeLive records what the lifecycle says about live updates.
type fakeLive struct {
	mu      sync.Mutex
	set     bool
	enabled bool
	code    string
	reason  string
}

func (l *fakeLive) SetLive(enabled bool, code, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.set, l.enabled, l.code, l.reason = true, enabled, code, reason
}

func (l *fakeLive) get() (bool, bool, string, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.set, l.enabled, l.code, l.reason
}

// TestLiveUpdatesState: enabling with webhook_listeners disabled fails with
// an answer naming the fix (AppAPI logs it and disables the app again),
// and live updates read off with the reason; enabling otherwise turns them
// on, disabling off. CheckLive finds the state after a restart, when
// AppAPI calls nothing: webhook_listeners disabled later, the app disabled,
// webhooks deleted by hand; a failing check changes nothing.
func TestLiveUpdatesState(t *testing.T) {
	f := newFake()
	live := &fakeLive{}
	l := exapp.New(context.Background(), f, exapp.Options{AppID: "hybrid_search", DisplayName: "Hybrid Search", Live: live})
	ctx := context.Background()
	want := func(step string, enabled bool, code string) {
		t.Helper()
		set, on, c, reason := live.get()
		if !set || on != enabled || c != code || (!enabled && reason == "") {
			t.Errorf("%s: live set %v, enabled %v, code %q, reason %q; want enabled %v, code %q", step, set, on, c, reason, enabled, code)
		}
	}
	f.hooksOff = true
	err := l.SetEnabled(ctx, true)
	if err == nil || !strings.Contains(err.Error(), "occ app:enable webhook_listeners") {
		t.Fatalf("enable without webhook_listeners: %v, want an error naming the fix", err)
	}
	want("enable without webhook_listeners", false, hs.LiveWebhookListenersDisabled)
	f.disabled = true // AppAPI disables the app after the failed enable
	_ = l.CheckLive(ctx)
	want("checked after the failed enable", false, hs.LiveWebhookListenersDisabled)
	f.disabled = false
	if err := l.SetEnabled(ctx, false); err != nil {
		t.Errorf("disable without webhook_listeners: %v (its webhooks cannot exist)", err)
	}
	want("disabled", false, hs.LiveAppDisabled)

	f.hooksOff = false
	if err := l.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	want("enabled", true, "")
	if err := l.CheckLive(ctx); err != nil {
		t.Fatal(err)
	}
	want("checked while all is well", true, "")

	f.hooksOff = true
	_ = l.CheckLive(ctx)
	want("webhook_listeners disabled later", false, hs.LiveWebhookListenersDisabled)
	f.hooksOff = false
	_ = l.CheckLive(ctx)
	want("webhook_listeners enabled again", true, "")

	for id := range f.hooks {
		delete(f.hooks, id)
		break
	}
	_ = l.CheckLive(ctx)
	want("a webhook deleted by hand", false, hs.LiveWebhooksMissing)

	f.listErr = hs.Errorf(hs.EUNAVAILABLE, "nextcloud: timeout")
	if err := l.CheckLive(ctx); err == nil {
		t.Error("a failing check reported no error")
	}
	want("a failing check", false, hs.LiveWebhooksMissing)
	f.listErr = nil

	f.disabled = true
	_ = l.CheckLive(ctx)
	want("the app disabled in AppAPI", false, hs.LiveAppDisabled)
}
