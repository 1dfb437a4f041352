package answer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
)

// Searcher runs one user's search (*search.Service).
type Searcher interface {
	Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error)
}

// Model is a chat model (*chat.Ollama).
type Model interface {
	// Model is the model's name.
	Model() string
	// Context is how many tokens one chat holds, prompt and answer.
	Context(ctx context.Context) (int, error)
	// MaxAnswer is the most tokens an answer takes.
	MaxAnswer() int
	// Chat streams the answer to system and prompt through onText and
	// returns the model's token counts.
	Chat(ctx context.Context, system, prompt string, onText func(string) error) (promptTokens, answerTokens int, err error)
}

// Defaults for Options.
const (
	DefaultSlots     = 2
	DefaultWait      = 30 * time.Second
	DefaultTimeout   = 5 * time.Minute
	DefaultDocuments = 8
	// MaxQuestion is the longest question, in characters.
	MaxQuestion = 2000
)

// Options configure New. Zero fields take the defaults.
type Options struct {
	// Search is required.
	Search Searcher
	// Slots is how many answers are written at once; more wait.
	Slots int
	// Wait is how long Ask waits for a free slot before it gives up with
	// AskBusy.
	Wait time.Duration
	// Timeout bounds a whole answer, retrieval included.
	Timeout time.Duration
	// Documents is how many documents the search returns to take
	// passages from (each brings up to four chunks).
	Documents int
	// Logger gets one line per answer (never the question, passages or
	// answer); nil means slog.Default().
	Logger *slog.Logger
}

// Service answers questions. It is safe for concurrent use.
type Service struct {
	search  Searcher
	slots   chan struct{}
	wait    time.Duration
	timeout time.Duration
	docs    int
	log     *slog.Logger
	model   atomic.Pointer[modelBox]
	// stop ends every answer in progress (Close).
	stop   context.Context
	cancel context.CancelFunc
}

type modelBox struct{ m Model }

