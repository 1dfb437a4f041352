package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/answer"
	"github.com/hybrid-search/hybridsearch/assistant"
	"github.com/hybrid-search/hybridsearch/exapp"
	"github.com/hybrid-search/hybridsearch/frontend"
	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
	"github.com/hybrid-search/hybridsearch/kv"
	"github.com/hybrid-search/hybridsearch/metrics"
	"github.com/hybrid-search/hybridsearch/nextcloud"
	"github.com/hybrid-search/hybridsearch/queue"
	"github.com/hybrid-search/hybridsearch/tokens"
)

// App is the application: it wires every component and owns their
// lifetimes. Its exported fields are the components, so end-to-end tests
// can reach them. What changes while the app runs has an owner of its own:
// engines (the embedding model's hot swap, engine.go), adminSettings (the
// admin settings watcher, settings_live.go), pauses (the users' pauses,
// pause.go), chatModel (assistant.go), httpServers (listen.go) and
// components (the long-running goroutines and the health, components.go).
// Engines are assembled in build.go.
type App struct {
	Config Config
	Logger *slog.Logger

	NATSServer *server.Server // embedded server; nil with NATS_URL
	NATS       *nats.Conn
	Queue      *queue.Queue
	KV         *kv.Store // file states, leases, tokens, share lists, OAuth records
	Nextcloud  *nextcloud.Client
	// Store and Pipeline are those of the engine built at start; Engine
	// and Serving return the ones in use now (the admin settings may have
	// changed the model since).
	Store     indexStore
	Pipeline  *indexing.Pipeline
	Scanner   *indexing.Scanner
	Shares    *indexing.ShareRefresher // new shares before a search
	Tokens    *tokens.Service          // bearer tokens for direct MCP access
	Lifecycle *exapp.Lifecycle
	// Answer answers questions from users' files and Assistant runs the
	// Assistant's task providers (assistant.go); nil in a worker.
	Answer    *answer.Service
	Assistant *assistant.Service
	Handlers  *handlers.Server
	Metrics   *metrics.Metrics // this process's; served on /metrics
	// Worker makes Run start a consumer-only process (hybridsearch worker).
	Worker bool
	// Listener, when set, is where Run serves HTTP instead of opening
	// APP_HOST:APP_PORT: the demo and the tests open it first and register
	// its port with Nextcloud, leaving no gap for another process to take
	// the port. Close closes it. It is not used with HaRP (HP_SHARED_KEY).
	Listener net.Listener

	cancel     context.CancelFunc
	live       indexing.Live            // whether webhooks are registered, and their delays
	users      *nextcloud.UserDirectory // who Nextcloud has, for tokens and pipelines
	reach      *indexing.Reach          // who a new file reaches through shared folders
	http       httpServers              // the app's address and METRICS_ADDR
	components components               // the long-running components and their health
	closeOnce  sync.Once
	closeErr   error
	done       chan error

	engines  *engines       // the indexing and the serving engine
	extract  extractor      // shared by every engine's pipeline
	settings *adminSettings // the admin settings in force
	pauses   *pauses        // users who paused indexing their files
	chat     *chatModel     // the chat model in use; nil in a worker
}

// New returns an App for cfg; Run starts it.
func New(cfg Config, logger *slog.Logger) *App {
	if logger == nil {
		logger = slog.Default()
	}
	m := &App{Config: cfg, Logger: logger, Metrics: metrics.New(), done: make(chan error, 1)}
	m.components.logger = logger
	// A component that stopped by itself shuts the app down in order;
	// Done then delivers its error.
	m.components.onFail = func(err error) {
		go func() {
			if cerr := m.Close(); cerr != nil {
				logger.Error("shutdown after a failure", "error", cerr)
			}
			m.done <- err
		}()
	}
	return m
}

