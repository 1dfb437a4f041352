package assistant

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

// searchResults is how many documents a search task lists.
const searchResults = 10

// User-facing messages (Nextcloud 33 shows them; the log has the cause).
const (
	msgNoUser       = "Hybrid Search searches only for a signed-in user."
	msgEmpty        = "The task has no text to search for."
	msgSearchDown   = "Your files cannot be searched right now. Please try again later."
	msgStopping     = "Hybrid Search was stopping. Please try again in a moment."
	msgModelDown    = "The chat model is not reachable right now, so the question could not be answered. Please try again later; if it keeps failing, tell your administrator."
	msgModelSlow    = "The chat model took too long to answer. Please try again later."
	msgModelFailed  = "The chat model could not answer this question."
	msgAskOff       = "Asking your files is turned off on this server."
	msgAskBusy      = "Too many questions are being answered right now. Please try again shortly."
	msgSearchFailed = "Your files could not be searched for this question. Please try again later."
)

// input reads a text slot of a task.
func input(t *nextcloud.Task, key string) string {
	s, _ := t.Input[key].(string)
	return strings.TrimSpace(s)
}

// runSearch runs a "Search my files" task as its user.
func (s *Service) runSearch(ctx context.Context, t *nextcloud.Task) {
	start := time.Now()
	query := input(t, SlotQuery)
	switch {
	case t.User == "":
		s.finish(ctx, "search", t, start, nil, hs.Errorf(hs.EINVALID, "assistant: task %d has no user", t.ID), msgNoUser)
		return
	case query == "":
		s.finish(ctx, "search", t, start, nil, hs.Errorf(hs.EINVALID, "assistant: task %d has an empty query", t.ID), msgEmpty)
		return
	}
	sctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	res, err := s.search.Search(sctx, t.User, hs.SearchRequest{Query: query, Algorithm: input(t, SlotAlgorithm), TopK: searchResults,
		Filter: hs.Filter{PathPrefix: input(t, SlotFolder)}})
	if err != nil {
		msg := msgSearchDown
		switch {
		case ctx.Err() != nil:
			msg = msgStopping
		case hs.ErrorKind(err) == hs.EINVALID:
			msg = "The search could not run: " + hs.RedactEndpoints(hs.ErrorMessage(err))
		}
		s.finish(ctx, "search", t, start, nil, fmt.Errorf("assistant: search task %d: %w", t.ID, err), msg)
		return
	}
	out := map[string]any{SlotResults: FormatResults(query, res)}
	if files := foundFiles(res); len(files) > 0 {
		out[SlotFiles] = files
	}
	s.finish(ctx, "search", t, start, out, nil, "")
}

// runAsk answers an "Ask your files" question as its user in a reserved
// answer slot, reporting progress while the answer is written and
// stopping when the user cancels the task.
func (s *Service) runAsk(ctx context.Context, t *nextcloud.Task, a Asking) {
	start := time.Now()
	q := input(t, SlotQuestion)
	if t.User == "" {
		s.finish(ctx, "ask", t, start, nil, hs.Errorf(hs.EINVALID, "assistant: task %d has no user", t.ID), msgNoUser)
		return
	}
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &progress{s: s, task: t.ID, cancel: cancel}
	stop := w.watch(actx)
	ans, err := a.Ask(actx, t.User, hs.AskRequest{Question: q, PathPrefix: input(t, SlotFolder)}, w)
	stop()
	if w.wasCancelled() {
		s.log.Info("Assistant task cancelled by its user", "task_id", t.ID, "kind", "ask")
		s.observeTask("ask", start, context.Canceled)
		return
	}
	if err != nil {
		s.finish(ctx, "ask", t, start, nil, fmt.Errorf("assistant: ask task %d: %w", t.ID, err), askMessage(ctx, err))
		return
	}
	out := map[string]any{SlotAnswer: FormatAnswer(ans)}
	if files := citedFiles(ans); len(files) > 0 {
		out[SlotSources] = files
	}
	s.finish(ctx, "ask", t, start, out, nil, "")
}

