package app

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// closeCounter is an index store that only counts its closes; any other
// call panics (the nil embedded interface), as a swap makes none.
type closeCounter struct {
	indexStore
	closed atomic.Int32
}

func (c *closeCounter) Close() error { c.closed.Add(1); return nil }

// fakeScanner records the scans asked for and reports the progress set.
type fakeScanner struct {
	mu       sync.Mutex
	index    string
	requests []hs.UserID
	progress hs.ScanProgress
}

func (f *fakeScanner) SetIndexID(id string) { f.mu.Lock(); f.index = id; f.mu.Unlock() }
func (f *fakeScanner) Request(u hs.UserID) {
	f.mu.Lock()
	f.requests = append(f.requests, u)
	f.mu.Unlock()
}
func (f *fakeScanner) Progress() hs.ScanProgress { f.mu.Lock(); defer f.mu.Unlock(); return f.progress }

// fakeStates are the file states the rebuild progress is counted over.
type fakeStates struct {
	mu     sync.Mutex
	states []hs.FileState
}

func (f *fakeStates) List(_ context.Context, fn func(hs.FileState) error) error {
	f.mu.Lock()
	states := slices.Clone(f.states)
	f.mu.Unlock()
	for _, st := range states {
		if err := fn(st); err != nil {
			return err
		}
	}
	return nil
}

// newTestEngines returns engines serving an engine built from env, over
// fakes; build fails for the models in refuse.
func newTestEngines(t *testing.T, env Config, refuse ...string) (*engines, *fakeScanner, *fakeStates) {
	t.Helper()
	sc, states := &fakeScanner{}, &fakeStates{}
	s := &engines{scanner: sc, states: states, logger: slog.New(slog.DiscardHandler),
		pending: func(context.Context) (int, error) { return 0, nil }}
	s.build = func(_ context.Context, e *Engine, _ bool) error {
		if slices.Contains(refuse, e.Config.EmbedModel) {
			return errors.New("model not found")
		}
		if e.Store == nil {
			e.Store, e.IndexID = &closeCounter{}, indexID(e.Config, len(e.Config.OllamaHosts) > 0)
		}
		return nil
	}
	first := &Engine{Config: env, ownsStore: true}
	if err := s.build(context.Background(), first, false); err != nil {
		t.Fatal(err)
	}
	s.start(first)
	return s, sc, states
}

// TestEnginesSwap: new hosts for the same model hand the index to a new
// engine that serves at once; a new model indexes at once into a new
// index, which serves once a full scan has run and it caught up; a model
// that cannot be opened changes nothing. Every replaced engine's store
// is closed once, and a store handed over is not.
func TestEnginesSwap(t *testing.T) {
	env, err := load(baseEnv())
	if err != nil {
		t.Fatal(err)
	}

	t.Run("new hosts, same index", func(t *testing.T) {
		s, sc, _ := newTestEngines(t, env)
		old := s.serving()
		cfg := env
		cfg.OllamaHosts = []string{"http://a:11434", "http://b:11434"}
		if err := s.swap(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		e := s.indexing()
		if e == old || s.serving() != e || e.Store != old.Store {
			t.Errorf("after the swap: indexing %p, serving %p, old %p; want the new engine in both roles over the old store", e, s.serving(), old)
		}
		if s.rebuilding() != nil || len(sc.requests) != 0 {
			t.Errorf("rebuild %+v, scans %v: want none for the same index", s.rebuilding(), sc.requests)
		}
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		if n := old.Store.(*closeCounter).closed.Load(); n != 1 {
			t.Errorf("the shared store closed %d times, want once", n)
		}
	})

	t.Run("new model serves once caught up", func(t *testing.T) {
		s, sc, states := newTestEngines(t, env)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		old := s.serving()
		cfg := env
		cfg.EmbedModel = "bge-m3"
		if err := s.swap(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		e := s.indexing()
		if e == old || s.serving() != old {
			t.Fatal("a new model must index at once and serve only once caught up")
		}
		if rb := s.rebuilding(); rb == nil || rb.To != e.IndexID {
			t.Errorf("rebuilding = %+v, want into %s", rb, e.IndexID)
		}
		if !slices.Equal(sc.requests, []hs.UserID{""}) || sc.index != e.IndexID {
			t.Errorf("scans %v into %q, want one full scan into %q", sc.requests, sc.index, e.IndexID)
		}
		held := s.acquire() // a search still running on the old engine
		// The full scan ran, and the one file the old index holds is in the new.
		states.mu.Lock()
		states.states = []hs.FileState{{Index: e.IndexID, Status: hs.StatusIndexed}}
		states.mu.Unlock()
		sc.mu.Lock()
		sc.progress = hs.ScanProgress{Started: time.Now(), Finished: time.Now()}
		sc.mu.Unlock()
		await(t, "the new index to serve", 10*time.Second, func() bool { return s.serving() == e })
		if s.rebuilding() != nil {
			t.Errorf("rebuilding = %+v after the switch, want nil", s.rebuilding())
		}
		if n := old.Store.(*closeCounter).closed.Load(); n != 0 {
			t.Errorf("the old store closed while a search held it")
		}
		held.release()
		cancel()
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		for name, st := range map[string]indexStore{"old": old.Store, "new": e.Store} {
			if n := st.(*closeCounter).closed.Load(); n != 1 {
				t.Errorf("the %s store closed %d times, want once", name, n)
			}
		}
	})

	t.Run("a model that cannot be opened", func(t *testing.T) {
		s, sc, _ := newTestEngines(t, env, "missing")
		old := s.indexing()
		cfg := env
		cfg.EmbedModel = "missing"
		if err := s.swap(context.Background(), cfg); err == nil {
			t.Fatal("swap to a model that cannot be opened = nil, want an error")
		}
		if s.indexing() != old || s.serving() != old || s.rebuilding() != nil || len(sc.requests) != 0 {
			t.Error("a failed swap changed the engines")
		}
		if s.indexingConfig().EmbedModel != env.EmbedModel {
			t.Errorf("indexing config model = %q", s.indexingConfig().EmbedModel)
		}
	})

	t.Run("a second model before the first caught up", func(t *testing.T) {
		s, _, _ := newTestEngines(t, env)
		ctx, cancel := context.WithCancel(context.Background())
		old := s.serving()
		var built []*Engine
		for _, model := range []string{"bge-m3", "mxbai-embed-large"} {
			cfg := env
			cfg.EmbedModel = model
			if err := s.swap(ctx, cfg); err != nil {
				t.Fatal(err)
			}
			built = append(built, s.indexing())
		}
		if s.serving() != old || s.rebuilding().To != built[1].IndexID {
			t.Errorf("serving %p (old %p), rebuilding %+v; want the old serving and the last model rebuilding", s.serving(), old, s.rebuilding())
		}
		cancel()
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		for name, st := range map[string]indexStore{"serving": old.Store, "never served": built[0].Store, "indexing": built[1].Store} {
			if n := st.(*closeCounter).closed.Load(); n != 1 {
				t.Errorf("the %s store closed %d times, want once", name, n)
			}
		}
	})
}
