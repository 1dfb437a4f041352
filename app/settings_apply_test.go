package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/search"
)

// fakeEngines is an embeddingSwapper that records swaps and defaults;
// swapErr fails every swap.
type fakeEngines struct {
	cfg      Config
	swapErr  error
	swaps    []string // the models swapped to
	defaults []search.Defaults
}

func (f *fakeEngines) indexingConfig() Config { return f.cfg }

func (f *fakeEngines) swap(_ context.Context, cfg Config) error {
	f.swaps = append(f.swaps, cfg.EmbedModel)
	if f.swapErr != nil {
		return f.swapErr
	}
	f.cfg = cfg
	return nil
}

func (f *fakeEngines) setDefaults(d search.Defaults) { f.defaults = append(f.defaults, d) }

// fakeAppConfig is the app config in Nextcloud; err fails every read.
type fakeAppConfig struct {
	values map[string]string
	err    error
}

func (f *fakeAppConfig) GetAppConfig(context.Context, ...string) (map[string]string, error) {
	return f.values, f.err
}

// TestAdminSettingsApply: a read of the admin settings puts in force what
// changed, and only that: a new model swaps the engine (or, when it
// cannot, keeps the one in use and says so in the status), new exclusions
// scan every user, a new scan interval reaches the ticker, and values
// that cannot be used leave the environment's in force.
func TestAdminSettingsApply(t *testing.T) {
	env, err := load(baseEnv())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		values    map[string]string // read from Nextcloud after load read none
		readErr   error
		swapErr   error
		wantSwaps []string
		wantModel string // of the configuration in force
		wantScans int    // full scans asked for
		wantTick  bool   // the scan ticker told
		wantCode  string // of the "settings" status component
		check     func(t *testing.T, eff Config, rules []string)
	}{
		{
			name:      "search defaults only",
			values:    map[string]string{"search_fusion": "linear"},
			wantModel: env.EmbedModel,
			check: func(t *testing.T, eff Config, _ []string) {
				if eff.SearchFusion != "linear" {
					t.Errorf("fusion = %q, want linear", eff.SearchFusion)
				}
			},
		},
		{
			name:      "a new model swaps the engine",
			values:    map[string]string{"embed_model": "bge-m3"},
			wantSwaps: []string{"bge-m3"},
			wantModel: "bge-m3",
		},
		{
			name:      "a model that cannot be opened keeps the one in use",
			values:    map[string]string{"embed_model": "bge-m3", "search_fusion": "linear"},
			swapErr:   errors.New("model not found"),
			wantSwaps: []string{"bge-m3"},
			wantModel: env.EmbedModel,
			wantCode:  hs.ComponentSettingsNotApplied,
			check: func(t *testing.T, eff Config, _ []string) {
				if eff.SearchFusion != "linear" {
					t.Errorf("fusion = %q, want linear: the rest applies", eff.SearchFusion)
				}
			},
		},
		{
			name:      "new exclusions scan every user",
			values:    map[string]string{"exclude_paths": "/Photos/**"},
			wantModel: env.EmbedModel,
			wantScans: 1,
			check: func(t *testing.T, _ Config, rules []string) {
				if !slices.Equal(rules, []string{"/Photos/**"}) {
					t.Errorf("excluded paths in force = %v", rules)
				}
			},
		},
		{
			name:      "a new scan interval reaches the ticker",
			values:    map[string]string{"scan_interval": "45m"},
			wantModel: env.EmbedModel,
			wantTick:  true,
		},
		{
			name:      "an unusable value leaves the environment's",
			values:    map[string]string{"max_file_size": "lots", "exclude_paths": "/a/[b"},
			wantModel: env.EmbedModel,
			wantCode:  hs.ComponentSettingsIgnored,
			check: func(t *testing.T, eff Config, rules []string) {
				if eff.MaxFileSize != env.MaxFileSize || len(rules) != 0 {
					t.Errorf("max size %d, excluded %v: want the environment's", eff.MaxFileSize, rules)
				}
			},
		},
		{
			name:      "a failed read keeps what is in force",
			readErr:   errors.New("nextcloud down"),
			wantModel: env.EmbedModel,
			wantCode:  hs.ComponentSettingsUnreadable,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			source := &fakeAppConfig{err: errors.New("not up yet")}
			s := newAdminSettings(env, source, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if eff := s.load(context.Background()); eff.EmbedModel != env.EmbedModel {
				t.Fatalf("load = %+v, want the environment", eff)
			}
			eng := &fakeEngines{cfg: env, swapErr: tt.swapErr}
			var scans int
			var chats []Config
			s.engines, s.extract = eng, &extractor{}
			s.extract.setLimit(env.MaxFileSize)
			s.rescan = func(u hs.UserID) {
				if u != "" {
					t.Errorf("rescan(%q), want every user", u)
				}
				scans++
			}
			s.chat = func(_ context.Context, eff Config) { chats = append(chats, eff) }

			source.values, source.err = tt.values, tt.readErr
			s.refresh(context.Background())

			eff := s.effective()
			if !slices.Equal(eng.swaps, tt.wantSwaps) {
				t.Errorf("swaps = %v, want %v", eng.swaps, tt.wantSwaps)
			}
			if eff.EmbedModel != tt.wantModel {
				t.Errorf("model in force = %q, want %q", eff.EmbedModel, tt.wantModel)
			}
			if scans != tt.wantScans {
				t.Errorf("%d full scans, want %d", scans, tt.wantScans)
			}
			select {
			case <-s.scanTick:
				if !tt.wantTick {
					t.Error("the scan ticker was told of an unchanged interval")
				}
			default:
				if tt.wantTick {
					t.Error("the scan ticker was not told of the new interval")
				}
			}
			if got := hs.ErrorCode(s.check(context.Background())); got != tt.wantCode {
				t.Errorf("settings status code = %q (%v), want %q", got, s.check(context.Background()), tt.wantCode)
			}
			if tt.readErr == nil {
				if len(eng.defaults) != 1 || eng.defaults[0].Fusion != eff.SearchFusion {
					t.Errorf("defaults set %+v, want once with fusion %q", eng.defaults, eff.SearchFusion)
				}
				if len(chats) != 1 {
					t.Errorf("chat model applied %d times, want once", len(chats))
				}
			} else if len(eng.defaults)+len(chats) != 0 {
				t.Errorf("a failed read applied defaults %v or chat %v", eng.defaults, chats)
			}
			if tt.check != nil {
				tt.check(t, eff, s.exclusions().PathGlobs)
			}
		})
	}
}