// askMessage is the user-facing message of a failed question.
func askMessage(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return msgStopping
	}
	switch hs.AskErrorCode(err) {
	case hs.AskInvalid:
		return "The question could not be asked: " + hs.RedactEndpoints(hs.ErrorMessage(err))
	case hs.AskOff:
		return msgAskOff
	case hs.AskBusy:
		return msgAskBusy
	case hs.AskSearchFailed:
		return msgSearchFailed
	case hs.AskModelUnavailable:
		return msgModelDown
	case hs.AskModelTimeout:
		return msgModelSlow
	case hs.AskCancelled:
		return msgStopping
	}
	return msgModelFailed
}

// progress is an answer stream that reports progress every
// Options.ProgressEvery
// and cancels the answer when Nextcloud says the task was cancelled.
type progress struct {
	s      *Service
	task   int64
	cancel context.CancelFunc

	mu        sync.Mutex
	pieces    int
	started   bool
	cancelled bool
}

func (p *progress) Passages([]hs.Passage) {
	p.mu.Lock()
	p.started = true
	p.mu.Unlock()
}

func (p *progress) Text(string) {
	p.mu.Lock()
	p.pieces++
	p.mu.Unlock()
}

func (p *progress) wasCancelled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cancelled
}

// watch reports progress until the returned stop is called.
func (p *progress) watch(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(p.s.progressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			p.mu.Lock()
			f := 0.1
			if p.started {
				f = min(0.2+0.01*float64(p.pieces), 0.9)
			}
			p.mu.Unlock()
			task, err := p.s.tasks.SetTaskProgress(ctx, p.task, f)
			if err == nil && task.Status == nextcloud.TaskCancelled {
				p.mu.Lock()
				p.cancelled = true
				p.mu.Unlock()
				p.cancel()
				return
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// finish ends a task: with output, or failed with err (logged for the
// admin) and userMsg. Posting outlives a cancelled ctx (a task taken must
// be ended) but is bounded, and is retried while Nextcloud is unavailable.
// A result whose file list the server refuses (a file deleted in the
// meantime) is posted again without it: the server keeps any result but
// for a cancelled task.
func (s *Service) finish(ctx context.Context, kind string, t *nextcloud.Task, start time.Time, output map[string]any, taskErr error, userMsg string) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), postTimeout)
	defer cancel()
	post := func() (nextcloud.Task, error) {
		if taskErr != nil {
			return s.tasks.FailTask(pctx, t.ID, hs.ErrorMessage(taskErr), userMsg)
		}
		return s.tasks.SetTaskResult(pctx, t.ID, output)
	}
	got, err := retry(pctx, post)
	fileSlot := SlotFiles
	if kind == "ask" {
		fileSlot = SlotSources
	}
	if err == nil && taskErr == nil && got.Status == nextcloud.TaskFailed && output[fileSlot] != nil {
		s.log.Warn("Nextcloud refused the files of a task result; posting it without them", "task_id", t.ID)
		delete(output, fileSlot)
		got, err = retry(pctx, post)
	}
	switch {
	case err != nil:
		s.log.Error("ending an Assistant task failed; it stays running in Nextcloud", "task_id", t.ID, "kind", kind, "error", err)
	case got.Status == nextcloud.TaskCancelled:
		s.log.Info("Assistant task cancelled by its user", "task_id", t.ID, "kind", kind)
	case taskErr != nil:
		s.log.Warn("Assistant task failed", "task_id", t.ID, "kind", kind, "user_id", t.User, "error", taskErr)
	default:
		s.log.Info("Assistant task done", "task_id", t.ID, "kind", kind, "user_id", t.User, "duration_ms", time.Since(start).Milliseconds())
	}
	if err == nil {
		err = taskErr
	}
	s.observeTask(kind, start, err)
}

func (s *Service) observeTask(kind string, start time.Time, err error) {
	if s.observe != nil {
		s.observe(kind, time.Since(start), err)
	}
}

// retry runs post until it succeeds, fails otherwise than EUNAVAILABLE, or
// ctx ends, waiting 1 s, 2 s, 4 s ... in between.
func retry(ctx context.Context, post func() (nextcloud.Task, error)) (nextcloud.Task, error) {
	wait := time.Second
	for {
		t, err := post()
		if err == nil || hs.ErrorKind(err) != hs.EUNAVAILABLE {
			return t, err
		}
		select {
		case <-ctx.Done():
			return t, errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
		wait *= 2
	}
}
