package embeddingtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// The fake's /api/chat, after server.ChatHandler and streamResponse of
// Ollama v0.17.4 (server/routes.go), chatPrompt (server/prompt.go) and the
// runner's input check (runner/ollamarunner/runner.go NewSequence):
//
//   - a missing body, model or an unknown model: 400 "missing request
//     body", 400 "model is required", 404 "model '<name>' not found";
//   - a model without the "completion" capability (an embedding model):
//     400 "\"<name>\" does not support chat"; think for a model that cannot
//     think: 400 "\"<name>\" does not support thinking";
//   - keep_alive 0 without messages unloads (done_reason "unload"), no
//     messages loads (done_reason "load");
//   - the prompt is the messages' words plus 4 tokens each (the template).
//     With truncate unset or true, messages other than system ones are
//     dropped from the front while the prompt exceeds the context (the
//     last one always stays), then the runner cuts what still does not
//     fit; with truncate false a prompt over the context fails with 400
//     "the input length exceeds the context length" before any output;
//   - the answer streams as application/x-ndjson, one ChatResponse per
//     token (a word with its leading space), then a last one with done
//     true, done_reason "stop" (or "length" when options.num_predict or
//     the context ran out) and the counts; with stream false one JSON
//     object. An error after the first line is a line {"error": ...}.
//
// What the model says comes from the chat responder (SetChatResponder);
// the default is Extractive.

// ChatModel returns facts for a small chat model by name: architecture
// "llama", the "completion" capability, a trained context of 8192 tokens
// and no num_ctx parameter, so the server's default (4096) applies.
func ChatModel(name string) Model {
	return Model{Name: CanonicalName(name), Arch: "llama", Dim: 2048, ContextLength: 8192, ParameterSize: "1.2B",
		Capabilities: []string{"completion"}}
}

// ChatResponder says what the fake model answers to a chat request.
type ChatResponder func(req api.ChatRequest) string

// chatState is the /api/chat part of the Server. Guarded by Server.mu.
type chatState struct {
	responder  ChatResponder
	firstToken time.Duration // before the first token (prompt processing)
	perToken   time.Duration // between tokens
	failStatus int           // the next failLeft chats fail with this status
	failLeft   int
	breakAfter int // the next chat breaks off with an error after this many tokens
	breakLeft  int
	inFlight   int // chats being answered
}

// SetChatResponder makes fn write every chat answer; nil restores
// Extractive with its default refusal.
func (s *Server) SetChatResponder(fn ChatResponder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat.responder = fn
}

// SetChatTiming makes every chat wait first before its first token and
// perToken between tokens; a client that gives up stops it (Ollama logs
// status 499 then).
func (s *Server) SetChatTiming(first, perToken time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat.firstToken, s.chat.perToken = first, perToken
}

// FailChat makes the next n /api/chat requests fail before any output
// with status and Ollama's error text for it (see Fail).
func (s *Server) FailChat(status, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat.failStatus, s.chat.failLeft = status, n
}

// BreakChat makes the next n chats stop after tokens tokens with the
// error line Ollama sends when the runner dies mid-answer.
func (s *Server) BreakChat(tokens, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat.breakAfter, s.chat.breakLeft = tokens, n
}

// ChatsInFlight returns how many chats are being answered now (their
// requests are recorded only once the answer starts).
func (s *Server) ChatsInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chat.inFlight
}

// ChatRequests returns the /api/chat requests received so far.
func (s *Server) ChatRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Path == "/api/chat" {
			out = append(out, r)
		}
	}
	return out
}