// Run builds the components in dependency order and starts serving. It
// returns once the app listens; background work lasts until Close. The
// long-running components (HTTP server, queue workers, scanner, scan
// ticker, settings watcher) run under one errgroup: when one of them stops
// by itself, App shuts everything down in order (as Close does) and Done
// delivers that component's error.
func (m *App) Run(ctx context.Context) error {
	cfg := m.Config
	ctx, m.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if err := m.checkWorker(); err != nil {
		return err
	}
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
	// The admin settings as they are now (a short try: Nextcloud may not be
	// up yet; the watcher applies them later then).
	m.settings = newAdminSettings(cfg, m.Nextcloud, m.Logger)
	eff := m.settings.load(ctx)
	if err := m.startIndexing(ctx, eff); err != nil {
		return err
	}
	m.engines = &engines{build: m.buildEngine, scanner: m.Scanner, states: m.KV.States(), pending: m.Queue.Pending, logger: m.Logger}
	m.settings.engines, m.settings.extract, m.settings.rescan = m.engines, &m.extract, m.Scanner.Request
	first := &Engine{Config: eff, ownsStore: true}
	if err := m.buildEngine(ctx, first, false); err != nil {
		if sameEngine(eff, cfg) {
			return err
		}
		// The admin's model cannot be opened now: start on the
		// environment's; the watcher tries the admin's again.
		m.Logger.Warn("the admin's embedding settings could not be applied at start; the environment's apply", "error", err)
		first = &Engine{Config: m.settings.startedWithEnv(err), ownsStore: true}
		if err := m.buildEngine(ctx, first, false); err != nil {
			return err
		}
	}
	m.engines.start(first)
	m.Store, m.Pipeline = first.Store, first.Pipeline
	rules := first.Search.Rules() // as at start; the settings watcher updates the panel's
	if m.Worker {
		m.startWorkers(ctx)
		if err := m.listenOps(); err != nil {
			return err
		}
		m.components.running()
		return nil
	}
	if err := m.startAnswers(ctx, eff); err != nil {
		return err
	}
	m.Lifecycle = exapp.New(ctx, m.Nextcloud, exapp.Options{
		AppID: cfg.AppID, Version: cfg.AppVersion, DisplayName: cfg.AppDisplayName, Logger: m.Logger,
		SettingsForms: []nextcloud.SettingsForm{adminForm(cfg), personalForm(cfg)},
		FileActions:   []nextcloud.FileAction{exapp.SimilarAction},
		Steps: []exapp.InitStep{
			{Name: "reach Nextcloud", Run: func(ctx context.Context, _ func(float64)) error { return m.pingNextcloud(ctx) }},
			{Name: "reach NATS", Run: func(ctx context.Context, _ func(float64)) error { return m.checkNATS(ctx) }},
			{Name: "reach the index store", Run: func(ctx context.Context, _ func(float64)) error { return m.engines.storeHealth(ctx) }},
		},
		// Init reports 100 once the app can serve: AppAPI marks an init that
		// takes longer than init_timeout (40 minutes by default) as timed
		// out, and a large instance cannot scan every file in that time. The
		// first full scan runs on enable instead (after the webhooks are
		// registered, so no change falls between them), its progress in the
		// status; every re-enable scans again for changes made meanwhile.
		// The Assistant's providers follow the app: registered on enable
		// (a failure is logged; search works without them), removed on
		// disable.
		OnEnable: func(ctx context.Context) error {
			m.Scanner.Request("")
			if err := m.Assistant.Sync(ctx); err != nil {
				m.Logger.Error("registering the Assistant's task providers failed", "error", err)
			}
			return nil
		},
		OnDisable:   m.Assistant.Remove,
		SearchRules: rules,
		MCPURL:      cfg.MCPURL(),
		Live:        &m.live,
	})
	m.settings.panel = func(ctx context.Context) error { return m.Lifecycle.SetSearchRules(ctx, m.engines.searchRules()) }
	mcpDeps, err := m.mcpDeps(ctx, rules)
	if err != nil {
		return err
	}
	m.Handlers, err = handlers.New(handlers.Deps{
		AppID: cfg.AppID, AppSecret: cfg.AppSecret, HaRPKey: cfg.HaRPSharedKey, Lifecycle: m.Lifecycle, Status: current{m}, Health: m.Health,
		Publish: m.Queue, Assets: frontend.Assets(), Logger: m.Logger,
		Search:   current{m},
		Viz:      current{m},
		Similar:  current{m},
		Settings: current{m},
		Ask:      m.Answer,
		Tasks:    m.Assistant,
		Rules:    rules,
		Defaults: current{m}.SearchDefaults,
		MCP:      mcpDeps,
		Operator: &indexing.Control{Scanner: m.Scanner, States: m.KV.States(), Enqueue: m.Queue.Publish, IsAdmin: m.Nextcloud.IsAdmin},
		Observer: m.Metrics,
		Live:     &m.live,
		Ops:      m.ops(),
	})
	if err != nil {
		return err
	}
	m.startWorkers(ctx)
	m.components.run(ctx, "webhook check", func(ctx context.Context) error {
		m.Lifecycle.WatchLive(ctx, liveCheckInterval)
		return nil
	})
	if err := m.listenOps(); err != nil {
		return err
	}
	if err := m.http.listen(cfg, m.Listener, m.Handlers.Handler(), m.Logger); err != nil {
		return err
	}
	m.components.run(ctx, "http server", m.http.serve)
	m.components.running()
	return nil
}

