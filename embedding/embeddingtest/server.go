package embeddingtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Server is a fake Ollama for tests, speaking the parts of its HTTP API the
// app uses, with Ollama's status codes and error bodies (v0.17.4):
//
//	POST /api/embed    input as a string or an array of strings; truncate,
//	                   keep_alive, options, dimensions accepted; vectors from
//	                   Deterministic with the model's Dim
//	POST /api/chat     streamed NDJSON answers from a fake chat model
//	                   (chat.go: ChatModel, SetChatResponder, timing,
//	                   failures)
//	POST /api/show     details, model_info (<arch>.embedding_length,
//	                   <arch>.context_length), parameters and capabilities
//	GET  /api/tags     the installed models
//	GET  /api/version  {"version":"0.17.4"}
//	HEAD /, GET /      "Ollama is running"
//
// Inputs are counted in tokens as whitespace-separated words plus two
// (BOS and EOS, [CLS] and [SEP] for BERT). The context of a request is its
// options.num_ctx, else the model's num_ctx parameter, else the server's
// default (4096, Ollama's default below 24 GiB of VRAM), capped at the
// model's trained context, as in Ollama. An input longer than that fails
// with Ollama's 400 "the input length exceeds the context length" when
// truncate is false; otherwise it is cut to fit and embedded, unless the
// cut text still does not fit once encoded again (Model.ASCIIVocab), when
// it fails with the same 400, as Ollama's own retry does
// (server/routes.go EmbedHandler, embedWithRetry). A request whose context
// differs from the one the model was loaded with reloads it (Loads), as
// Ollama's scheduler does when runner options differ (server/sched.go
// needsReload); who waits for a (re)load, and how long a model stays
// loaded (keep_alive), follow that scheduler too (sched.go).
//
// It starts with nomic-embed-text:latest installed. All methods are safe for
// concurrent use.
type Server struct {
	// URL is the base URL, e.g. "http://127.0.0.1:41234". It stays valid
	// across Down and Up.
	URL string

	tb  testing.TB
	hs  *httptest.Server
	ln  *switchListener
	sem chan struct{} // one embed at a time when serial

	mu          sync.Mutex
	models      map[string]Model // by CanonicalName
	failStatus  int
	failLeft    int
	failMessage string // "" means failMessage(failStatus)
	cost        time.Duration
	serial      bool
	rewrite     func(*api.EmbedResponse)
	requests    []Request
	inFlight    int
	maxInFlight int
	defaultCtx  int            // 0 means defaultContext
	loads       map[string]int // by model: how often it was loaded
	chat        chatState      // /api/chat (chat.go)

	// The scheduler (sched.go).
	schedOpts SchedOptions
	loaded    map[string]*runner // by model
	unloaded  chan struct{}      // closed at the next unload
	turn      chan struct{}      // held by the one pending request served
}

// defaultContext is Ollama's default num_ctx below 23 GiB of VRAM
// (server/routes.go Serve, v0.17.4).
const defaultContext = 4096

// Request is one request the Server received. For /api/embed the decoded
// fields are filled in; Inputs holds the input texts as sent, prefixes
// included.
type Request struct {
	Method    string
	Path      string
	Model     string
	Inputs    []string
	Truncate  *bool
	KeepAlive *time.Duration // nil when the request had none
	Options   map[string]any // JSON numbers are float64
	Status    int            // the status the Server answered with
	// Chat is an /api/chat request as received (nil for others), and
	// Truncated tells that its prompt was cut to fit the context.
	Chat      *api.ChatRequest
	Truncated bool
}

// NewServer starts a Server on 127.0.0.1 and closes it when the test ends.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	ln, err := newSwitchListener()
	if err != nil {
		tb.Fatalf("embeddingtest: listen: %v", err)
	}
	s := &Server{tb: tb, ln: ln, sem: make(chan struct{}, 1), models: make(map[string]Model),
		loads: make(map[string]int), loaded: make(map[string]*runner), unloaded: make(chan struct{}), turn: make(chan struct{}, 1)}
	s.SetModels(KnownModel("nomic-embed-text"))
	s.hs = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	s.hs.Listener.Close()
	s.hs.Listener = ln
	s.hs.Start()
	s.URL = s.hs.URL
	tb.Cleanup(s.Close)
	return s
}