// handleChat copies server.ChatHandler of Ollama v0.17.4.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request, rec *Request) {
	var req api.ChatRequest
	if !s.decodeBody(w, r, rec, &req) {
		return
	}
	rec.Model, rec.Options, rec.Truncate = req.Model, req.Options, req.Truncate
	if req.KeepAlive != nil {
		d := req.KeepAlive.Duration
		rec.KeepAlive = &d
	}
	cp := req
	cp.Messages = slices.Clone(req.Messages)
	rec.Chat = &cp
	if strings.TrimSpace(req.Model) == "" {
		s.writeError(w, rec, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.model(req.Model)
	if !ok {
		s.writeError(w, rec, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	if len(req.Messages) == 0 && req.KeepAlive != nil && req.KeepAlive.Duration == 0 {
		s.writeJSON(w, rec, http.StatusOK, api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "unload"})
		return
	}
	caps := m.capabilities()
	if !slices.Contains(caps, "completion") {
		s.writeError(w, rec, http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model))
		return
	}
	if req.Think != nil && req.Think.Bool() && !slices.Contains(caps, "thinking") {
		s.writeError(w, rec, http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", req.Model))
		return
	}
	start := time.Now()
	s.mu.Lock()
	s.chat.inFlight++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.chat.inFlight--
		s.mu.Unlock()
	}()
	if status, msg := s.takeChatFailure(req.Model); status != 0 {
		s.writeError(w, rec, status, msg)
		return
	}
	// The chat model shares the scheduler with the embedding models
	// (sched.go): loading takes SchedOptions.LoadTime, and a model loaded
	// with other options or pushed out for room is loaded again.
	numCtx := s.numCtx(m, req.Options)
	release, err := s.acquire(r.Context(), m, numCtx, rec.KeepAlive)
	if err != nil {
		rec.Status = 499
		s.record(*rec)
		return
	}
	defer release()
	if m.ContextLength > 0 {
		numCtx = min(numCtx, m.ContextLength)
	}
	loaded := time.Since(start)
	if len(req.Messages) == 0 {
		s.writeJSON(w, rec, http.StatusOK, api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "load"})
		return
	}
	truncate := req.Truncate == nil || *req.Truncate
	msgs, promptTokens := fitChat(req.Messages, numCtx, truncate)
	if promptTokens > numCtx {
		if !truncate {
			s.writeError(w, rec, http.StatusBadRequest, errInputTooLong)
			return
		}
		rec.Truncated = true
		promptTokens = numCtx
	}
	turn := req
	turn.Messages = msgs
	answer := s.respond(turn)
	s.streamChat(w, r, rec, req, answer, promptTokens, numCtx, start, loaded)
}

// streamChat writes the answer token by token (or whole, with stream
// false), honouring num_predict, the context and the injected timing and
// breaks.
func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, rec *Request, req api.ChatRequest, answer string, promptTokens, numCtx int, start time.Time, loaded time.Duration) {
	tokens := chatTokens(answer)
	reason := "stop"
	limit := numCtx - promptTokens
	if n, ok := req.Options["num_predict"].(float64); ok && n >= 0 && int(n) < limit {
		limit = int(n)
	}
	if len(tokens) > limit {
		tokens, reason = tokens[:max(limit, 0)], "length"
	}
	timing := s.chatTiming()
	breakAt := s.takeChatBreak()
	evalStart := time.Now()
	if !s.sleep(r, timing.firstToken) {
		rec.Status = 499
		s.record(*rec)
		return
	}
	promptDur := time.Since(evalStart)
	done := func(content string) api.ChatResponse {
		return api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: api.Message{Role: "assistant", Content: content},
			Done: true, DoneReason: reason, Metrics: api.Metrics{TotalDuration: time.Since(start), LoadDuration: loaded,
				PromptEvalCount: promptTokens, PromptEvalDuration: promptDur, EvalCount: len(tokens), EvalDuration: time.Since(evalStart) - promptDur}}
	}
	if req.Stream != nil && !*req.Stream {
		for range tokens {
			if !s.sleep(r, timing.perToken) {
				rec.Status = 499
				s.record(*rec)
				return
			}
		}
		if breakAt >= 0 {
			s.writeError(w, rec, http.StatusInternalServerError, failMessage(http.StatusInternalServerError, req.Model))
			return
		}
		s.writeJSON(w, rec, http.StatusOK, done(strings.Join(tokens, "")))
		return
	}
	rec.Status = http.StatusOK
	s.record(*rec)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	for i, tok := range tokens {
		if i == breakAt {
			_ = enc.Encode(map[string]string{"error": failMessage(http.StatusInternalServerError, req.Model)})
			_ = rc.Flush()
			return
		}
		if i > 0 && !s.sleep(r, timing.perToken) {
			return
		}
		_ = enc.Encode(api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: api.Message{Role: "assistant", Content: tok}})
		_ = rc.Flush()
	}
	_ = enc.Encode(done(""))
	_ = rc.Flush()
}

// fitChat is chatPrompt's truncation: while the prompt exceeds numCtx and
// truncate is on, drop messages from the front, keeping system ones and
// the last. It returns the messages kept and the prompt's tokens.
func fitChat(msgs []api.Message, numCtx int, truncate bool) ([]api.Message, int) {
	for i := 0; i < len(msgs); i++ {
		var kept []api.Message
		for _, m := range msgs[:i] {
			if m.Role == "system" {
				kept = append(kept, m)
			}
		}
		kept = append(kept, msgs[i:]...)
		n := promptTokens(kept)
		if !truncate || n <= numCtx || i == len(msgs)-1 {
			return kept, n
		}
	}
	return msgs, promptTokens(msgs)
}

