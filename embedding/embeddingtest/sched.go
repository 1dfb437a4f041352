package embeddingtest

import (
	"context"
	"sort"
	"time"
)

// The Server's model scheduler copies Ollama's (server/sched.go in
// v0.17.4), as far as it decides who waits for a model:
//
//   - A loaded model (a runner) serves every request for it whose runner
//     options are the same (num_ctx here): GetRunner hands it out at once
//     (useLoadedRunner), however many requests wait for something else.
//     Such a request counts as a reference until it ends and, if it
//     carries keep_alive, sets the runner's keep-alive to it
//     (sessionDuration).
//   - Any other request (the model not loaded, or loaded with other
//     options) waits in one line (pendingReqCh, served by processPending
//     one at a time). Its turn loads the model, after making room: a runner
//     of the same model with other options, or, with as many models loaded
//     as allowed (OLLAMA_MAX_LOADED_MODELS), an idle one, else the one with
//     the shortest keep-alive (findRunnerToUnload), is made to expire
//     (its keep-alive set to 0), and the turn waits until it is unloaded.
//   - A runner whose last reference ends unloads at once with a keep-alive
//     of 0 or less, else after its keep-alive (processCompleted's timer).
//     A loaded model gets the request's keep_alive, else the server's
//     (OLLAMA_KEEP_ALIVE, 5 minutes; Scheduler.load, envconfig.KeepAlive).
//
// So a client that needs a model reloaded waits while another client keeps
// the model busy, and then for that client's keep-alive: each of its
// requests resets the keep-alive the scheduler had set to 0. Without a
// keep_alive in its requests the wait ends when its requests in flight
// do. Nothing else of Ollama's scheduling (memory fit, GPUs, load
// failures) is modelled.

// defaultKeepAlive is Ollama's keep-alive when neither the request nor
// OLLAMA_KEEP_ALIVE sets one (envconfig.KeepAlive, v0.17.4).
const defaultKeepAlive = 5 * time.Minute

// defaultMaxLoaded is how many models Ollama keeps loaded at once without
// OLLAMA_MAX_LOADED_MODELS on a machine with no GPU: defaultModelsPerGPU
// (3) times max(GPUs, 1) (sched.go processPending, v0.17.4).
const defaultMaxLoaded = 3

// runner is one loaded model.
type runner struct {
	model     string
	numCtx    int
	refs      int
	keepAlive time.Duration // sessionDuration
	expires   *time.Timer
	loadedAt  time.Time
}

// SchedOptions configure the Server's scheduler. Zero fields take Ollama's
// defaults.
type SchedOptions struct {
	// KeepAlive is the server's keep-alive (OLLAMA_KEEP_ALIVE): how long
	// a model loaded by a request without keep_alive stays loaded once
	// idle; 0 means 5 minutes, negative forever.
	KeepAlive time.Duration
	// MaxLoaded is OLLAMA_MAX_LOADED_MODELS; 0 means 3.
	MaxLoaded int
	// LoadTime is how long loading a model takes.
	LoadTime time.Duration
}

// SetScheduler sets the scheduler's options, for models loaded from now on.
func (s *Server) SetScheduler(o SchedOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.schedOpts = o
}

// Loaded returns the models loaded now, with the num_ctx each was loaded
// with.
func (s *Server) Loaded() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.loaded))
	for name, r := range s.loaded {
		out[name] = r.numCtx
	}
	return out
}