// liveCheckInterval is how often the app checks that its webhooks are
// registered and webhook_listeners is enabled (for the status's "live").
const liveCheckInterval = 10 * time.Minute

// openQueue starts the embedded NATS server (unless NATS_URL is set),
// connects, and opens the work queue.
func (m *App) openQueue(ctx context.Context) error {
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
	if m.KV, err = kv.Open(ctx, nc, kv.Options{Replicas: m.Config.NATSReplicas, Logger: m.Logger}); err != nil {
		return err
	}
	ackWait := m.Config.AckWait
	if ackWait <= 0 {
		ackWait = 30 * time.Second
	}
	m.Queue, err = queue.Open(ctx, nc, queue.Options{
		Workers: m.Config.Workers, OCRWorkers: max(m.Config.OCRWorkers, 1), Retry: m.retryPolicy(), Logger: m.Logger,
		Replicas: m.Config.NATSReplicas,
		// A job held by a process that died is redelivered after AckWait;
		// live workers keep theirs with InProgress every AckWait/3.
		AckWait: ackWait,
		Outcome: m.Metrics.Job,
		// Indexing, the only writer of file state, marks a file failed.
		GaveUp: (&indexing.Failures{States: m.KV.States(), Logger: m.Logger}).GaveUp,
	})
	if err != nil {
		return err
	}
	m.Metrics.WatchBacklog(m.Queue.Backlog)
	return nil
}

// userListMaxAge is how long a user in Nextcloud's user list is trusted
// to exist: a user deleted in Nextcloud loses their tokens within it
// (plus one list request), and a full scan then forgets them.
const userListMaxAge = 15 * time.Second

// startIndexing sets up what every engine shares: the extractor, the
// exclusion rules in force, the user directory, the scanner and the share
// refresher.
func (m *App) startIndexing(ctx context.Context, cfg Config) error {
	m.extract.setOCR(extract.OCR{Off: cfg.OCRWorkers == 0, Languages: cfg.OCRLanguages, PageTimeout: cfg.OCRPageTimeout, MaxPages: cfg.OCRMaxPages})
	m.extract.setLimit(cfg.MaxFileSize)
	m.users = &nextcloud.UserDirectory{Client: m.Nextcloud, MaxAge: userListMaxAge, Now: cfg.UserListClock}
	m.pauses = &pauses{users: m.Nextcloud, interval: 3 * m.Config.SettingsInterval, logger: m.Logger}
	lists, err := m.KV.ShareLists(ctx)
	if err != nil {
		return err
	}
	records, err := m.KV.Tokens(ctx)
	if err != nil {
		return err
	}
	m.Scanner = &indexing.Scanner{Tree: m.Nextcloud, Users: m.Nextcloud, States: m.KV.States(), Enqueue: m.Queue.Publish,
		Rules: m.rules, Gone: m.users.Gone, Records: []indexing.UserRecords{records, lists}, Logger: m.Logger}
	m.Shares = &indexing.ShareRefresher{
		Shares: m.Nextcloud, Lists: lists, Tree: m.Nextcloud, States: m.KV.States(), Enqueue: m.Queue.Publish,
		Rescan: m.Scanner.Request, MaxAge: cfg.ShareMaxAge, Logger: m.Logger,
	}
	m.Scanner.Baseline = m.Shares.Baseline
	m.pauses.rescan = m.Scanner.Request
	// A new file in a shared folder reaches its recipients without a scan.
	m.reach = &indexing.Reach{Shares: m.Nextcloud, Lists: lists, Logger: m.Logger}
	return nil
}

