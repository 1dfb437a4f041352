package assistant

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

// Tasks is the part of the Nextcloud client the providers use
// (*nextcloud.Client); every call is made without a user.
type Tasks interface {
	RegisterTaskProvider(ctx context.Context, p nextcloud.TaskProvider) error
	UnregisterTaskProvider(ctx context.Context, id string) error
	NextTask(ctx context.Context, providers, taskTypes []string) (*nextcloud.Task, string, error)
	SetTaskProgress(ctx context.Context, id int64, progress float64) (nextcloud.Task, error)
	SetTaskResult(ctx context.Context, id int64, output map[string]any) (nextcloud.Task, error)
	FailTask(ctx context.Context, id int64, message, userMessage string) (nextcloud.Task, error)
}

// Searcher runs one user's search (*search.Service).
type Searcher interface {
	Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error)
}

// Answerer writes answers on its own lane (*answer.Service, adapted).
type Answerer interface {
	// Reserve takes a free answer slot without waiting; false when none
	// is free or asking is off.
	Reserve() (Asking, bool)
}

// Asking is a reserved answer slot: Ask uses and frees it, Release frees
// it unused.
type Asking interface {
	Ask(ctx context.Context, user hs.UserID, req hs.AskRequest, stream hs.AnswerStream) (hs.Answer, error)
	Release()
}

// Defaults for Options.
const (
	DefaultSearchSlots   = 4
	DefaultPoll          = 5 * time.Second
	DefaultPollTriggered = time.Minute
	searchTimeout        = time.Minute
	postTimeout          = 30 * time.Second
	// DefaultProgressEvery is how often an answer in progress is reported
	// (which is also how the app learns that the user cancelled it).
	DefaultProgressEvery = 2 * time.Second
)

// Options configure New. Zero fields take the defaults.
type Options struct {
	// AppID names the providers ("<app>-search") and task types
	// ("<app>:search"). Required.
	AppID  string
	Tasks  Tasks    // required
	Search Searcher // required
	// Ask, if non-nil, answers questions once SetAsk(true) says a chat
	// model is configured.
	Ask Answerer
	// SearchSlots is how many search tasks run at once.
	SearchSlots int
	// Poll is how often each lane asks for tasks until the first trigger
	// arrives (Nextcloud 32 never triggers), PollTriggered afterwards.
	Poll, PollTriggered time.Duration
	// ProgressEvery is how often a question's progress is reported.
	ProgressEvery time.Duration
	// Observe, if non-nil, hears of every task the app ended: its kind
	// ("search" or "ask"), the time from claiming it to its result, and
	// its error (nil on success).
	Observe func(kind string, d time.Duration, err error)
	Logger  *slog.Logger // nil means slog.Default()
}

// Service runs the app's Task Processing providers. Create it with New.
type Service struct {
	tasks         Tasks
	search        Searcher
	ask           Answerer
	appID         string
	poll          time.Duration
	pollTr        time.Duration
	progressEvery time.Duration
	observe       func(string, time.Duration, error)
	log           *slog.Logger

	searchLane, askLane *lane
	askOn               atomic.Bool
	triggered           atomic.Bool
	syncMu              sync.Mutex // serializes Sync and Remove
	inFlight            sync.WaitGroup
}

