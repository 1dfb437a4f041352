package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/store"
)

// indexStore is what main needs of a store: *local.Store or *qdrant.Store.
type indexStore interface {
	indexing.ChunkWriter
	search.DenseRetriever
	search.SparseRetriever
	search.ChunkReader
	search.TermReader
	search.VectorReader
	SparseDocFreq(ctx context.Context, vector string, indices []uint32) ([]int, int, error)
	Health(ctx context.Context) error
	Stats(ctx context.Context) (store.Stats, error)
	Close() error
}

// Engine is the part of the app that depends on the embedding model and
// its Ollama hosts: the embedder, the store holding that model's index,
// and the pipeline and search over them. When the admin settings change
// the model or the hosts, engines.swap builds a new Engine. It indexes at
// once; searches stay on the previous engine until the new index has
// caught up (a full scan queued every file and the queue emptied), so a
// new model never leaves users with a half-filled index. An engine
// replaced in both roles is closed once the last job or request using it
// ends. Its fields are set before it is put in use and not changed after.
type Engine struct {
	Config   Config            // the settings it was built from
	Embedder *embedding.Ollama // nil when semantic search is off
	Store    indexStore
	IndexID  string // names the store and model, recorded in file states
	Pipeline *indexing.Pipeline
	Reporter *indexing.Reporter
	Search   *search.Service
	Viz      *search.Viz
	Similar  *search.Similar

	mu        sync.Mutex
	users     int           // jobs and requests using it
	retired   bool          // replaced: no new users
	idle      chan struct{} // closed when retired and unused
	ownsStore bool          // closes Store when retired (false: the next engine took it over)
}

// engines holds the engine that indexes and the one that answers
// searches, and swaps in a new engine when the embedding settings change.
// Its dependencies are set before start and not changed after.
type engines struct {
	build   func(ctx context.Context, e *Engine, probe bool) error // opens and assembles e's parts
	scanner engineScanner
	states  indexing.StateLister                   // the file states, to tell how far a new index has come
	pending func(ctx context.Context) (int, error) // jobs queued
	logger  *slog.Logger

	eng      atomic.Pointer[Engine]  // the indexing engine
	serve    atomic.Pointer[Engine]  // the serving engine
	rebuild  atomic.Pointer[rebuild] // the indexing engine's new index, until it serves
	retiring sync.WaitGroup          // engines being closed, and waits for a new index to catch up
}

// engineScanner is what a swap asks of the scanner (*indexing.Scanner):
// a full scan into the new index, and when it ran.
type engineScanner interface {
	SetIndexID(id string)
	Request(user hs.UserID)
	Progress() hs.ScanProgress
}

// start puts the first engine in both roles.
func (s *engines) start(first *Engine) {
	s.eng.Store(first)
	s.serve.Store(first)
	s.scanner.SetIndexID(first.IndexID)
}

// indexing returns the engine that indexes now: the newest.
func (s *engines) indexing() *Engine { return s.eng.Load() }

// serving returns the engine that answers searches now: the newest whose
// index has caught up.
func (s *engines) serving() *Engine { return s.serve.Load() }

// Engine returns the engine that indexes now: the newest (nil before Run).
func (m *App) Engine() *Engine {
	if m.engines == nil {
		return nil
	}
	return m.engines.indexing()
}

// Serving returns the engine that answers searches now: the newest whose
// index has caught up (nil before Run).
func (m *App) Serving() *Engine {
	if m.engines == nil {
		return nil
	}
	return m.engines.serving()
}

// acquire returns the serving engine, held until release: it is not
// closed before.
func (s *engines) acquire() *Engine { return hold(&s.serve) }

// acquireIndexing returns the indexing engine, held until release.
func (s *engines) acquireIndexing() *Engine { return hold(&s.eng) }

