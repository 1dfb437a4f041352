package embeddingtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// version is the Ollama release whose behaviour the fake copies.
const version = "0.17.4"

// modified returns the fixed modification time of every fake model.
func modified() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &Request{Method: r.Method, Path: r.URL.Path}
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	switch {
	case r.URL.Path == "/" && get:
		s.writeText(w, rec, http.StatusOK, "Ollama is running")
	case r.URL.Path == "/api/version" && get:
		s.writeJSON(w, rec, http.StatusOK, map[string]string{"version": version})
	case r.URL.Path == "/api/tags" && get:
		s.handleTags(w, rec)
	case r.URL.Path == "/api/show" && r.Method == http.MethodPost:
		s.handleShow(w, r, rec)
	case r.URL.Path == "/api/embed" && r.Method == http.MethodPost:
		s.handleEmbed(w, r, rec)
	case r.URL.Path == "/api/chat" && r.Method == http.MethodPost:
		s.handleChat(w, r, rec)
	default: // gin's answer for an unknown route
		s.writeText(w, rec, http.StatusNotFound, "404 page not found")
	}
}

// handleEmbed copies server.EmbedHandler of Ollama v0.17.4.
func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request, rec *Request) {
	var req api.EmbedRequest
	if !s.decodeBody(w, r, rec, &req) {
		return
	}
	rec.Model, rec.Truncate, rec.Options = req.Model, req.Truncate, req.Options
	if req.KeepAlive != nil {
		d := req.KeepAlive.Duration
		rec.KeepAlive = &d
	}
	var input []string
	switch in := req.Input.(type) {
	case string:
		if in != "" {
			input = append(input, in)
		}
	case []any:
		for _, v := range in {
			str, ok := v.(string)
			if !ok {
				s.writeError(w, rec, http.StatusBadRequest, "invalid input type")
				return
			}
			input = append(input, str)
		}
	default:
		if req.Input != nil {
			s.writeError(w, rec, http.StatusBadRequest, "invalid input type")
			return
		}
	}
	rec.Inputs = input

	if status, msg := s.takeFailure(); status != 0 {
		if msg == "" {
			msg = failMessage(status, req.Model)
		}
		s.writeError(w, rec, status, msg)
		return
	}
	m, ok := s.model(req.Model)
	if !ok {
		s.writeError(w, rec, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	if len(input) == 0 {
		s.writeJSON(w, rec, http.StatusOK, api.EmbedResponse{Model: req.Model, Embeddings: [][]float32{}})
		return
	}
	start := time.Now()
	n := s.numCtx(m, req.Options)
	release, err := s.acquire(r.Context(), m, n, rec.KeepAlive)
	if err != nil {
		rec.Status = 499 // the client went away; Ollama logs this status
		s.record(*rec)
		return
	}
	defer release()
	if !s.work(r, len(input)) {
		rec.Status = 499
		s.record(*rec)
		return
	}
	resp, status, msg := s.embed(m, n, req, input)
	if status != http.StatusOK {
		s.writeError(w, rec, status, msg)
		return
	}
	resp.TotalDuration = time.Since(start)
	s.mu.Lock()
	rewrite := s.rewrite
	s.mu.Unlock()
	if rewrite != nil {
		rewrite(resp)
	}
	s.writeJSON(w, rec, http.StatusOK, resp)
}

// work waits for the runner (when serial) and spends the configured cost,
// counting requests in flight. It returns false if the client went away.
func (s *Server) work(r *http.Request, inputs int) bool {
	s.mu.Lock()
	cost, serial := s.cost, s.serial
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	ctx := r.Context()
	if serial {
		select {
		case s.sem <- struct{}{}:
			defer func() { <-s.sem }()
		case <-ctx.Done():
			return false
		}
	}
	if cost > 0 {
		t := time.NewTimer(cost * time.Duration(inputs))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// embed computes the response, or an error status and message, the way
// EmbedHandler does with its retry of an over-long input (truncate unset
// or true): the input is cut to the context less BOS and EOS, decoded and
// embedded again, which fails if it still does not fit.
func (s *Server) embed(m Model, numCtx int, req api.EmbedRequest, input []string) (*api.EmbedResponse, int, string) {
	ctx := numCtx
	if m.ContextLength > 0 {
		ctx = min(ctx, m.ContextLength)
	}
	d := Deterministic{Dimensions: m.Dim}
	resp := &api.EmbedResponse{Model: req.Model, Embeddings: make([][]float32, len(input))}
	for i, in := range input {
		words := strings.Fields(in)
		tokens := len(words) + 2
		if tokens > ctx {
			if req.Truncate != nil && !*req.Truncate {
				return nil, http.StatusBadRequest, errInputTooLong
			}
			words = words[:max(ctx-2, 0)]
			if m.retokenized(words) > ctx {
				return nil, http.StatusBadRequest, errInputTooLong
			}
			in = strings.Join(words, " ")
			tokens = len(words) + 2
		}
		v := d.Vector(in)
		if req.Dimensions > 0 && req.Dimensions < len(v) {
			v = renormalize(v[:req.Dimensions])
		}
		resp.Embeddings[i] = v
		resp.PromptEvalCount += tokens
	}
	return resp, http.StatusOK, ""
}

// errInputTooLong is the runner's message for an input over the context
// (runner/ollamarunner/runner.go and runner/llamarunner/runner.go
// errorInputTooLong, v0.17.4), which the runner sends with status 400 and
// EmbedHandler passes on with that status.
const errInputTooLong = "the input length exceeds the context length"

// retokenized is how many tokens words take once decoded and encoded
// again: with an ASCII vocabulary every other word was one [UNK], which
// decodes as "[UNK]" and encodes as "[", "un", "##k", "]".
func (m Model) retokenized(words []string) int {
	n := 2
	for _, w := range words {
		if m.ASCIIVocab && !isASCII(w) {
			n += 4
		} else {
			n++
		}
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func renormalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	inv := 1 / math.Max(math.Sqrt(sum), 1e-12)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// handleShow copies server.ShowHandler of Ollama v0.17.4.
func (s *Server) handleShow(w http.ResponseWriter, r *http.Request, rec *Request) {
	var req api.ShowRequest
	if !s.decodeBody(w, r, rec, &req) {
		return
	}
	name := req.Model
	if name == "" {
		//lint:ignore SA1019 older clients send the model as name; Ollama still reads it
		name = req.Name
	}
	rec.Model = name
	if name == "" {
		s.writeError(w, rec, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.model(name)
	if !ok {
		s.writeError(w, rec, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	s.writeJSON(w, rec, http.StatusOK, map[string]any{
		"modelfile":    "# Modelfile generated by \"ollama show\"\nFROM " + m.Name + "\n",
		"details":      m.details(),
		"model_info":   m.modelInfo(),
		"parameters":   m.parameters(),
		"capabilities": m.capabilities(),
		"modified_at":  modified(),
	})
}

func (s *Server) handleTags(w http.ResponseWriter, rec *Request) {
	s.mu.Lock()
	models := make([]Model, 0, len(s.models))
	for _, m := range s.models {
		models = append(models, m)
	}
	s.mu.Unlock()
	slices.SortFunc(models, func(a, b Model) int { return strings.Compare(a.Name, b.Name) })
	list := make([]map[string]any, len(models))
	for i, m := range models {
		sum := sha256.Sum256([]byte(m.Name))
		list[i] = map[string]any{
			"name":        m.Name,
			"model":       m.Name,
			"modified_at": modified(),
			"size":        int64(m.Dim) * 350_000,
			"digest":      hex.EncodeToString(sum[:]),
			"details":     m.details(),
		}
	}
	s.writeJSON(w, rec, http.StatusOK, map[string]any{"models": list})
}

func (m Model) details() map[string]any {
	return map[string]any{
		"parent_model":       "",
		"format":             "gguf",
		"family":             m.Arch,
		"families":           []string{m.Arch},
		"parameter_size":     m.ParameterSize,
		"quantization_level": "F16",
	}
}

// decodeBody reads a JSON body the way gin's ShouldBindJSON does in
// Ollama: no body is 400 "missing request body", bad JSON is 400 with the
// decoder's message.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, rec *Request, v any) bool {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.writeError(w, rec, http.StatusBadRequest, err.Error())
		return false
	}
	if len(bytes.TrimSpace(body)) == 0 {
		s.writeError(w, rec, http.StatusBadRequest, "missing request body")
		return false
	}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(v); err != nil {
		s.writeError(w, rec, http.StatusBadRequest, err.Error())
		return false
	}
	return true
}

// failMessage is Ollama's error text for an injected status.
func failMessage(status int, model string) string {
	switch status {
	case http.StatusBadRequest:
		return errInputTooLong
	case http.StatusNotFound:
		return fmt.Sprintf("model %q not found, try pulling it first", model)
	case http.StatusInternalServerError:
		return "llama runner process has terminated: exit status 2"
	case http.StatusServiceUnavailable:
		return "server busy, please try again.  maximum pending requests exceeded"
	}
	return strings.ToLower(http.StatusText(status))
}

// The write helpers record the request before answering, so a client that
// has its answer always finds its request in Requests.

func (s *Server) writeError(w http.ResponseWriter, rec *Request, status int, msg string) {
	s.writeJSON(w, rec, status, map[string]string{"error": msg})
}

func (s *Server) writeText(w http.ResponseWriter, rec *Request, status int, text string) {
	rec.Status = status
	s.record(*rec)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, text)
}

func (s *Server) writeJSON(w http.ResponseWriter, rec *Request, status int, v any) {
	rec.Status = status
	s.record(*rec)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