// New returns a Service; Run starts its lanes.
func New(o Options) (*Service, error) {
	if o.AppID == "" || o.Tasks == nil || o.Search == nil {
		return nil, hs.Errorf(hs.EINVALID, "assistant: an app id, the task API and a searcher are required")
	}
	s := &Service{tasks: o.Tasks, search: o.Search, ask: o.Ask, appID: o.AppID, observe: o.Observe, log: o.Logger,
		poll: o.Poll, pollTr: o.PollTriggered, progressEvery: o.ProgressEvery}
	if s.progressEvery <= 0 {
		s.progressEvery = DefaultProgressEvery
	}
	if s.poll <= 0 {
		s.poll = DefaultPoll
	}
	if s.pollTr <= 0 {
		s.pollTr = DefaultPollTriggered
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	slots := o.SearchSlots
	if slots <= 0 {
		slots = DefaultSearchSlots
	}
	sem := make(chan struct{}, slots)
	s.searchLane = &lane{kind: "search", provider: SearchProvider(o.AppID), kick: make(chan struct{}, 1),
		acquire: func() slot {
			select {
			case sem <- struct{}{}:
				return searchSlot{s: s, free: func() { <-sem }}
			default:
				return nil
			}
		}}
	s.askLane = &lane{kind: "ask", provider: AskProvider(o.AppID), kick: make(chan struct{}, 1),
		acquire: func() slot {
			if s.ask == nil || !s.askOn.Load() {
				return nil
			}
			a, ok := s.ask.Reserve()
			if !ok {
				return nil
			}
			return askSlot{s: s, a: a}
		}}
	return s, nil
}

// SetAsk says whether a chat model is configured: the ask provider is
// registered by the next Sync and its lane takes tasks only while on.
func (s *Service) SetAsk(on bool) {
	s.askOn.Store(on && s.ask != nil)
	if on {
		s.askLane.poke()
	}
}

// Providers returns the providers Sync registers now.
func (s *Service) Providers() []nextcloud.TaskProvider {
	out := []nextcloud.TaskProvider{SearchProvider(s.appID)}
	if s.askOn.Load() {
		out = append(out, AskProvider(s.appID))
	}
	return out
}

// Sync registers the search provider, and the ask provider while a chat
// model is configured (else removes it). Registering again replaces a
// provider, so Sync may run any number of times; while the app is
// disabled AppAPI refuses it.
func (s *Service) Sync(ctx context.Context) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	var errs []error
	for _, p := range s.Providers() {
		if err := s.tasks.RegisterTaskProvider(ctx, p); err != nil {
			errs = append(errs, fmt.Errorf("register task provider %s: %w", p.ID, err))
		}
	}
	if !s.askOn.Load() {
		if err := s.tasks.UnregisterTaskProvider(ctx, AskProvider(s.appID).ID); err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
			errs = append(errs, fmt.Errorf("unregister task provider %s: %w", AskProvider(s.appID).ID, err))
		}
	}
	if len(errs) == 0 {
		s.log.Info("Assistant task providers registered", "providers", len(s.Providers()))
	}
	s.searchLane.poke()
	s.askLane.poke()
	return errors.Join(errs...)
}

// Remove unregisters both providers (on disable).
func (s *Service) Remove(ctx context.Context) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	var errs []error
	for _, p := range []nextcloud.TaskProvider{SearchProvider(s.appID), AskProvider(s.appID)} {
		if err := s.tasks.UnregisterTaskProvider(ctx, p.ID); err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
			errs = append(errs, fmt.Errorf("unregister task provider %s: %w", p.ID, err))
		}
	}
	return errors.Join(errs...)
}

// Trigger is AppAPI's nudge for a provider (POST /trigger?providerId=):
// its lane takes tasks now. An unknown provider is ENOTFOUND.
func (s *Service) Trigger(providerID string) error {
	var l *lane
	switch providerID {
	case s.searchLane.provider.ID:
		l = s.searchLane
	case s.askLane.provider.ID:
		l = s.askLane
	default:
		return hs.Errorf(hs.ENOTFOUND, "assistant: no task provider %q", providerID)
	}
	s.triggered.Store(true)
	l.poke()
	return nil
}

// Run takes and runs tasks until ctx ends, then waits for the tasks in
// flight: each is ended (a task cut short fails with a message saying the
// app is stopping).
func (s *Service) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, l := range []*lane{s.searchLane, s.askLane} {
		wg.Go(func() { s.runLane(ctx, l) })
	}
	wg.Wait()
	s.inFlight.Wait()
}