func hold(p *atomic.Pointer[Engine]) *Engine {
	for {
		e := p.Load()
		e.mu.Lock()
		if !e.retired {
			e.users++
			e.mu.Unlock()
			return e
		}
		e.mu.Unlock() // replaced meanwhile: the new one is in p already
	}
}

// release ends one use of e.
func (e *Engine) release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.users--
	if e.retired && e.users == 0 {
		close(e.idle)
	}
}

// retire stops new uses of e and closes its store (unless a newer engine
// took it over) once the current uses ended.
func (s *engines) retire(e *Engine) {
	e.mu.Lock()
	e.retired = true
	e.idle = make(chan struct{})
	if e.users == 0 {
		close(e.idle)
	}
	idle := e.idle
	e.mu.Unlock()
	s.retiring.Add(1)
	go func() {
		defer s.retiring.Done()
		<-idle
		e.mu.Lock()
		owns := e.ownsStore
		e.mu.Unlock()
		if owns {
			if err := e.Store.Close(); err != nil {
				s.logger.Warn("closing a previous index failed", "index", e.IndexID, "error", err)
			}
		}
	}()
}

// swap builds an engine for cfg's model and hosts and makes it the
// indexing engine. A new index (another model, or semantic search turned
// on or off) is filled by a full scan and serves once it caught up; when
// the index stays (only the hosts changed) the store passes to the new
// engine, which serves at once if its predecessor did, or once the index
// they share caught up.
func (s *engines) swap(ctx context.Context, cfg Config) error {
	old := s.eng.Load()
	e := &Engine{Config: cfg, ownsStore: true}
	sameIndex := indexID(cfg, len(cfg.OllamaHosts) > 0) == old.IndexID
	if sameIndex {
		e.Store, e.IndexID = old.Store, old.IndexID
	}
	if err := s.build(ctx, e, true); err != nil {
		return fmt.Errorf("switch to model %q on %v: %w", cfg.EmbedModel, cfg.OllamaHosts, err)
	}
	if sameIndex {
		old.mu.Lock()
		old.ownsStore = false
		old.mu.Unlock()
	}
	s.eng.Store(e)
	s.scanner.SetIndexID(e.IndexID)
	serving := s.serve.Load()
	if sameIndex && old == serving {
		s.serve.Store(e)
		s.retire(old)
	} else {
		if old != serving {
			s.retire(old) // a new index that never served
		}
		rb := s.rebuild.Load()
		if !sameIndex || rb == nil {
			model := ""
			if e.Embedder != nil {
				model = cfg.EmbedModel
			}
			rb = &rebuild{Rebuild: indexing.Rebuild{Model: model, To: e.IndexID}, asked: time.Now()}
			s.rebuild.Store(rb)
			s.scanner.Request("") // every file, into the new index
		}
		s.retiring.Add(1)
		go func() {
			defer s.retiring.Done()
			s.serveWhenCaughtUp(ctx, e, rb)
		}()
	}
	s.logger.Info("embedding settings applied", "model", cfg.EmbedModel, "hosts", cfg.OllamaHosts, "index", e.IndexID, "new_index", !sameIndex)
	return nil
}

// rebuild is a new index being filled while another serves searches: what
// the status tells of it, and when its full scan was asked for.
type rebuild struct {
	indexing.Rebuild
	asked time.Time
}

// rebuilding returns the new index being filled, or nil (the status's
// IndexStatus.Rebuild).
func (s *engines) rebuilding() *indexing.Rebuild {
	if rb := s.rebuild.Load(); rb != nil {
		return &rb.Rebuild
	}
	return nil
}

