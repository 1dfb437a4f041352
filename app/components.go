package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// components runs the app's long-running components (HTTP server, queue
// workers, scanner, watchers) under one errgroup and tells their health.
// A component that returns before its context ends or stop is called has
// failed: the first failure is logged and handed to onFail, once. Its
// zero value runs components; logger and onFail are set before the first
// one starts.
type components struct {
	logger *slog.Logger
	onFail func(err error) // the first failure; nil: only recorded

	group    errgroup.Group
	started  atomic.Bool             // every component runs
	stopping atomic.Bool             // the app is shutting down
	failed   atomic.Pointer[failure] // the first component that stopped by itself
}

// failure is the first component that stopped by itself.
type failure struct {
	component string
	err       error
}

// run runs fn under the group until ctx ends or stop is called.
func (c *components) run(ctx context.Context, name string, fn func(context.Context) error) {
	c.group.Go(func() error {
		err := fn(ctx)
		if ctx.Err() != nil || c.stopping.Load() {
			if err != nil {
				c.logger.Warn("component stopped with an error while shutting down", "component", name, "error", err)
			}
			return nil
		}
		if err == nil {
			err = errors.New("stopped unexpectedly")
		}
		err = fmt.Errorf("%s: %w", name, err)
		if c.failed.CompareAndSwap(nil, &failure{component: name, err: err}) {
			c.logger.Error("a component failed; shutting down", "component", name, "error", err)
			if c.onFail != nil {
				c.onFail(err)
			}
		}
		return err
	})
}

// running records that every component has started.
func (c *components) running() { c.started.Store(true) }

// stop records that the app is shutting down: components that return
// from now on have not failed.
func (c *components) stop() { c.stopping.Store(true) }

// wait waits until every component has returned.
func (c *components) wait() { _ = c.group.Wait() } // failures are reported by run

// health is nil when every component runs, else what is wrong
// ("starting", "stopping", or the component that failed).
func (c *components) health() error {
	if f := c.failed.Load(); f != nil {
		return fmt.Errorf("failed: %s", f.component)
	}
	if c.stopping.Load() {
		return errors.New("stopping")
	}
	if !c.started.Load() {
		return errors.New("starting")
	}
	return nil
}
