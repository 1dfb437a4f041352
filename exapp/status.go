package exapp

import (
	"context"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Check probes one component; nil means healthy.
type Check func(ctx context.Context) error

// Health reports the app's version and the health of its components.
type Health struct {
	Version string
	Checks  map[string]Check // by component name: "nats", "nextcloud", ...
	Timeout time.Duration    // per check; 0 means 3 s
}

// ComponentStatus is one component's health.
type ComponentStatus struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// StatusReport is the body of GET /api/status.
type StatusReport struct {
	Version    string                     `json:"version"`
	User       hs.UserID                  `json:"user"`
	Components map[string]ComponentStatus `json:"components"`
}

// Status runs every check concurrently and reports them for user.
func (h *Health) Status(ctx context.Context, user hs.UserID) (any, error) {
	timeout := h.Timeout
	if timeout == 0 {
		timeout = 3 * time.Second
	}
	rep := StatusReport{Version: h.Version, User: user, Components: map[string]ComponentStatus{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, check := range h.Checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			st := ComponentStatus{OK: true}
			if err := check(cctx); err != nil {
				st = ComponentStatus{Error: hs.ErrorMessage(err)}
			}
			mu.Lock()
			rep.Components[name] = st
			mu.Unlock()
		}()
	}
	wg.Wait()
	return rep, nil
}
