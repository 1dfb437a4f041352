package main

import (
	"context"
	"fmt"
	"sync"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/search"
)

// Engine is the part of the app that depends on the embedding model and
// its Ollama hosts: the embedder, the store holding that model's index,
// and the pipeline and search over them. When the admin settings change
// the model or the hosts, Main builds a new Engine and swaps it in; jobs
// and requests already running finish on the old one, which is closed
// once the last of them ends. Its fields are set before it is put in use
// and not changed after.
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

// Engine returns the engine in use now.
func (m *Main) Engine() *Engine { return m.eng.Load() }

// acquire returns the engine in use, held until release: it is not closed
// before.
func (m *Main) acquire() *Engine {
	for {
		e := m.eng.Load()
		e.mu.Lock()
		if !e.retired {
			e.users++
			e.mu.Unlock()
			return e
		}
		e.mu.Unlock() // swapped meanwhile: the new one is in m.eng already
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

// retire stops new uses of e and returns a channel closed once the
// current ones ended.
func (e *Engine) retire() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.retired = true
	e.idle = make(chan struct{})
	if e.users == 0 {
		close(e.idle)
	}
	return e.idle
}

// buildEngine opens e's embedder and store (unless e.Store is set: the
// previous engine's, when only the hosts changed) and builds the pipeline
// and search over them.
func (m *Main) buildEngine(ctx context.Context, e *Engine) error {
	if err := m.openEmbedder(ctx, e); err != nil {
		return err
	}
	opened := e.Store == nil
	if opened {
		if err := m.openStore(ctx, e); err != nil {
			return err
		}
	}
	m.buildPipeline(e)
	if err := m.buildSearch(e); err != nil {
		if opened {
			_ = e.Store.Close()
		}
		return err
	}
	return nil
}

// swapEngine builds an engine for cfg's model and hosts and puts it in the
// place of the current one. A new model (or semantic search turned on or
// off) means a new index: the scanner then queues every file for it,
// while searches use the new index as it fills. When the index stays the
// same (only the hosts changed), the store passes to the new engine.
func (m *Main) swapEngine(ctx context.Context, cfg Config) error {
	old := m.eng.Load()
	e := &Engine{Config: cfg, ownsStore: true}
	sameIndex := indexID(cfg, len(cfg.OllamaHosts) > 0) == old.IndexID
	if sameIndex {
		e.Store, e.IndexID = old.Store, old.IndexID
	}
	if err := m.buildEngine(ctx, e); err != nil {
		return fmt.Errorf("switch to model %q on %v: %w", cfg.EmbedModel, cfg.OllamaHosts, err)
	}
	if sameIndex {
		old.mu.Lock()
		old.ownsStore = false
		old.mu.Unlock()
	}
	m.eng.Store(e)
	m.Scanner.SetIndexID(e.IndexID)
	idle := old.retire()
	m.retiring.Add(1)
	go func() {
		defer m.retiring.Done()
		<-idle
		old.mu.Lock()
		owns := old.ownsStore
		old.mu.Unlock()
		if owns {
			if err := old.Store.Close(); err != nil {
				m.Logger.Warn("closing the previous index failed", "index", old.IndexID, "error", err)
			}
		}
	}()
	m.Logger.Info("embedding settings applied", "model", cfg.EmbedModel, "hosts", cfg.OllamaHosts, "index", e.IndexID, "new_index", !sameIndex)
	if !sameIndex {
		m.Scanner.Request("") // every file, into the new index
	}
	return nil
}

// process runs one indexing job on the engine in use.
func (m *Main) process(ctx context.Context, job hs.IndexJob) error {
	e := m.acquire()
	defer e.release()
	return e.Pipeline.Process(ctx, job)
}

// current serves the handlers and the MCP endpoint from the engine in use
// at each call.
type current struct{ m *Main }

func (c current) Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error) {
	e := c.m.acquire()
	defer e.release()
	return e.Search.Search(ctx, user, req)
}

func (c current) Viz(ctx context.Context, user hs.UserID, req hs.SearchRequest, sample int) (hs.VizResult, error) {
	e := c.m.acquire()
	defer e.release()
	return e.Viz.Viz(ctx, user, req, sample)
}

func (c current) Similar(ctx context.Context, user hs.UserID, ids []hs.FileID, topK int) (hs.SimilarResult, error) {
	e := c.m.acquire()
	defer e.release()
	return e.Similar.Similar(ctx, user, ids, topK)
}

// FilePoints serves the MCP endpoint's nc_get_document.
func (c current) FilePoints(ctx context.Context, id hs.FileID, withVectors bool) ([]hs.Point, error) {
	e := c.m.acquire()
	defer e.release()
	return e.Store.FilePoints(ctx, id, withVectors)
}

// Status serves GET /api/status.
func (c current) Status(ctx context.Context, user hs.UserID, all bool) (any, error) {
	return c.report(ctx, user, all)
}

func (c current) report(ctx context.Context, user hs.UserID, all bool) (indexing.Report, error) {
	e := c.m.acquire()
	defer e.release()
	return e.Reporter.Status(ctx, user, all)
}
