package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"
)

// httpServers are the app's listeners: its own address (TCP, or the HaRP
// unix socket) and the operator endpoints on METRICS_ADDR. Either may be
// missing: a worker has no app address, and METRICS_ADDR may be unset.
type httpServers struct {
	server      *http.Server // the app's
	listener    net.Listener
	ops         *http.Server // METRICS_ADDR
	opsListener net.Listener
}

// listen opens cfg's address, or the HaRP unix socket when HP_SHARED_KEY
// is set, for h; given, if not nil, is used instead of cfg's TCP address
// (App.Listener). serve then serves it.
func (s *httpServers) listen(cfg Config, given net.Listener, h http.Handler, logger *slog.Logger) error {
	var err error
	switch {
	case cfg.HaRPSharedKey != "":
		_ = os.Remove(cfg.HaRPSocket)
		s.listener, err = net.Listen("unix", cfg.HaRPSocket)
	case given != nil:
		s.listener = given
	default:
		s.listener, err = net.Listen("tcp", cfg.Addr())
	}
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	s.server = newServer(h, 30*time.Second, 2*time.Minute, logger)
	return nil
}

// newServer is an HTTP server for h with the given read and write
// timeouts, and the limits both listeners share.
func newServer(h http.Handler, read, write time.Duration, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       read,
		WriteTimeout:      write,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// serve serves the app's address until shutdown (then it returns nil) or
// the listener fails.
func (s *httpServers) serve(context.Context) error {
	if err := s.server.Serve(s.listener); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil // shutdown closed it
}

// listenOps serves h alone on addr (METRICS_ADDR) in the background. The
// operator endpoints are not a component: their listener failing is
// logged, not a reason to stop indexing.
func (s *httpServers) listenOps(addr string, h http.Handler, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on METRICS_ADDR: %w", err)
	}
	s.opsListener = ln
	s.ops = newServer(h, 10*time.Second, 30*time.Second, logger)
	srv := s.ops
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics listener stopped", "error", err)
		}
	}()
	return nil
}

// addr is where the app listens ("" before listen).
func (s *httpServers) addr() string {
	if s.listener == nil {
		return ""
	}
	return s.listener.Addr().String()
}

// opsAddr is where METRICS_ADDR listens ("" when it is not set).
func (s *httpServers) opsAddr() string {
	if s.opsListener == nil {
		return ""
	}
	return s.opsListener.Addr().String()
}

// shutdown stops both servers, waiting for their requests until ctx ends.
func (s *httpServers) shutdown(ctx context.Context) error {
	var errs []error
	for _, srv := range []*http.Server{s.server, s.ops} {
		if srv != nil {
			if err := srv.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("http shutdown: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}
