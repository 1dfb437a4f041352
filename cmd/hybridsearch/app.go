package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
	"github.com/hybrid-search/hybridsearch/embedding"
	"github.com/hybrid-search/hybridsearch/exapp"
	"github.com/hybrid-search/hybridsearch/frontend"
	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
	"github.com/hybrid-search/hybridsearch/nextcloud"
	"github.com/hybrid-search/hybridsearch/queue"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/tokens"
)

// indexStore is what main needs of a store: *store.Local or *store.Qdrant.
type indexStore interface {
	indexing.ChunkWriter
	search.DenseRetriever
	search.SparseRetriever
	search.VectorReader
	Health(ctx context.Context) error
	Stats(ctx context.Context) (store.Stats, error)
	Close() error
}

// Main wires every component and owns their lifetimes. Its fields are
// exported so end-to-end tests can reach the components.
type Main struct {
	Config Config
	Logger *slog.Logger

	NATSServer *server.Server // embedded server; nil with NATS_URL
	NATS       *nats.Conn
	Queue      *queue.Queue
	Nextcloud  *nextcloud.Client
	Store      indexStore
	Embedder   *embedding.Ollama // nil when OLLAMA_HOST=off
	Pipeline   *indexing.Pipeline
	Scanner    *indexing.Scanner
	Shares     *indexing.ShareRefresher // new shares before a search
	Reporter   *indexing.Reporter
	Search     *search.Service
	Viz        *search.Viz
	Tokens     *tokens.Service // bearer tokens for direct MCP access
	Lifecycle  *exapp.Lifecycle
	Handlers   *handlers.Server

	httpServer *http.Server
	listener   net.Listener
	cancel     context.CancelFunc
	indexID    string // which index file states refer to
	workers    sync.WaitGroup
	done       chan error
}

// NewMain returns a Main for cfg; Run starts it.
func NewMain(cfg Config, logger *slog.Logger) *Main {
	if logger == nil {
		logger = slog.Default()
	}
	return &Main{Config: cfg, Logger: logger, done: make(chan error, 1)}
}

// Run builds the components in dependency order and starts serving. It
// returns once the app listens; background work lasts until Close.
func (m *Main) Run(ctx context.Context) error {
	cfg := m.Config
	ctx, m.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if err := os.MkdirAll(cfg.PersistentStorage, 0o700); err != nil {
		return fmt.Errorf("data directory %s: %w", cfg.PersistentStorage, err)
	}
	m.Nextcloud = &nextcloud.Client{
		BaseURL: cfg.NextcloudURL, AppID: cfg.AppID, AppVersion: cfg.AppVersion,
		AAVersion: cfg.AAVersion, Secret: cfg.AppSecret, Logger: m.Logger,
	}
	if err := m.openQueue(ctx); err != nil {
		return err
	}
	if err := m.openEmbedder(ctx); err != nil {
		return err
	}
	if err := m.openStore(ctx); err != nil {
		return err
	}
	if err := m.buildIndexing(ctx); err != nil {
		return err
	}
	if err := m.buildSearch(); err != nil {
		return err
	}
	m.Lifecycle = exapp.New(ctx, m.Nextcloud, exapp.Options{
		AppID: cfg.AppID, Version: cfg.AppVersion, DisplayName: cfg.AppDisplayName, Logger: m.Logger,
		Steps: []exapp.InitStep{
			{Name: "reach Nextcloud", Run: func(ctx context.Context, _ func(float64)) error { return m.pingNextcloud(ctx) }},
			{Name: "reach NATS", Run: func(ctx context.Context, _ func(float64)) error { return m.checkNATS(ctx) }},
			{Name: "reach the index store", Run: func(ctx context.Context, _ func(float64)) error { return m.Store.Health(ctx) }},
			{Name: "initial scan", Run: func(ctx context.Context, report func(float64)) error {
				return m.Scanner.ScanAll(ctx, report)
			}},
		},
		// On enable (after init, and on every re-enable) scan again: changes
		// between the initial scan and the webhook registration are caught.
		OnEnable: func(context.Context) error { m.Scanner.Request(""); return nil },
	})
	mcpDeps, err := m.mcpDeps(ctx)
	if err != nil {
		return err
	}
	m.Handlers, err = handlers.New(handlers.Deps{
		AppID: cfg.AppID, AppSecret: cfg.AppSecret, Lifecycle: m.Lifecycle, Status: statusSource{m.Reporter},
		Publish: m.Queue, Assets: frontend.Assets(), Logger: m.Logger,
		Search:   m.Search,
		Viz:      m.Viz,
		MCP:      mcpDeps,
		Operator: &indexing.Control{Scanner: m.Scanner, States: m.Queue.States(), Enqueue: m.Queue.Publish, IsAdmin: m.Nextcloud.IsAdmin},
	})
	if err != nil {
		return err
	}
	m.startWorkers(ctx)
	return m.listen()
}