// TestAdminSettingsRetryBackoff: a model that cannot be opened is tried
// again only once its retry time has come, and the status says so until
// it applies.
func TestAdminSettingsRetryBackoff(t *testing.T) {
	env, err := load(baseEnv())
	if err != nil {
		t.Fatal(err)
	}
	env.SettingsInterval = time.Hour // the retry time (at most 5 minutes) stays ahead during the test
	source := &fakeAppConfig{values: map[string]string{"embed_model": "bge-m3"}}
	s := newAdminSettings(env, &fakeAppConfig{err: errors.New("not up yet")}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.load(context.Background())
	s.source = source
	eng := &fakeEngines{cfg: env, swapErr: errors.New("model not found")}
	s.engines, s.extract, s.rescan = eng, &extractor{}, func(hs.UserID) {}
	s.extract.setLimit(env.MaxFileSize)

	s.refresh(context.Background())
	s.refresh(context.Background()) // same values, before the retry time: nothing
	if len(eng.swaps) != 1 {
		t.Fatalf("swaps = %v, want one try before the retry time", eng.swaps)
	}
	st := s.state.Load()
	if st.failures != 1 || st.retryAt.Before(time.Now().Add(4*time.Minute)) {
		t.Errorf("failures %d, retry at %v: want 1 and 5 minutes ahead", st.failures, st.retryAt)
	}
	st.retryAt = time.Now().Add(-time.Second) // the retry time has come
	eng.swapErr = nil
	s.refresh(context.Background())
	if len(eng.swaps) != 2 || s.effective().EmbedModel != "bge-m3" || s.check(context.Background()) != nil {
		t.Errorf("after the retry: swaps %v, model %q, status %v", eng.swaps, s.effective().EmbedModel, s.check(context.Background()))
	}
}
