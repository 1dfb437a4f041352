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

	if status := s.takeFailure(); status != 0 {
		s.writeError(w, rec, status, failMessage(status, req.Model))
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
	if !s.work(r, len(input)) {
		rec.Status = 499 // the client went away; Ollama logs this status
		s.record(*rec)
		return
	}
	resp, status, msg := s.embed(m, req, input)
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

// embed computes the response, or an error status and message.
func (s *Server) embed(m Model, req api.EmbedRequest, input []string) (*api.EmbedResponse, int, string) {
	d := Deterministic{Dimensions: m.Dim}
	resp := &api.EmbedResponse{Model: req.Model, Embeddings: make([][]float32, len(input))}
	for i, in := range input {
		tokens := len(strings.Fields(in)) + 2 // words stand in for tokens, plus BOS/EOS
		if tokens > m.ContextLength && req.Truncate != nil && !*req.Truncate {
			return nil, http.StatusBadRequest, "the input length exceeds the context length"
		}
		v := d.Vector(in)
		if req.Dimensions > 0 && req.Dimensions < len(v) {
			v = renormalize(v[:req.Dimensions])
		}
		resp.Embeddings[i] = v
		resp.PromptEvalCount += min(tokens, m.ContextLength)
	}
	return resp, http.StatusOK, ""
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
		return "the input length exceeds the context length"
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