// Close stops the server; NewServer registers it as a test cleanup.
func (s *Server) Close() {
	s.hs.CloseClientConnections()
	s.hs.Close()
	s.stopTimers()
}

// SetModels replaces the installed models; none means an empty Ollama, where
// every embed is a 404 "try pulling it first".
func (s *Server) SetModels(models ...Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.models)
	for _, m := range models {
		m.Name = CanonicalName(m.Name)
		s.models[m.Name] = m
	}
}

// AddModel installs m, as "ollama pull" would.
func (s *Server) AddModel(m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m.Name = CanonicalName(m.Name)
	s.models[m.Name] = m
}

// RemoveModel uninstalls the named model.
func (s *Server) RemoveModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.models, CanonicalName(name))
}

// Fail makes the next n /api/embed requests (after their body is read)
// fail with status and the error body Ollama sends for it: 503 "server
// busy", 500 "llama runner process has terminated", 400 "the input length
// exceeds the context length", 404 "model ... not found".
func (s *Server) Fail(status, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failStatus, s.failLeft, s.failMessage = status, n, ""
}

// FailWith is Fail with message as the error body's text.
func (s *Server) FailWith(status, n int, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failStatus, s.failLeft, s.failMessage = status, n, message
}

// Down stops listening: connection attempts are refused and open
// connections are cut, as when Ollama is stopped. Requests in flight fail.
func (s *Server) Down() {
	s.ln.down()
	s.hs.CloseClientConnections()
}

// Up listens again on the same address. It fails the test when the port
// was taken meanwhile; call it from the test goroutine.
func (s *Server) Up() {
	s.tb.Helper()
	if err := s.ln.up(); err != nil {
		s.tb.Fatalf("embeddingtest: listen again on %s: %v", s.ln.Addr(), err)
	}
}

// SetCost makes each /api/embed request take perInput for each input.
// With serial, requests are served one at a time, as one Ollama runner
// does; the others wait in line. A cancelled request stops waiting.
func (s *Server) SetCost(perInput time.Duration, serial bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cost, s.serial = perInput, serial
}

// SetRewrite installs fn to alter every /api/embed response before it is
// sent (drop a vector, cut dimensions, insert NaN); nil removes it.
func (s *Server) SetRewrite(fn func(*api.EmbedResponse)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rewrite = fn
}

// SetDefaultContext sets the num_ctx used when neither the request nor
// the model sets one, as OLLAMA_CONTEXT_LENGTH does; 0 restores 4096.
func (s *Server) SetDefaultContext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.defaultCtx = n
}

// Loads returns how many times the named model was loaded: once for its
// first request, and again for each request whose num_ctx differs from
// the one it is loaded with, or that comes after it was unloaded (its
// keep-alive ran out, or another model needed the room).
func (s *Server) Loads(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loads[CanonicalName(name)]
}

// numCtx returns the num_ctx a request runs with, before Ollama caps it
// at the trained context: the request's options.num_ctx, else the model's
// num_ctx parameter, else the server's default.
func (s *Server) numCtx(m Model, opts map[string]any) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := m.NumCtx
	if n <= 0 {
		n = s.defaultCtx
	}
	if n <= 0 {
		n = defaultContext
	}
	if v, ok := opts["num_ctx"].(float64); ok && v > 0 {
		n = int(v)
	}
	return n
}

// Requests returns a copy of the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// EmbedRequests returns the /api/embed requests received so far.
func (s *Server) EmbedRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Path == "/api/embed" {
			out = append(out, r)
		}
	}
	return out
}

// ResetRequests forgets the recorded requests.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// MaxInFlight returns the largest number of /api/embed requests the
// Server was handling at the same time.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

// takeFailure consumes one injected failure, returning its status and
// message, or 0.
func (s *Server) takeFailure() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failLeft <= 0 {
		return 0, ""
	}
	s.failLeft--
	return s.failStatus, s.failMessage
}

func (s *Server) model(name string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.models[CanonicalName(name)]
	return m, ok
}