// startWorkers runs the queue consumers (not in serve with WORKERS=0,
// which leaves the jobs to hybridsearch worker processes) and the scans.
func (m *App) startWorkers(ctx context.Context) {
	if m.Worker || m.Config.Workers > 0 {
		m.components.run(ctx, "indexing workers", func(ctx context.Context) error { return m.Queue.Run(ctx, m.engines.process) })
	} else {
		m.Logger.Info("WORKERS=0: this process indexes nothing; hybridsearch worker processes take the jobs")
	}
	m.components.run(ctx, "scanner", func(ctx context.Context) error {
		m.Scanner.Run(ctx, 0) // scans on request; runScanTicker requests them
		return nil
	})
	if !m.Worker { // full scans run in serve only
		m.components.run(ctx, "scan ticker", func(ctx context.Context) error {
			m.settings.runScanTicker(ctx)
			return nil
		})
	}
	m.components.run(ctx, "settings watcher", func(ctx context.Context) error {
		m.settings.watch(ctx)
		return nil
	})
	m.components.run(ctx, "pause watcher", func(ctx context.Context) error {
		m.pauses.watch(ctx)
		return nil
	})
}

// Health reports whether every component runs: nil when they do, else
// what is wrong ("starting", "stopping", or the component that failed).
// /heartbeat answers with it.
func (m *App) Health() error { return m.components.health() }

// ListenAddr returns where the app listens ("127.0.0.1:23000" or the
// socket path; "" before Run and in a worker).
func (m *App) ListenAddr() string { return m.http.addr() }

// Done delivers the error of the first component that stopped by itself,
// once App has shut down after it.
func (m *App) Done() <-chan error { return m.done }

func (m *App) checkNATS(ctx context.Context) error {
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

func (m *App) pingNextcloud(ctx context.Context) error {
	_, err := m.Nextcloud.Ping(ctx)
	return err
}

// Close shuts down in reverse order under a timeout: HTTP first, then the
// workers (they drain), then the store and NATS. It is safe to call on a
// partly started App, and more than once (later calls return the first
// call's result).
func (m *App) Close() error {
	m.closeOnce.Do(func() { m.closeErr = m.close() })
	return m.closeErr
}

func (m *App) close() error {
	m.components.stop()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	var errs []error
	if m.Answer != nil {
		m.Answer.Close() // streamed answers would hold the HTTP shutdown
	}
	if err := m.http.shutdown(ctx); err != nil {
		errs = append(errs, err)
	}
	if m.Listener != nil && (m.http.server == nil || m.http.listener != m.Listener) {
		_ = m.Listener.Close() // handed over but not served
	}
	if m.cancel != nil {
		m.cancel()
	}
	if m.Lifecycle != nil {
		_ = m.Lifecycle.WaitInit(ctx)
	}
	m.components.wait()
	if m.engines != nil {
		if err := m.engines.close(); err != nil {
			errs = append(errs, err)
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

// rules are the exclusion rules in force: the admin's (or the
// environment's) and the paused users.
func (m *App) rules() indexing.Rules { return m.pauses.with(m.settings.exclusions()) }

// retryPolicy is the one retry policy of index jobs: the queue applies it
// and the pipeline reads it, so their numbers of tries cannot drift apart.
func (m *App) retryPolicy() hs.RetryPolicy {
	return hs.RetryPolicy{Backoff: m.Config.RetryBackoff}
}
