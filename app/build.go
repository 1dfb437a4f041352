package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/store/local"
	"github.com/hybrid-search/hybridsearch/store/qdrant"
)

// buildEngine opens e's embedder and store (unless e.Store is set: the
// previous engine's, when only the hosts changed) and builds the pipeline
// and search over them. With probe, the embedding model must answer
// first: a model that cannot be reached is not swapped in.
func (m *App) buildEngine(ctx context.Context, e *Engine, probe bool) error {
	if err := m.openEmbedder(ctx, e); err != nil {
		return err
	}
	if probe && e.Embedder != nil {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := e.Embedder.Probe(pctx)
		cancel()
		if err != nil {
			return err
		}
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

// openEmbedder creates e's Ollama client unless its OLLAMA_HOST is off.
// It does not need Ollama to be up: indexing waits and retries until it is.
func (m *App) openEmbedder(ctx context.Context, e *Engine) error {
	if len(e.Config.OllamaHosts) == 0 {
		m.Logger.Info("semantic search is off (OLLAMA_HOST=off): indexing for keyword and fuzzy search only")
		return nil
	}
	o, err := embedding.NewOllama(embedding.OllamaOptions{Hosts: e.Config.OllamaHosts, Model: e.Config.EmbedModel,
		KeepAlive: e.Config.EmbedKeepAlive, ContextNeeded: contextNeeded(e.Config.ChunkSize), Logger: m.Logger, Observe: m.Metrics.EmbedBatch})
	if err != nil {
		return err
	}
	e.Embedder = o
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if info, err := o.Probe(pctx); err != nil {
		m.Logger.Warn("embedding model not reachable yet; files wait until it is", "model", e.Config.EmbedModel, "error", err)
	} else {
		m.Logger.Info("embedding model ready", "model", info.Model, "dim", info.Dim, "context_length", info.ContextLength)
	}
	return nil
}

// indexLayout is the version of what a file's index entry holds; files
// recorded under an older one are indexed again by the next scan (their
// vectors are reused). "+paths": each reader's own path (FileMeta.Paths).
const indexLayout = "+paths"

// indexID names the index of c's store and model, so file states written
// for another store, model or analyzer version are indexed again.
func indexID(c Config, semantic bool) string {
	model := "none"
	if semantic {
		model = c.EmbedModel
	}
	if c.QdrantURL != "" {
		return "qdrant/" + c.QdrantURL + "/" + model + "/" + analysis.Version + indexLayout
	}
	return "local/" + model + "/" + analysis.Version + indexLayout
}

// openStore opens e's store: Qdrant (QDRANT_URL) or the embedded local
// store, one index per embedding model.
func (m *App) openStore(ctx context.Context, e *Engine) error {
	model := "none"
	if e.Embedder != nil {
		model = e.Config.EmbedModel
	}
	e.IndexID = indexID(e.Config, e.Embedder != nil)
	if e.Config.QdrantURL != "" {
		dim := 0
		if e.Embedder != nil {
			d, err := e.Embedder.Dim(ctx)
			if err != nil {
				return fmt.Errorf("qdrant needs the embedding dimension: %w", err)
			}
			dim = d
		}
		q, err := qdrant.Open(ctx, qdrant.Options{URL: e.Config.QdrantURL, APIKey: e.Config.QdrantAPIKey, Model: model, Dim: dim, Logger: m.Logger})
		if err != nil {
			return err
		}
		e.Store = q
		return nil
	}
	dir := filepath.Join(e.Config.PersistentStorage, "index", sanitize(model))
	l, err := local.Open(dir, local.Options{Logger: m.Logger})
	if err != nil {
		return err
	}
	e.Store = l
	return nil
}

// buildPipeline assembles e's pipeline and reporter.
func (m *App) buildPipeline(e *Engine) {
	cfg := e.Config
	e.Pipeline = &indexing.Pipeline{
		Files:        m.Nextcloud,
		Extract:      &m.extract,
		Chunk:        chunk.Chunker{Size: cfg.ChunkSize, Overlap: cfg.ChunkOverlap},
		Sparse:       analysis.PointVectors,
		Store:        m.observed(e),
		States:       m.KV.States(),
		Lease:        m.KV,
		Users:        m.users,
		Enqueue:      m.Queue.Publish,
		Rescan:       m.Scanner.Request,
		CurrentRules: m.rules,
		IndexID:      e.IndexID,
		Retry:        m.retryPolicy(),
		Recipients:   m.reach,
		Logger:       m.Logger,
	}
	checks := map[string]indexing.Check{
		"nats":      m.checkNATS,
		"nextcloud": m.pingNextcloud,
		"store":     e.Store.Health,
		"settings":  m.settings.check,
		"ocr":       m.extract.checkOCR,
	}
	if e.Embedder != nil {
		e.Pipeline.Embed = e.Embedder
		checks["embedder"] = e.checkEmbedder
	}
	e.Reporter = &indexing.Reporter{
		Version: Version, States: m.KV.States(), Pending: m.Queue.Pending,
		Scanner: m.Scanner, Pipeline: e.Pipeline, Checks: checks, IsAdmin: m.Nextcloud.IsAdmin, Live: m.live.Status,
		Rebuild: m.engines.rebuilding,
	}
	if e.Embedder != nil {
		e.Reporter.Embedders = e.embedderHosts
	}
}

// contextNeeded is the most tokens one embedded input may take: a chunk
// of chunkSize runes (at most about one token per rune, as CJK text in a
// BERT vocabulary) plus the prefix, title and headings.
func contextNeeded(chunkSize int) int { return chunkSize + 256 }

// embedderHosts reports each of e's Ollama hosts' health for the status.
func (e *Engine) embedderHosts(ctx context.Context) []hs.HostHealth {
	if e.Embedder == nil {
		return nil
	}
	return e.Embedder.HostsHealth(ctx)
}

// buildSearch assembles e's search engine over its store.
func (m *App) buildSearch(e *Engine) error {
	obs := m.observed(e)
	o := search.Options{
		Dense: obs, Sparse: obs, Chunks: obs, Terms: obs, Access: m.Nextcloud, Refresh: m.Shares, Requeue: m.Queue.Publish,
		NextcloudURL: e.Config.NextcloudURL, Logger: m.Logger,
		ObserveLeg: m.Metrics.SearchLeg, ObserveSearch: m.Metrics.Search,
	}
	if e.Embedder != nil {
		o.Embedder = e.Embedder
	}
	var err error
	if e.Search, err = search.New(o); err != nil {
		return err
	}
	if err := e.Search.SetDefaults(search.Defaults{Fusion: e.Config.SearchFusion, Weights: e.Config.SearchWeights}); err != nil {
		return err
	}
	if e.Viz, err = search.NewViz(e.Search, e.Store); err != nil {
		return err
	}
	e.Similar, err = search.NewSimilar(e.Search, e.Store)
	return err
}

// observed wraps e's store for its pipeline and search.
func (m *App) observed(e *Engine) *observedStore {
	return &observedStore{indexStore: e.Store, kind: storeKind(e.Config), observe: m.Metrics.StoreOp, indexed: m.Metrics.Indexed}
}

// checkEmbedder asks every Ollama host now (Health) and whether the model
// is there (Probe, cached after the first success).
func (e *Engine) checkEmbedder(ctx context.Context) error {
	if err := e.Embedder.Health(ctx); err != nil {
		return err
	}
	_, err := e.Embedder.Probe(ctx)
	return err
}

// sanitize makes a model name usable as a directory name.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
}