// openQueue starts the embedded NATS server (unless NATS_URL is set),
// connects, and opens the work queue.
func (m *Main) openQueue(ctx context.Context) error {
	if m.Config.NATSURL == "" {
		ns, err := queue.RunEmbedded(queue.EmbeddedOptions{StoreDir: filepath.Join(m.Config.PersistentStorage, "nats"), Logger: m.Logger})
		if err != nil {
			return err
		}
		m.NATSServer = ns
	}
	nc, err := queue.Connect(m.Config.NATSURL, m.NATSServer, "hybridsearch")
	if err != nil {
		return err
	}
	m.NATS = nc
	m.Queue, err = queue.Open(ctx, nc, queue.Options{
		Workers: m.Config.Workers, Backoff: m.Config.RetryBackoff, Logger: m.Logger,
		// A job held by a process that died is redelivered after AckWait;
		// live workers keep theirs with InProgress every AckWait/3.
		AckWait: 30 * time.Second,
	})
	return err
}

// openEmbedder creates the Ollama client unless OLLAMA_HOST=off. It does
// not need Ollama to be up: indexing waits and retries until it is.
func (m *Main) openEmbedder(ctx context.Context) error {
	if len(m.Config.OllamaHosts) == 0 {
		m.Logger.Info("semantic search is off (OLLAMA_HOST=off): indexing for keyword and fuzzy search only")
		return nil
	}
	o, err := embedding.NewOllama(embedding.OllamaOptions{Hosts: m.Config.OllamaHosts, Model: m.Config.EmbedModel,
		ContextNeeded: contextNeeded(m.Config.ChunkSize), Logger: m.Logger})
	if err != nil {
		return err
	}
	m.Embedder = o
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if info, err := o.Probe(pctx); err != nil {
		m.Logger.Warn("embedding model not reachable yet; files wait until it is", "model", m.Config.EmbedModel, "error", err)
	} else {
		m.Logger.Info("embedding model ready", "model", info.Model, "dim", info.Dim, "context_length", info.ContextLength)
	}
	return nil
}

// indexLayout is the version of what a file's index entry holds; files
// recorded under an older one are indexed again by the next scan (their
// vectors are reused). "+paths": each reader's own path (FileMeta.Paths).
const indexLayout = "+paths"

// openStore opens Qdrant (QDRANT_URL) or the embedded local store, and
// names the index (m.indexID) so file states written for another store,
// model or analyzer version are indexed again.
func (m *Main) openStore(ctx context.Context) error {
	model := "none"
	if m.Embedder != nil {
		model = m.Config.EmbedModel
	}
	m.indexID = "local/" + model + "/" + analysis.Version + indexLayout
	if m.Config.QdrantURL != "" {
		m.indexID = "qdrant/" + m.Config.QdrantURL + "/" + model + "/" + analysis.Version + indexLayout
	}
	if m.Config.QdrantURL != "" {
		dim := 0
		if m.Embedder != nil {
			d, err := m.Embedder.Dim(ctx)
			if err != nil {
				return fmt.Errorf("qdrant needs the embedding dimension: %w", err)
			}
			dim = d
		}
		q, err := store.OpenQdrant(ctx, store.QdrantOptions{URL: m.Config.QdrantURL, APIKey: m.Config.QdrantAPIKey, Model: model, Dim: dim, Logger: m.Logger})
		if err != nil {
			return err
		}
		m.Store = q
		return nil
	}
	dir := filepath.Join(m.Config.PersistentStorage, "index", sanitize(model))
	l, err := store.OpenLocal(dir, store.LocalOptions{Logger: m.Logger})
	if err != nil {
		return err
	}
	m.Store = l
	return nil
}