// serveWhenCaughtUp makes e the serving engine once its index has caught
// up with what the serving one holds (indexing.CaughtUp): a full scan
// asked for by rb has queued every file and ended, and every file the
// serving index holds is in e's, or was tried there and waits for a retry
// (a file that keeps failing never holds the switch back). Should files
// remain that nothing queued will bring (their users' scans failed), it
// switches once the queue is empty. It gives up when e stops being the
// indexing engine or ctx ends.
func (s *engines) serveWhenCaughtUp(ctx context.Context, e *Engine, rb *rebuild) {
	t := time.NewTicker(caughtUpPoll)
	defer t.Stop()
	var due time.Time // of the next count of the file states
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s.eng.Load() != e {
			return
		}
		p := s.scanner.Progress()
		if p.Running || !p.Started.After(rb.asked) || time.Now().Before(due) {
			continue
		}
		if rb.Since.IsZero() {
			next := *rb
			next.Since = p.Started
			s.rebuild.CompareAndSwap(rb, &next)
			rb = &next
		}
		start := time.Now()
		prog, err := indexing.RebuildStatus(ctx, s.states, rb.Rebuild)
		// Counting reads every state: at most a fifth of the time.
		due = time.Now().Add(4 * time.Since(start))
		if err != nil {
			s.logger.Warn("the new index's progress could not be read", "index", e.IndexID, "error", err)
			continue
		}
		if !indexing.CaughtUp(prog) {
			if n, err := s.pending(ctx); err != nil || n > 0 {
				continue
			}
			s.logger.Warn("the new index lacks files that nothing queued will index (their users' scans failed?); it answers searches all the same",
				"index", e.IndexID, "missing", prog.Total-prog.Done)
		}
		if prev := s.serve.Swap(e); prev != e {
			s.retire(prev)
		}
		s.rebuild.CompareAndSwap(rb, nil)
		s.logger.Info("the new index has caught up and now answers searches", "index", e.IndexID,
			"files", prog.Total, "retrying", prog.Retrying, "after", time.Since(rb.asked).Round(time.Millisecond))
		return
	}
}

// caughtUpPoll is how often serveWhenCaughtUp looks.
const caughtUpPoll = 250 * time.Millisecond

// process runs one indexing job on the engine in use.
func (s *engines) process(ctx context.Context, job hs.IndexJob) error {
	e := s.acquireIndexing()
	defer e.release()
	return e.Pipeline.Process(ctx, job)
}

// setDefaults puts new search defaults in force in the serving and the
// indexing engine.
func (s *engines) setDefaults(d search.Defaults) {
	for _, e := range []*Engine{s.acquire(), s.acquireIndexing()} {
		if err := e.Search.SetDefaults(d); err != nil {
			s.logger.Warn("search defaults refused", "error", err) // applyAdmin checked them: not expected
		}
		e.release()
	}
}

// indexingConfig is the configuration the indexing engine was built from.
func (s *engines) indexingConfig() Config { return s.indexing().Config }

// searchRules are the serving engine's search rules, with the defaults
// in force.
func (s *engines) searchRules() hs.SearchRules {
	e := s.acquire()
	defer e.release()
	return e.Search.Rules()
}

// storeHealth reports whether the serving engine's store answers.
func (s *engines) storeHealth(ctx context.Context) error {
	e := s.acquire()
	defer e.release()
	return e.Store.Health(ctx)
}

// embedderHealth reports whether the indexing engine's Ollama hosts answer
// with its model (nil when semantic search is off: nothing to reach).
func (s *engines) embedderHealth(ctx context.Context) error {
	e := s.acquireIndexing()
	defer e.release()
	if e.Embedder == nil {
		return nil
	}
	return e.checkEmbedder(ctx)
}

// close waits until the retired engines are closed, then closes the
// stores of the engines in use (a store two engines share once).
func (s *engines) close() error {
	s.retiring.Wait()
	var errs []error
	serving := s.serve.Load()
	for _, e := range []*Engine{serving, s.eng.Load()} {
		if e == nil || e.Store == nil || e != serving && e.Store == serving.Store {
			continue
		}
		if err := e.Store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("store close: %w", err))
		}
		if serving == s.eng.Load() {
			break
		}
	}
	return errors.Join(errs...)
}
