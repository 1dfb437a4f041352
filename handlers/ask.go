package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// Asker answers one user's question from that user's files
// (*answer.Service). Its errors are *hs.AskError.
type Asker interface {
	Ask(ctx context.Context, user hs.UserID, req hs.AskRequest, stream hs.AnswerStream) (hs.Answer, error)
}

// askBody is the body of POST /api/ask.
type askBody struct {
	Question   string `json:"question"`
	PathPrefix string `json:"path_prefix,omitempty"`
	Algorithm  string `json:"algorithm,omitempty"`
	// Stream false answers with one JSON hs.Answer when it is done;
	// true or absent streams server-sent events.
	Stream *bool `json:"stream,omitempty"`
}

// askErrorBody is an error answer of /api/ask: the usual error body plus
// the hs.Ask* code.
type askErrorBody struct {
	Error string `json:"error"`
	Kind  string `json:"kind"`
	Code  string `json:"code"`
}

// askPing is how often a stream that has nothing to say sends a comment,
// so proxies keep it open while the model loads.
var askPing = 15 * time.Second

// handleAsk answers POST /api/ask {question, path_prefix, algorithm,
// stream} for the acting user, from passages of their own files (README,
// "Ask your files"). Streamed, the answer is text/event-stream with the
// events passages, text (each piece as it is written), then done (the
// whole hs.Answer) or error; failures before the first event are plain
// JSON errors with a code.
func (s *Server) handleAsk(c echo.Context) error {
	var body askBody
	if err := decodeStrict(c, &body); err != nil {
		return writeAskError(c, &hs.AskError{Code: hs.AskInvalid, Err: err})
	}
	if s.ask == nil {
		return writeAskError(c, &hs.AskError{Code: hs.AskOff, Err: hs.Errorf(hs.ENOTFOUND, "asking your files is not available")})
	}
	req := hs.AskRequest{Question: body.Question, PathPrefix: body.PathPrefix, Algorithm: body.Algorithm}
	ctx := c.Request().Context()
	if body.Stream != nil && !*body.Stream {
		ans, err := s.ask.Ask(ctx, actingUser(c), req, nil)
		if err != nil {
			return s.askFailed(c, err)
		}
		return c.JSON(http.StatusOK, ans)
	}
	// An answer may take minutes: no write deadline for this response
	// (the answer has its own deadline; a client that leaves cancels it).
	_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Time{})
	st := &sseStream{c: c}
	defer st.stop()
	ans, err := s.ask.Ask(ctx, actingUser(c), req, st)
	if err != nil {
		if !st.started() {
			return s.askFailed(c, err)
		}
		if ctx.Err() != nil {
			return nil // the client left
		}
		s.logAskError(c, err)
		st.event("error", askErrorOf(err))
		return nil
	}
	st.event("done", ans)
	return nil
}

// askFailed answers a question that failed before anything was sent.
func (s *Server) askFailed(c echo.Context, err error) error {
	if clientGone(c.Request(), err) {
		return err // the error handler logs it as the client's doing
	}
	s.logAskError(c, err)
	return writeAskError(c, err)
}

func (s *Server) logAskError(c echo.Context, err error) {
	level := slog.LevelInfo
	if hs.ErrorKind(err) == hs.EINTERNAL {
		level = slog.LevelError
	}
	s.logger.Log(c.Request().Context(), level, "question not answered", "user_id", actingUser(c),
		"code", hs.AskErrorCode(err), slog.Any("error", err))
}

func askErrorOf(err error) askErrorBody {
	code := hs.AskErrorCode(err)
	if code == "" {
		code = hs.AskModelError
	}
	return askErrorBody{Error: hs.RedactEndpoints(hs.ErrorMessage(err)), Kind: hs.ErrorKind(err), Code: code}
}

func writeAskError(c echo.Context, err error) error {
	b := askErrorOf(err)
	status, ok := statusOf[b.Kind]
	if !ok {
		status = http.StatusInternalServerError
	}
	return c.JSON(status, b)
}

// decodeStrict reads one JSON object with known fields only.
func decodeStrict(c echo.Context, v any) error {
	raw, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return hs.Errorf(hs.EINVALID, "reading the request body: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return hs.Errorf(hs.EINVALID, "the body is not a valid request: %v", err)
	}
	if err := dec.Decode(&json.RawMessage{}); err != io.EOF {
		return hs.Errorf(hs.EINVALID, "the body has data after the JSON object")
	}
	return nil
}

// sseStream writes an answer as server-sent events. The headers go out
// with the first event, so a failure before it can still be a plain
// error.
type sseStream struct {
	c    echo.Context
	mu   sync.Mutex
	sent bool
	done chan struct{}
}

// Passages sends the passages the model reads.
func (st *sseStream) Passages(p []hs.Passage) {
	st.event("passages", map[string]any{"passages": p})
}

// Text sends a piece of the answer.
func (st *sseStream) Text(delta string) {
	st.event("text", map[string]string{"text": delta})
}

func (st *sseStream) started() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sent
}

// event writes one event; JSON holds no raw newline, so data is one line.
func (st *sseStream) event(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data = []byte(`{"error":"internal error","kind":"internal","code":"model_error"}`)
		name = "error"
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.begin()
	w := st.c.Response()
	_, _ = w.Write([]byte("event: " + name + "\ndata: "))
	_, _ = w.Write(data)
	_, _ = w.Write([]byte("\n\n"))
	w.Flush()
}

// begin writes the headers once and starts the keep-alive comments.
// Callers hold mu.
func (st *sseStream) begin() {
	if st.sent {
		return
	}
	st.sent = true
	h := st.c.Response().Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no") // nginx: pass it on at once
	st.c.Response().WriteHeader(http.StatusOK)
	st.done = make(chan struct{})
	go st.ping(st.done)
}

func (st *sseStream) ping(done chan struct{}) {
	t := time.NewTicker(askPing)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			st.mu.Lock()
			_, err := st.c.Response().Write([]byte(": keep-alive\n\n"))
			if err == nil {
				st.c.Response().Flush()
			}
			st.mu.Unlock()
			if err != nil {
				return
			}
		}
	}
}

// stop ends the keep-alive comments.
func (st *sseStream) stop() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done != nil {
		close(st.done)
		st.done = nil
	}
}
