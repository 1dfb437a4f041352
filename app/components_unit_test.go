package app

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestComponentsHealth: a component that returns while the app runs has
// failed, with or without an error, and only the first failure is handed
// on; one that returns once the app stops, or once its context ended, has
// not.
func TestComponentsHealth(t *testing.T) {
	tests := []struct {
		name       string
		stopFirst  bool // stop is called before the components return
		cancelCtx  bool // their context ended before they return
		errs       []error
		wantHealth string // "" for nil
		wantFails  []string
	}{
		{name: "one returns an error", errs: []error{errors.New("connection closed")},
			wantHealth: "failed: c0", wantFails: []string{"c0: connection closed"}},
		{name: "one returns without an error", errs: []error{nil},
			wantHealth: "failed: c0", wantFails: []string{"c0: stopped unexpectedly"}},
		{name: "only the first failure", errs: []error{errors.New("first"), errors.New("second")},
			wantHealth: "failed: c0", wantFails: []string{"c0: first"}},
		{name: "while stopping", stopFirst: true, errs: []error{errors.New("closed")}, wantHealth: "stopping"},
		{name: "after the context ended", cancelCtx: true, errs: []error{errors.New("canceled")}, wantHealth: "starting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fails []string
			c := &components{logger: slog.New(slog.DiscardHandler), onFail: func(err error) { fails = append(fails, err.Error()) }}
			if err := c.health(); err == nil || err.Error() != "starting" {
				t.Errorf("health before running = %v, want starting", err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelCtx {
				cancel()
			}
			if tt.stopFirst {
				c.stop()
			}
			// One at a time, so "first" is well defined.
			for i, err := range tt.errs {
				c.run(ctx, "c"+string(rune('0'+i)), func(context.Context) error { return err })
				c.wait()
			}
			got := ""
			if err := c.health(); err != nil {
				got = err.Error()
			}
			if got != tt.wantHealth {
				t.Errorf("health = %q, want %q", got, tt.wantHealth)
			}
			if strings.Join(fails, "|") != strings.Join(tt.wantFails, "|") {
				t.Errorf("failures handed on = %q, want %q", fails, tt.wantFails)
			}
		})
	}
	c := &components{}
	c.running()
	if err := c.health(); err != nil {
		t.Errorf("health while running = %v, want nil", err)
	}
}