// acquire returns the runner of model m with num_ctx n for one request,
// loading it when needed as Ollama's scheduler does; release ends the
// request's use of it. keepAlive is the request's keep_alive (nil: none).
// It returns ctx's error if the request ends while it waits.
func (s *Server) acquire(ctx context.Context, m Model, n int, keepAlive *time.Duration) (release func(), err error) {
	s.mu.Lock()
	if r := s.loaded[m.Name]; r != nil && r.numCtx == n {
		defer s.mu.Unlock()
		return s.useLoaded(r, keepAlive), nil
	}
	s.mu.Unlock()
	select { // processPending serves one waiting request at a time
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.turn }()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err // sched.go skips a cancelled pending request
		}
		s.mu.Lock()
		r := s.loaded[m.Name]
		var victim *runner
		switch {
		case r != nil && r.numCtx == n:
			defer s.mu.Unlock()
			return s.useLoaded(r, keepAlive), nil
		case r != nil:
			victim = r // needsReload
		case len(s.loaded) >= s.maxLoaded():
			victim = s.runnerToUnload()
		default:
			r = &runner{model: m.Name, numCtx: n, refs: 1, keepAlive: s.serverKeepAlive(), loadedAt: time.Now()}
			if keepAlive != nil {
				r.keepAlive = *keepAlive
			}
			s.loaded[m.Name] = r
			s.loads[m.Name]++
			load := s.schedOpts.LoadTime
			s.mu.Unlock()
			if load > 0 {
				t := time.NewTimer(load)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
				}
			}
			return func() { s.finished(r) }, nil
		}
		// Expire the victim now, or once its last request ends, and wait
		// for an unload.
		if victim.expires != nil {
			victim.expires.Stop()
			victim.expires = nil
		}
		victim.keepAlive = 0
		unloaded := s.unloaded
		if victim.refs <= 0 {
			s.unloadLocked(victim)
		}
		s.mu.Unlock()
		select {
		case <-unloaded:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// useLoaded hands r to one more request (sched.go useLoadedRunner).
// Callers hold s.mu.
func (s *Server) useLoaded(r *runner, keepAlive *time.Duration) (release func()) {
	r.refs++
	if r.expires != nil {
		r.expires.Stop()
		r.expires = nil
	}
	if keepAlive != nil {
		r.keepAlive = *keepAlive
	}
	return func() { s.finished(r) }
}

// finished ends one request's use of r (sched.go processCompleted).
func (s *Server) finished(r *runner) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.refs--
	if r.refs > 0 {
		return
	}
	switch {
	case r.keepAlive <= 0:
		s.unloadLocked(r)
	case r.expires == nil:
		r.expires = time.AfterFunc(r.keepAlive, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if r.refs <= 0 {
				s.unloadLocked(r)
			}
		})
	default:
		r.expires.Reset(r.keepAlive)
	}
}

// unloadLocked unloads r and wakes the requests waiting for an unload.
// Callers hold s.mu.
func (s *Server) unloadLocked(r *runner) {
	if s.loaded[r.model] != r {
		return // unloaded already
	}
	if r.expires != nil {
		r.expires.Stop()
		r.expires = nil
	}
	delete(s.loaded, r.model)
	close(s.unloaded)
	s.unloaded = make(chan struct{})
}

// runnerToUnload picks the runner to make room with: an idle one, else
// the one with the shortest keep-alive (sched.go findRunnerToUnload,
// ByDurationAndName). Callers hold s.mu.
func (s *Server) runnerToUnload() *runner {
	list := make([]*runner, 0, len(s.loaded))
	for _, r := range s.loaded {
		list = append(list, r)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].keepAlive != list[j].keepAlive {
			return uint64(list[i].keepAlive) < uint64(list[j].keepAlive)
		}
		return list[i].model < list[j].model
	})
	for _, r := range list {
		if r.refs == 0 {
			return r
		}
	}
	return list[0]
}

func (s *Server) serverKeepAlive() time.Duration {
	switch d := s.schedOpts.KeepAlive; {
	case d == 0:
		return defaultKeepAlive
	case d < 0:
		return time.Duration(1<<63 - 1)
	default:
		return d
	}
}

func (s *Server) maxLoaded() int {
	if s.schedOpts.MaxLoaded > 0 {
		return s.schedOpts.MaxLoaded
	}
	return defaultMaxLoaded
}

// stopTimers stops every keep-alive timer (Close).
func (s *Server) stopTimers() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.loaded {
		if r.expires != nil {
			r.expires.Stop()
			r.expires = nil
		}
	}
}
