package app

import (
	"context"
	"errors"
	"io"
)

// defaultWorkerMetricsAddr is the worker's METRICS_ADDR when unset.
const defaultWorkerMetricsAddr = ":9090"

// RunWorker runs a consumer-only process ("hybridsearch worker") until ctx
// is cancelled, configured by getenv, logging to stderr.
func RunWorker(ctx context.Context, getenv func(string) string, stderr io.Writer) error {
	cfg, err := LoadConfig(workerEnv(getenv))
	if err != nil {
		return err
	}
	logger := NewLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	m := New(cfg, logger)
	m.Worker = true
	if err := m.Run(ctx); err != nil {
		_ = m.Close()
		return err
	}
	logger.Info("worker running", "metrics_addr", m.OpsAddr(), "version", Version)
	select {
	case <-ctx.Done():
	case err := <-m.Done():
		if err != nil {
			logger.Error("worker stopped", "error", err)
		}
	}
	logger.Info("shutting down")
	return m.Close()
}

// workerEnv fills in what a worker does not use (APP_PORT) and its
// METRICS_ADDR default.
func workerEnv(getenv func(string) string) func(string) string {
	return func(k string) string {
		v := getenv(k)
		switch {
		case v != "":
			return v
		case k == "APP_PORT":
			return "1" // not listened on
		case k == "METRICS_ADDR":
			return defaultWorkerMetricsAddr
		}
		return v
	}
}

// checkWorker refuses a worker without what it shares with serve.
func (m *App) checkWorker() error {
	switch {
	case !m.Worker:
		return nil
	case m.Config.NATSURL == "":
		return errors.New("worker: NATS_URL is not set: a worker shares serve's NATS (an embedded one would be its own)")
	case m.Config.QdrantURL == "":
		return errors.New("worker: QDRANT_URL is not set: the embedded local store belongs to one process (serve); workers need Qdrant")
	case m.Config.Workers == 0:
		return errors.New("worker: WORKERS=0: a worker without indexing workers would do nothing (WORKERS=0 is for serve; give the workers 1 or more)")
	case m.Config.MetricsAddr == "":
		return errors.New("worker: METRICS_ADDR is empty: a worker serves /metrics, /healthz and /readyz there")
	}
	return nil
}
