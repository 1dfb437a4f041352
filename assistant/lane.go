package assistant

import (
	"context"
	"time"

	"github.com/hybrid-search/hybridsearch/nextcloud"
)

// lane takes one provider's tasks while it has free slots.
type lane struct {
	kind     string
	provider nextcloud.TaskProvider
	kick     chan struct{} // capacity 1: take tasks now
	// acquire takes a slot for one task; nil when none is free.
	acquire func() slot
}

// slot is room for one task: run uses it up, release frees it unused.
type slot interface {
	run(ctx context.Context, t *nextcloud.Task)
	release()
}

// poke makes the lane look for tasks now.
func (l *lane) poke() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// runLane takes tasks whenever poked, and every poll interval, until ctx
// ends. After a failing look it waits longer each time (up to the poll
// interval), so a disabled app or an unreachable Nextcloud is asked
// rarely.
func (s *Service) runLane(ctx context.Context, l *lane) {
	backoff := time.Duration(0)
	for {
		if err := s.drain(ctx, l); err != nil {
			if ctx.Err() != nil {
				return
			}
			backoff = min(max(2*backoff, time.Second), s.interval())
			s.log.Debug("taking Assistant tasks failed", "lane", l.kind, "error", err, "retry_in", backoff)
		} else {
			backoff = 0
		}
		wait := s.interval()
		if backoff > 0 {
			wait = backoff
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-l.kick:
		case <-t.C:
		}
		t.Stop()
	}
}

// interval is how often a lane asks for tasks unprompted.
func (s *Service) interval() time.Duration {
	if s.triggered.Load() {
		return s.pollTr
	}
	return s.poll
}

// drain claims tasks while the lane has free slots and Nextcloud has
// tasks, starting each at once. A finished task pokes the lane, which
// then looks again.
func (s *Service) drain(ctx context.Context, l *lane) error {
	for ctx.Err() == nil {
		sl := l.acquire()
		if sl == nil {
			return nil
		}
		t, _, err := s.tasks.NextTask(ctx, []string{l.provider.ID}, []string{l.provider.TaskType})
		if err != nil || t == nil {
			sl.release()
			return err
		}
		s.inFlight.Add(1)
		go func() {
			defer s.inFlight.Done()
			defer l.poke()
			sl.run(ctx, t)
		}()
	}
	return nil
}

// searchSlot runs a search task.
type searchSlot struct {
	s    *Service
	free func()
}

func (sl searchSlot) run(ctx context.Context, t *nextcloud.Task) {
	defer sl.free()
	sl.s.runSearch(ctx, t)
}

func (sl searchSlot) release() { sl.free() }

// askSlot runs a question in a reserved answer slot.
type askSlot struct {
	s *Service
	a Asking
}

func (sl askSlot) run(ctx context.Context, t *nextcloud.Task) {
	defer sl.a.Release()
	sl.s.runAsk(ctx, t, sl.a)
}

func (sl askSlot) release() { sl.a.Release() }
