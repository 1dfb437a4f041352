package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/internal/ollamamsg"
)

// Defaults for Options.
const (
	DefaultMaxAnswer   = 1024
	DefaultIdleTimeout = 2 * time.Minute
	// ServerDefaultContext is the context Ollama gives a model that sets
	// no num_ctx when a request sets none either: 4096 below 23 GiB of
	// VRAM (server/routes.go Serve, v0.17.4; more on larger GPUs). The
	// client assumes the smallest.
	ServerDefaultContext = 4096
	showTimeout          = 30 * time.Second
)

// Options configure New. Zero fields take the defaults.
type Options struct {
	// Host is the Ollama base URL, e.g. "http://gpu1:11434".
	Host string
	// Model is the chat model, e.g. "qwen3:4b" or "llama3.2".
	Model string
	// NumCtx, if positive, is the context to run the model with
	// (options.num_ctx, capped at the model's trained context). Zero uses
	// the model's own: its num_ctx parameter, else ServerDefaultContext,
	// capped at its trained context; no num_ctx is sent then, so the model
	// is not reloaded for other clients.
	NumCtx int
	// MaxAnswer is the most tokens an answer may take
	// (options.num_predict); 0 means DefaultMaxAnswer.
	MaxAnswer int
	// IdleTimeout is the longest wait for the next piece of an answer, the
	// first included; 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// KeepAlive, if non-zero, is how long Ollama keeps the model loaded
	// after a request; 0 leaves Ollama's default (5 minutes).
	KeepAlive time.Duration
	// HTTPClient carries the requests; nil means a plain http.Client
	// (timeouts come from the contexts).
	HTTPClient *http.Client
	// Logger receives debug lines per answer; nil means slog.Default().
	// Prompts and answers are never logged.
	Logger *slog.Logger
}

// Ollama is a chat model on one Ollama host. It is safe for concurrent
// use; New does no I/O.
type Ollama struct {
	host      string // for messages: the base URL without credentials
	client    *api.Client
	model     string
	numCtx    int
	maxAnswer int
	idle      time.Duration
	keepAlive time.Duration
	log       *slog.Logger

	mu      sync.Mutex
	context int // the context in force, once /api/show answered
}