// buildIndexing assembles the pipeline, the scanner, the share refresher
// and the reporter.
func (m *Main) buildIndexing(ctx context.Context) error {
	cfg := m.Config
	m.Scanner = &indexing.Scanner{Tree: m.Nextcloud, Users: m.Nextcloud, States: m.Queue.States(), Enqueue: m.Queue.Publish, IndexID: m.indexID, Logger: m.Logger}
	lists, err := m.Queue.ShareLists(ctx)
	if err != nil {
		return err
	}
	m.Shares = &indexing.ShareRefresher{
		Shares: m.Nextcloud, Lists: lists, Tree: m.Nextcloud, States: m.Queue.States(), Enqueue: m.Queue.Publish,
		Rescan: m.Scanner.Request, MaxAge: cfg.ShareMaxAge, Logger: m.Logger,
	}
	m.Scanner.Baseline = m.Shares.Baseline
	m.Pipeline = &indexing.Pipeline{
		Files:   m.Nextcloud,
		Extract: extractor{&extract.Extractor{MaxInputBytes: cfg.MaxFileSize}},
		Chunk:   chunk.Chunker{Size: cfg.ChunkSize, Overlap: cfg.ChunkOverlap},
		Sparse:  analysis.PointVectors,
		Store:   m.Store,
		States:  m.Queue.States(),
		Lease:   m.Queue,
		Users:   &nextcloud.UserDirectory{Client: m.Nextcloud},
		Enqueue: m.Queue.Publish,
		Rescan:  m.Scanner.Request,
		Rules:   indexing.Rules{PathGlobs: cfg.ExcludePaths, MIMEs: cfg.ExcludeMIME, MaxSize: cfg.MaxFileSize},
		IndexID: m.indexID,
		Logger:  m.Logger,
	}
	checks := map[string]indexing.Check{
		"nats":      m.checkNATS,
		"nextcloud": m.pingNextcloud,
		"store":     m.Store.Health,
	}
	if m.Embedder != nil {
		m.Pipeline.Embed = m.Embedder
		checks["embedder"] = m.checkEmbedder
	}
	m.Reporter = &indexing.Reporter{
		Version: cfg.AppVersion, States: m.Queue.States(), Pending: m.Queue.Pending,
		Scanner: m.Scanner, Pipeline: m.Pipeline, Checks: checks, IsAdmin: m.Nextcloud.IsAdmin,
	}
	if m.Embedder != nil {
		m.Reporter.Embedders = m.embedderHosts
	}
	return nil
}

// contextNeeded is the most tokens one embedded input may take: a chunk
// of chunkSize runes (at most about one token per rune, as CJK text in a
// BERT vocabulary) plus the prefix, title and headings.
func contextNeeded(chunkSize int) int { return chunkSize + 256 }

// embedderHosts reports each Ollama host's health for the status.
func (m *Main) embedderHosts(ctx context.Context) []indexing.HostHealth {
	if m.Embedder == nil {
		return nil
	}
	hosts := m.Embedder.HostsHealth(ctx)
	out := make([]indexing.HostHealth, len(hosts))
	for i, h := range hosts {
		out[i] = indexing.HostHealth{Host: h.Host, OK: h.OK, Error: h.Error}
	}
	return out
}

// buildSearch assembles the search engine over the store.
func (m *Main) buildSearch() error {
	o := search.Options{
		Dense: m.Store, Sparse: m.Store, Access: m.Nextcloud, Refresh: m.Shares, Requeue: m.Queue.Publish,
		NextcloudURL: m.Config.NextcloudURL, Logger: m.Logger,
	}
	if m.Embedder != nil {
		o.Embedder = m.Embedder
	}
	var err error
	if m.Search, err = search.New(o); err != nil {
		return err
	}
	m.Viz, err = search.NewViz(m.Search, m.Store)
	return err
}

