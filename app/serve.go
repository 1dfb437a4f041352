package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/hybrid-search/hybridsearch/appinfo"
)

// Version is the app's version: appinfo/info.xml's <version>, embedded in
// the binary, so the binary, the image tag and the release archive cannot
// disagree. AppAPI's APP_VERSION is what Nextcloud registered.
var Version = appinfo.Version()

// Serve runs the app in ExApp mode ("hybridsearch serve") until ctx is
// cancelled, configured by getenv, logging to stderr.
func Serve(ctx context.Context, getenv func(string) string, stderr io.Writer) error {
	return serveOn(ctx, nil, getenv, stderr)
}

// serveOn is Serve on ln when it is not nil (see App.Listener).
func serveOn(ctx context.Context, ln net.Listener, getenv func(string) string, stderr io.Writer) error {
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	logger := NewLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	if cfg.AppVersion != Version {
		logger.Warn("AppAPI registered another version of the app than this build; run occ app_api:app:update",
			"app_version", cfg.AppVersion, "build_version", Version)
	}
	m := New(cfg, logger)
	m.Listener = ln
	if err := m.Run(ctx); err != nil {
		_ = m.Close()
		return err
	}
	logger.Info("serving", "addr", m.ListenAddr(), "version", Version)
	return ServeUntil(ctx, m, logger)
}

// ServeUntil waits until ctx ends (a signal), then shuts m down, or until
// one of m's components fails, which shuts m down too and is returned, so
// the process exits non-zero with one line naming the component.
func ServeUntil(ctx context.Context, m *App, logger *slog.Logger) error {
	select {
	case <-ctx.Done():
	case err := <-m.Done():
		return fmt.Errorf("stopped because a component failed: %w", err)
	}
	logger.Info("shutting down")
	return m.Close()
}

// NewLogger builds the process logger: level as LOG_LEVEL, format "json"
// or text, with the request id of the context on every record.
func NewLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(strings.ToUpper(level)))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(requestIDHandler{slog.NewJSONHandler(w, opts)})
	}
	return slog.New(requestIDHandler{slog.NewTextHandler(w, opts)})
}

// shutdownTimeout bounds App.Close.
const shutdownTimeout = 20 * time.Second