// promptTokens counts a rendered prompt: each message's words plus 4
// template tokens.
func promptTokens(msgs []api.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(strings.Fields(m.Content)) + 4
	}
	return n
}

// chatTokens splits an answer into tokens: words with their leading
// whitespace.
func chatTokens(answer string) []string {
	var out []string
	start := 0
	inWord := false
	for i, r := range answer {
		space := r == ' ' || r == '\n' || r == '\t'
		if space && inWord {
			out = append(out, answer[start:i])
			start = i
		}
		inWord = !space
	}
	if start < len(answer) {
		out = append(out, answer[start:])
	}
	return out
}

func (s *Server) chatTiming() chatState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chat
}

func (s *Server) takeChatFailure(model string) (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chat.failLeft <= 0 {
		return 0, ""
	}
	s.chat.failLeft--
	return s.chat.failStatus, failMessage(s.chat.failStatus, model)
}

// takeChatBreak returns the token to break at, or -1.
func (s *Server) takeChatBreak() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chat.breakLeft <= 0 {
		return -1
	}
	s.chat.breakLeft--
	return s.chat.breakAfter
}

func (s *Server) respond(req api.ChatRequest) string {
	s.mu.Lock()
	fn := s.chat.responder
	s.mu.Unlock()
	if fn == nil {
		fn = Extractive{}.Respond
	}
	return fn(req)
}

// sleep waits d unless the client goes away first (false then).
func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// Extractive is a deterministic stand-in for a careful reader: it answers
// the last user message's question from the numbered passages in it. A
// passage is a block that starts with a line "[N] <title>"; its text is
// the lines after that one. The question is the text after the last
// "Question:", or else the message's last paragraph. The answer is the passage sentence
// sharing the most words of four letters or more with the question,
// followed by " [N]"; with no shared word it is NoAnswer.
type Extractive struct {
	// NoAnswer is the reply when no passage shares a word with the
	// question; "" means "The passages do not contain the answer."
	NoAnswer string
}

var passageStart = regexp.MustCompile(`(?m)^\s*\[(\d+)\]`)

// Respond answers req.
func (e Extractive) Respond(req api.ChatRequest) string {
	noAnswer := e.NoAnswer
	if noAnswer == "" {
		noAnswer = "The passages do not contain the answer."
	}
	var user string
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	question := user
	if i := strings.LastIndex(user, "Question:"); i >= 0 {
		question = user[i+len("Question:"):]
	} else if i := strings.LastIndex(strings.TrimSpace(user), "\n\n"); i >= 0 {
		question = strings.TrimSpace(user)[i:]
	}
	words := map[string]bool{}
	for _, w := range wordsOf(question) {
		if len([]rune(w)) >= 4 {
			words[w] = true
		}
	}
	locs := passageStart.FindAllStringSubmatchIndex(user, -1)
	bestScore, best, bestN := 0, "", 0
	for i, loc := range locs {
		end := len(user)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		n, _ := strconv.Atoi(user[loc[2]:loc[3]])
		body := user[loc[1]:end]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			body = body[nl+1:] // the title line is not the passage's text
		} else {
			body = ""
		}
		if qi := strings.LastIndex(body, "Question:"); qi >= 0 {
			body = body[:qi]
		}
		for _, sent := range sentences(body) {
			score := 0
			for _, w := range wordsOf(sent) {
				if words[w] {
					score++
				}
			}
			if score > bestScore {
				bestScore, best, bestN = score, sent, n
			}
		}
	}
	if bestScore == 0 {
		return noAnswer
	}
	return strings.TrimSpace(best) + " [" + strconv.Itoa(bestN) + "]"
}

func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f)
	})
}

// sentences splits text at line ends and at ".", "!" or "?" followed by
// a space or the end of the line.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		start := 0
		for i := 0; i < len(line); i++ {
			if c := line[i]; (c == '.' || c == '!' || c == '?') && (i+1 == len(line) || line[i+1] == ' ') {
				if s := strings.TrimSpace(line[start : i+1]); s != "" {
					out = append(out, s)
				}
				start = i + 1
			}
		}
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}