// startWorkers runs the queue consumers and the periodic scan.
func (m *Main) startWorkers(ctx context.Context) {
	m.workers.Add(2)
	go func() {
		defer m.workers.Done()
		if err := m.Queue.Run(ctx, m.Pipeline.Process); err != nil && ctx.Err() == nil {
			m.Logger.Error("indexing workers stopped", "error", err)
		}
	}()
	go func() {
		defer m.workers.Done()
		m.Scanner.Run(ctx, m.Config.ScanInterval)
	}()
}

// listen opens the TCP address, or the HaRP unix socket when
// HP_SHARED_KEY is set, and serves in the background.
func (m *Main) listen() error {
	cfg := m.Config
	var err error
	if cfg.HaRPSharedKey != "" {
		_ = os.Remove(cfg.HaRPSocket)
		m.listener, err = net.Listen("unix", cfg.HaRPSocket)
	} else {
		m.listener, err = net.Listen("tcp", cfg.Addr())
	}
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	m.httpServer = &http.Server{
		Handler:           m.Handlers.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn),
	}
	go func() {
		err := m.httpServer.Serve(m.listener)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		m.done <- err
	}()
	return nil
}

// ListenAddr returns where the app listens ("127.0.0.1:23000" or the socket path).
func (m *Main) ListenAddr() string {
	if m.listener == nil {
		return ""
	}
	return m.listener.Addr().String()
}

// Done delivers the HTTP server's exit error when it stops by itself.
func (m *Main) Done() <-chan error { return m.done }

func (m *Main) checkNATS(ctx context.Context) error {
	if m.NATS == nil || !m.NATS.IsConnected() {
		return hs.Errorf(hs.EUNAVAILABLE, "nats: not connected")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := m.NATS.FlushWithContext(ctx); err != nil {
		return hs.Errorf(hs.EUNAVAILABLE, "nats: %v", err)
	}
	return nil
}

func (m *Main) pingNextcloud(ctx context.Context) error {
	_, err := m.Nextcloud.Ping(ctx)
	return err
}

// checkEmbedder asks every Ollama host now (Health) and whether the model
// is there (Probe, cached after the first success).
func (m *Main) checkEmbedder(ctx context.Context) error {
	if err := m.Embedder.Health(ctx); err != nil {
		return err
	}
	_, err := m.Embedder.Probe(ctx)
	return err
}

// Close shuts down in reverse order under a timeout: HTTP first, then the
// workers (they drain), then the store and NATS. It is safe to call on a
// partly started Main.
func (m *Main) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	var errs []error
	if m.httpServer != nil {
		if err := m.httpServer.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("http shutdown: %w", err))
		}
	}
	if m.cancel != nil {
		m.cancel()
	}
	if m.Lifecycle != nil {
		_ = m.Lifecycle.WaitInit(ctx)
	}
	m.workers.Wait()
	if m.Store != nil {
		if err := m.Store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("store close: %w", err))
		}
	}
	if m.NATS != nil {
		if err := m.NATS.Drain(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
			errs = append(errs, fmt.Errorf("nats drain: %w", err))
		}
		for m.NATS.IsDraining() && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		m.NATS.Close()
	}
	if m.NATSServer != nil {
		m.NATSServer.Shutdown()
		m.NATSServer.WaitForShutdown()
	}
	if m.Config.HaRPSharedKey != "" {
		_ = os.Remove(m.Config.HaRPSocket)
	}
	return errors.Join(errs...)
}

// statusSource adapts the Reporter to the handlers' StatusSource.
type statusSource struct{ r *indexing.Reporter }

func (s statusSource) Status(ctx context.Context, user hs.UserID, all bool) (any, error) {
	return s.r.Status(ctx, user, all)
}

// extractor adds the format check to extract.Extractor.
type extractor struct{ *extract.Extractor }

func (extractor) Supported(name, mime string) bool { return extract.Supported(name, mime) }

// sanitize makes a model name usable as a directory name.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
}