// New checks o and returns a client. It returns an EINVALID error for a
// missing model, a host that is not an http(s) URL, or a negative size
// or duration.
func New(o Options) (*Ollama, error) {
	if strings.TrimSpace(o.Model) == "" {
		return nil, hs.Errorf(hs.EINVALID, "chat: no model configured")
	}
	if o.NumCtx < 0 || o.MaxAnswer < 0 || o.IdleTimeout < 0 || o.KeepAlive < 0 {
		return nil, hs.Errorf(hs.EINVALID, "chat: negative context, answer size or duration")
	}
	u, err := parseHost(o.Host)
	if err != nil {
		return nil, err
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	c := &Ollama{host: (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String(), client: api.NewClient(u, hc),
		model: o.Model, numCtx: o.NumCtx, maxAnswer: o.MaxAnswer, idle: o.IdleTimeout, keepAlive: o.KeepAlive, log: o.Logger}
	if c.maxAnswer == 0 {
		c.maxAnswer = DefaultMaxAnswer
	}
	if c.idle == 0 {
		c.idle = DefaultIdleTimeout
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c, nil
}

// parseHost checks that raw is an http(s) base URL.
func parseHost(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(raw), "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, hs.Errorf(hs.EINVALID, "chat: ollama host %q is not an http(s) URL", raw)
	}
	return u, nil
}

// Model returns the model's name.
func (o *Ollama) Model() string { return o.model }

// MaxAnswer returns the most tokens an answer may take.
func (o *Ollama) MaxAnswer() int { return o.maxAnswer }

// Context returns how many tokens one chat holds, prompt and answer
// together, from the model's /api/show (asked once; a failure is asked
// again next time). It fails as Chat does, and with EINVALID for a model
// that cannot chat.
func (o *Ollama) Context(ctx context.Context) (int, error) {
	o.mu.Lock()
	n := o.context
	o.mu.Unlock()
	if n > 0 {
		return n, nil
	}
	sctx, cancel := context.WithTimeout(ctx, showTimeout)
	defer cancel()
	resp, err := o.client.Show(sctx, &api.ShowRequest{Model: o.model})
	if err != nil {
		return 0, o.classify(ctx, sctx, "show", err)
	}
	if len(resp.Capabilities) > 0 && !slices.ContainsFunc(resp.Capabilities, func(c mcap) bool { return string(c) == "completion" }) {
		return 0, hs.Errorf(hs.EINVALID, "chat: %q on %s cannot chat (its capabilities: %v); name a chat model such as qwen3:4b", o.model, o.host, resp.Capabilities)
	}
	trained := 0
	arch, _ := resp.ModelInfo["general.architecture"].(string)
	if v, ok := number(resp.ModelInfo[arch+".context_length"]); ok && v > 0 {
		trained = v
	}
	n = o.numCtx
	if n == 0 {
		if n = numCtxParameter(resp.Parameters); n == 0 {
			n = ServerDefaultContext
		}
	}
	if trained > 0 {
		n = min(n, trained)
	}
	o.mu.Lock()
	o.context = n
	o.mu.Unlock()
	o.log.Info("chat model ready", "model", o.model, "context", n, "trained_context", trained, "max_answer", o.maxAnswer)
	return n, nil
}

// mcap is how the api package types a capability.
type mcap = model.Capability

func number(v any) (int, bool) {
	switch t := v.(type) {
	case float64:
		return int(t), t == math.Trunc(t)
	case json.Number:
		n, err := t.Int64()
		return int(n), err == nil
	case int:
		return t, true
	}
	return 0, false
}

// numCtxParameter reads num_ctx from /api/show's parameters text.
func numCtxParameter(params string) int {
	for line := range strings.Lines(params) {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// Chat asks the model system and prompt and calls onText with each piece
// of the answer as it arrives (an error from onText stops the answer and
// is returned). It returns the tokens of the prompt and the answer as the
// model counted them. The answer stops at MaxAnswer tokens or when the
// context is full (a normal end); a prompt too large for the context is
// ETOOLARGE, a stream that breaks off or a model that sends nothing for
// IdleTimeout EUNAVAILABLE.
func (o *Ollama) Chat(ctx context.Context, system, prompt string, onText func(string) error) (promptTokens, answerTokens int, err error) {
	n, err := o.Context(ctx)
	if err != nil {
		return 0, 0, err
	}
	no := false
	opts := map[string]any{"num_predict": o.maxAnswer}
	if o.numCtx > 0 {
		opts["num_ctx"] = n
	}
	req := &api.ChatRequest{Model: o.model, Truncate: &no, Shift: &no, Options: opts,
		Messages: []api.Message{{Role: "system", Content: system}, {Role: "user", Content: prompt}}}
	if o.keepAlive > 0 {
		req.KeepAlive = &api.Duration{Duration: o.keepAlive}
	}
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(o.idle, func() { cancel(errIdle) })
	defer idle.Stop()
	var done bool
	var reason string
	start := time.Now()
	err = o.client.Chat(cctx, req, func(r api.ChatResponse) error {
		idle.Reset(o.idle)
		if r.Message.Content != "" {
			if err := onText(r.Message.Content); err != nil {
				return &callerError{err}
			}
		}
		if r.Done {
			done, reason = true, r.DoneReason
			promptTokens, answerTokens = r.PromptEvalCount, r.EvalCount
		}
		return nil
	})
	var ce *callerError
	if errors.As(err, &ce) {
		return promptTokens, answerTokens, ce.err
	}
	if err == nil && !done {
		if cause := context.Cause(cctx); cause != nil {
			err = cause
		} else {
			err = errors.New("the answer broke off before its end")
		}
	}
	if err != nil {
		if errors.Is(context.Cause(cctx), errIdle) {
			return 0, 0, hs.Errorf(hs.EUNAVAILABLE, "chat: %q on %s sent nothing for %s: %w", o.model, o.host, o.idle, context.DeadlineExceeded)
		}
		return 0, 0, o.classify(ctx, cctx, "chat", err)
	}
	o.log.Debug("chat answered", "model", o.model, "prompt_tokens", promptTokens, "answer_tokens", answerTokens,
		"done_reason", reason, "duration_ms", time.Since(start).Milliseconds())
	return promptTokens, answerTokens, nil
}

// errIdle cancels a chat whose model went quiet.
var errIdle = errors.New("chat: the model went quiet")

// callerError is an error of the caller's callback, passed back as it is.
type callerError struct{ err error }

func (e *callerError) Error() string { return e.err.Error() }

// classify turns an error of the Ollama client into one with a root kind.
// ctx is the caller's context, rctx the request's.
func (o *Ollama) classify(ctx, rctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return hs.Errorf(hs.EUNAVAILABLE, "chat: ollama %s on %s: %w", op, o.host, ctx.Err())
	}
	var se api.StatusError
	if errors.As(err, &se) {
		msg := se.ErrorMessage
		msg = ollamamsg.Clip(msg)
		cause := errors.New(msg)
		switch code := se.StatusCode; {
		case code == http.StatusNotFound:
			return hs.WrapError(hs.EUNAVAILABLE, cause, fmt.Sprintf("chat model %q is not available on %s: run \"ollama pull %s\" there", o.model, o.host, o.model))
		case code == http.StatusBadRequest && strings.Contains(msg, "does not support chat"):
			return hs.WrapError(hs.EINVALID, cause, fmt.Sprintf("chat: %q on %s cannot chat; name a chat model such as qwen3:4b", o.model, o.host))
		case code == http.StatusBadRequest && strings.Contains(msg, "context length"):
			return hs.Errorf(hs.ETOOLARGE, "chat: ollama %s on %s: the prompt does not fit the model's context: %w", op, o.host, cause)
		case code >= 500 || code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code == 499:
			return hs.Errorf(hs.EUNAVAILABLE, "chat: ollama %s on %s: status %d: %w", op, o.host, code, cause)
		case code == http.StatusUnauthorized || code == http.StatusForbidden:
			return hs.Errorf(hs.EUNAVAILABLE, "chat: ollama %s on %s: access denied (status %d): check the proxy credentials: %w", op, o.host, code, cause)
		default:
			return hs.Errorf(hs.EINVALID, "chat: ollama %s on %s refused the request (status %d): %w", op, o.host, code, cause)
		}
	}
	var ae api.AuthorizationError
	if errors.As(err, &ae) {
		return hs.Errorf(hs.EUNAVAILABLE, "chat: ollama %s on %s: unauthorized (status %d): check the proxy credentials", op, o.host, ae.StatusCode)
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(context.Cause(rctx), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return hs.Errorf(hs.EUNAVAILABLE, "chat: ollama %s on %s: timed out: %w", op, o.host, context.DeadlineExceeded)
	}
	var je *json.SyntaxError
	if errors.As(err, &je) {
		return hs.Errorf(hs.EINTERNAL, "chat: ollama %s on %s: malformed response: %w", op, o.host, err)
	}
	if errors.As(err, &ne) {
		return hs.Errorf(hs.EUNAVAILABLE, "chat: ollama %s on %s: host unreachable: %w", op, o.host, err)
	}
	// A line {"error": ...} in the middle of a stream comes back as a
	// plain error with Ollama's text: the runner failed while answering.
	msg := err.Error()
	msg = ollamamsg.Clip(msg)
	return hs.Errorf(hs.EUNAVAILABLE, "chat: ollama %s on %s failed: %s", op, o.host, msg)
}
