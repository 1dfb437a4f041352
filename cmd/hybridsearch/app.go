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
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/exapp"
	"github.com/hybrid-search/hybridsearch/frontend"
	"github.com/hybrid-search/hybridsearch/handlers"
	"github.com/hybrid-search/hybridsearch/indexing"
	"github.com/hybrid-search/hybridsearch/nextcloud"
	"github.com/hybrid-search/hybridsearch/queue"
)

// Main wires every component and owns their lifetimes. Its fields are
// exported so end-to-end tests can reach the components.
type Main struct {
	Config Config
	Logger *slog.Logger

	NATSServer *server.Server // embedded server; nil with NATS_URL
	NATS       *nats.Conn
	Queue      *queue.Queue
	Nextcloud  *nextcloud.Client
	Lifecycle  *exapp.Lifecycle
	Handlers   *handlers.Server
	Reporter   *indexing.Reporter

	httpServer *http.Server
	listener   net.Listener
	cancel     context.CancelFunc
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

	if cfg.NATSURL == "" {
		ns, err := queue.RunEmbedded(queue.EmbeddedOptions{StoreDir: filepath.Join(cfg.PersistentStorage, "nats"), Logger: m.Logger})
		if err != nil {
			return err
		}
		m.NATSServer = ns
	}
	nc, err := queue.Connect(cfg.NATSURL, m.NATSServer, "hybridsearch")
	if err != nil {
		return err
	}
	m.NATS = nc
	m.Queue, err = queue.Open(ctx, nc, queue.Options{Workers: cfg.Workers, Logger: m.Logger})
	if err != nil {
		return err
	}

	m.Lifecycle = exapp.New(ctx, m.Nextcloud, exapp.Options{
		AppID: cfg.AppID, Version: cfg.AppVersion, DisplayName: cfg.AppDisplayName, Logger: m.Logger,
		Steps: []exapp.InitStep{
			{Name: "reach Nextcloud", Run: func(ctx context.Context, _ func(float64)) error { return m.pingNextcloud(ctx) }},
			{Name: "reach NATS", Run: func(ctx context.Context, _ func(float64)) error { return m.checkNATS(ctx) }},
		},
	})
	m.Reporter = &indexing.Reporter{Version: cfg.AppVersion, Checks: map[string]indexing.Check{
		"nats":      m.checkNATS,
		"nextcloud": m.pingNextcloud,
	}}
	m.Handlers, err = handlers.New(handlers.Deps{
		AppID: cfg.AppID, AppSecret: cfg.AppSecret, Lifecycle: m.Lifecycle, Status: statusSource{m.Reporter}, Publish: m.Queue,
		Assets: frontend.Assets(), Logger: m.Logger,
	})
	if err != nil {
		return err
	}
	return m.listen()
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

// Close shuts down in reverse order under a timeout: HTTP first, then
// background work, then NATS. It is safe to call on a partly started Main.
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
