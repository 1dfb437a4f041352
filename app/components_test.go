package app

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// awaitFailure waits for Main to report a failed component and to have
// shut down after it.
func awaitFailure(t *testing.T, m *App) error {
	t.Helper()
	select {
	case err := <-m.Done():
		if err == nil {
			t.Fatal("Done delivered nil, want the failure")
		}
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the app did not stop within 30 s of a component failing")
	}
	return nil
}

// TestDeadComponentStopsApp: a component that stops by itself (here the
// queue workers, whose NATS connection closed for good) shuts the whole
// app down and is reported, instead of being logged while the heartbeat
// stays green and nothing indexes.
func TestDeadComponentStopsApp(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{})
	m := env.Main
	if err := m.Health(); err != nil {
		t.Fatalf("Health after Run = %v, want nil", err)
	}
	resp, body := doReq(t, mustReq(t, http.MethodGet, env.appURL()+"/heartbeat"))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"ok"`) {
		t.Fatalf("heartbeat = %d %s, want 200 ok", resp.StatusCode, body)
	}
	url := env.appURL()
	m.NATS.Close()
	err := awaitFailure(t, m)
	if !strings.Contains(err.Error(), "indexing workers") {
		t.Errorf("failure = %v, want it to name the indexing workers", err)
	}
	if h := m.Health(); h == nil || !strings.Contains(h.Error(), "indexing workers") {
		t.Errorf("Health after the failure = %v, want failed: indexing workers", h)
	}
	// The rest was shut down: the HTTP server no longer answers.
	c := &http.Client{Timeout: 2 * time.Second}
	if resp, err := c.Get(url + "/heartbeat"); err == nil {
		resp.Body.Close()
		t.Errorf("heartbeat after the failure answered %d, want no server", resp.StatusCode)
	}
	if err := m.Close(); err != nil {
		t.Errorf("Close after the failure = %v", err)
	}
}

// TestHTTPServerFailureStopsApp: the HTTP server dying (its listener
// gone) stops the app with an error naming it; before, the process went
// on without answering anyone and exited 0 later.
func TestHTTPServerFailureStopsApp(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{})
	m := env.Main
	_ = m.http.listener.Close()
	err := awaitFailure(t, m)
	if !strings.Contains(err.Error(), "http server") {
		t.Errorf("failure = %v, want it to name the http server", err)
	}
	if !m.NATS.IsClosed() {
		t.Error("NATS connection still open after the app stopped")
	}
}

// TestServeUntilFailure: serve and demo return the failure (the process
// exits 1 with one line naming the component); a signal is a clean stop.
func TestServeUntilFailure(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.DiscardHandler)
	failed := &App{done: make(chan error, 1)}
	failed.done <- errors.New("indexing workers: queue: run: the NATS connection is closed")
	err := ServeUntil(context.Background(), failed, logger)
	if err == nil || !strings.Contains(err.Error(), "indexing workers") {
		t.Errorf("serveUntil after a failure = %v, want the failure", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ServeUntil(ctx, &App{done: make(chan error, 1)}, logger); err != nil {
		t.Errorf("serveUntil after a signal = %v, want nil", err)
	}
}