// New returns a Service without a model (asking is off until SetModel).
// It returns an EINVALID error without a Searcher or with negative
// options.
func New(o Options) (*Service, error) {
	if o.Search == nil {
		return nil, hs.Errorf(hs.EINVALID, "answer: a searcher is required")
	}
	if o.Slots < 0 || o.Wait < 0 || o.Timeout < 0 || o.Documents < 0 {
		return nil, hs.Errorf(hs.EINVALID, "answer: negative slots, wait, timeout or documents")
	}
	s := &Service{search: o.Search, slots: make(chan struct{}, or(o.Slots, DefaultSlots)), wait: or(o.Wait, DefaultWait),
		timeout: or(o.Timeout, DefaultTimeout), docs: or(o.Documents, DefaultDocuments), log: o.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.stop, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// Close ends the answers in progress (they fail with AskCancelled) and
// refuses new ones, so a shutdown does not wait for a slow model.
func (s *Service) Close() {
	s.cancel()
}

func or[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// SetModel puts m in use for questions asked from now on; nil turns
// asking off (Ask then fails with AskOff).
func (s *Service) SetModel(m Model) {
	if m == nil {
		s.model.Store(nil)
		return
	}
	s.model.Store(&modelBox{m})
}

// ModelName returns the name of the model in use, "" when asking is off.
func (s *Service) ModelName() string {
	if b := s.model.Load(); b != nil {
		return b.m.Model()
	}
	return ""
}

// Ask answers req for user, waiting up to Options.Wait for a free slot.
// stream, if non-nil, receives the passages and then the answer as it is
// written. Failures are *hs.AskError: AskOff without a model, AskInvalid
// for an empty or over-long question, AskBusy when no slot came free,
// AskSearchFailed, AskModelUnavailable, AskModelTimeout, AskModelError,
// AskCancelled when ctx ended.
func (s *Service) Ask(ctx context.Context, user hs.UserID, req hs.AskRequest, stream hs.AnswerStream) (hs.Answer, error) {
	if s.model.Load() == nil {
		return hs.Answer{}, errOff
	}
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
	case <-t.C:
		return hs.Answer{}, &hs.AskError{Code: hs.AskBusy, Err: hs.Errorf(hs.EUNAVAILABLE,
			"ask: every answer slot stayed busy for %s; try again shortly", s.wait)}
	case <-ctx.Done():
		return hs.Answer{}, &hs.AskError{Code: hs.AskCancelled, Err: hs.Errorf(hs.EUNAVAILABLE, "ask: %w", ctx.Err())}
	}
	defer func() { <-s.slots }()
	return s.answer(ctx, user, req, stream)
}

// Slot is an answer slot taken in advance (Reserve).
type Slot struct {
	s    *Service
	used atomic.Bool
}

// Reserve takes a free slot without waiting, for callers that must not
// take on work they cannot start (the Assistant's task poller). It
// reports false when asking is off or every slot is busy.
func (s *Service) Reserve() (*Slot, bool) {
	if s.model.Load() == nil {
		return nil, false
	}
	select {
	case s.slots <- struct{}{}:
		return &Slot{s: s}, true
	default:
		return nil, false
	}
}

// Ask answers req in the slot, as Service.Ask does, and frees the slot.
func (sl *Slot) Ask(ctx context.Context, user hs.UserID, req hs.AskRequest, stream hs.AnswerStream) (hs.Answer, error) {
	defer sl.Release()
	if sl.s.model.Load() == nil {
		return hs.Answer{}, errOff
	}
	return sl.s.answer(ctx, user, req, stream)
}

// Release frees the slot; later calls do nothing.
func (sl *Slot) Release() {
	if sl.used.CompareAndSwap(false, true) {
		<-sl.s.slots
	}
}

var errOff = &hs.AskError{Code: hs.AskOff, Err: hs.Errorf(hs.ENOTFOUND,
	"ask: asking your files is off: the admin has named no chat model (OLLAMA_CHAT_MODEL)")}

// The texts shown when the answer is not in the passages.
const (
	noPassagesText = "None of your files that I can search has a passage about this, so I cannot answer it from your files."
	notInFilesText = "Your files do not seem to contain the answer to this question."
)

func (s *Service) answer(ctx context.Context, user hs.UserID, req hs.AskRequest, stream hs.AnswerStream) (hs.Answer, error) {
	start := time.Now()
	m := s.model.Load().m
	q := strings.TrimSpace(req.Question)
	if q == "" || utf8.RuneCountInString(q) > MaxQuestion {
		return hs.Answer{}, &hs.AskError{Code: hs.AskInvalid, Err: hs.Errorf(hs.EINVALID,
			"ask: the question must have 1 to %d characters", MaxQuestion)}
	}
	if user == "" {
		return hs.Answer{}, &hs.AskError{Code: hs.AskInvalid, Err: hs.Errorf(hs.EINVALID, "ask: no acting user")}
	}
	parent, cancelParent := context.WithCancel(ctx)
	defer cancelParent()
	defer context.AfterFunc(s.stop, cancelParent)()
	ctx, cancel := context.WithTimeout(parent, s.timeout)
	defer cancel()
	ans := hs.Answer{Question: q, Model: m.Model(), Citations: []hs.Citation{}, Passages: []hs.Passage{}}
	limit, err := m.Context(ctx)
	if err != nil {
		return ans, s.modelError(parent, ctx, err)
	}
	ans.ContextLimit = limit
	budget := limit - min(m.MaxAnswer(), limit/2) - estimateTokens(systemPrompt) - estimateTokens(q) - promptOverhead
	if budget < minPassageBudget {
		return ans, &hs.AskError{Code: hs.AskModelError, Err: hs.Errorf(hs.EINVALID,
			"ask: the chat model's context (%d tokens) leaves no room for passages after the answer's %d; give it a larger context (OLLAMA_CHAT_CONTEXT)", limit, m.MaxAnswer())}
	}
	res, err := s.search.Search(ctx, user, hs.SearchRequest{Query: q, Algorithm: req.Algorithm, TopK: s.docs,
		Filter: hs.Filter{PathPrefix: req.PathPrefix}})
	if err != nil {
		code := hs.AskSearchFailed
		switch {
		case parent.Err() != nil:
			code = hs.AskCancelled
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			// The answer's deadline covers the retrieval too: a search
			// it cut short is a slow answer, not a broken search.
			return ans, s.modelError(parent, ctx, err)
		case hs.ErrorKind(err) == hs.EINVALID:
			code = hs.AskInvalid
		}
		return ans, &hs.AskError{Code: code, Err: fmt.Errorf("ask: retrieve passages: %w", err)}
	}
	ans.Skipped = res.Skipped
	ans.Passages = selectPassages(res, budget)
	if stream != nil {
		stream.Passages(ans.Passages)
	}
	if len(ans.Passages) == 0 {
		ans.Text = noPassagesText
		if stream != nil {
			stream.Text(ans.Text)
		}
		ans.TookMS = ms(time.Since(start))
		s.logAnswer(user, ans)
		return ans, nil
	}
	prompt := buildPrompt(q, ans.Passages, newNonce())
	ans.ContextTokens = estimateTokens(systemPrompt) + estimateTokens(prompt)
	g := &gate{out: func(t string) {
		if stream != nil {
			stream.Text(t)
		}
	}}
	var first time.Duration
	pt, at, err := m.Chat(ctx, systemPrompt, prompt, func(piece string) error {
		if first == 0 {
			first = time.Since(start)
		}
		g.write(piece)
		return nil
	})
	if err != nil {
		return ans, s.modelError(parent, ctx, err)
	}
	g.end()
	ans.PromptTokens, ans.AnswerTokens, ans.FirstTokenMS = pt, at, ms(first)
	if g.refused {
		ans.Text = notInFilesText
		if stream != nil {
			stream.Text(ans.Text)
		}
	} else {
		ans.Text = strings.TrimSpace(g.text.String())
		ans.Answered = ans.Text != ""
		ans.Citations = cite(ans.Text, ans.Passages)
	}
	ans.TookMS = ms(time.Since(start))
	s.logAnswer(user, ans)
	return ans, nil
}

// modelError turns a failure of the model into an *hs.AskError. parent is
// the caller's context, ctx the answer's (with the deadline).
func (s *Service) modelError(parent, ctx context.Context, err error) error {
	switch {
	case parent.Err() != nil:
		return &hs.AskError{Code: hs.AskCancelled, Err: hs.Errorf(hs.EUNAVAILABLE, "ask: the question was withdrawn: %w", parent.Err())}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &hs.AskError{Code: hs.AskModelTimeout, Err: hs.Errorf(hs.EUNAVAILABLE,
			"ask: the chat model took longer than %s: %w", s.timeout, context.DeadlineExceeded)}
	case errors.Is(err, context.DeadlineExceeded):
		return &hs.AskError{Code: hs.AskModelTimeout, Err: err}
	case hs.ErrorKind(err) == hs.EUNAVAILABLE:
		return &hs.AskError{Code: hs.AskModelUnavailable, Err: err}
	}
	return &hs.AskError{Code: hs.AskModelError, Err: err}
}

func (s *Service) logAnswer(user hs.UserID, a hs.Answer) {
	s.log.Info("question answered", "user_id", user, "model", a.Model, "passages", len(a.Passages), "answered", a.Answered,
		"citations", len(a.Citations), "context_tokens", a.ContextTokens, "context_limit", a.ContextLimit,
		"prompt_tokens", a.PromptTokens, "answer_tokens", a.AnswerTokens, "first_token_ms", a.FirstTokenMS, "duration_ms", a.TookMS)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
