package embedding

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"golang.org/x/sync/errgroup"

	hs "github.com/hybrid-search/hybridsearch"
)

// Defaults for OllamaOptions.
const (
	DefaultBatchSize = 32
	// DefaultRequestsPerCall is OllamaOptions.RequestsPerCall when 0.
	DefaultRequestsPerCall = 2
	DefaultTimeout         = 60 * time.Second
	DefaultHostCooldown    = 30 * time.Second
	defaultOllamaPort      = "11434"
)

// DefaultContextNeeded is OllamaOptions.ContextNeeded when it is 0.
const DefaultContextNeeded = 2048

// OllamaOptions configure an Ollama client. Zero fields take the defaults.
type OllamaOptions struct {
	// Hosts are base URLs ("http://gpu1:11434"); "host:port" and a bare host
	// (port 11434) are accepted too. Several hosts are used together, each
	// given at most two requests at a time (one embedding, one waiting).
	Hosts []string
	// Model is the Ollama model name, e.g. "nomic-embed-text" or
	// "nomic-embed-text:latest". It selects the prefixes (PrefixesFor).
	Model string
	// BatchSize is the number of inputs per /api/embed request; 0 means
	// DefaultBatchSize. This is the only place texts are batched for
	// embedding: callers hand EmbedDocuments as many texts as they hold.
	BatchSize int
	// RequestsPerCall is how many requests of one EmbedDocuments call are
	// in flight at once, and never more than there are hosts; 0 means
	// DefaultRequestsPerCall (2). The pipeline embeds a file's chunks in
	// one call at a time, so one file keeps at most this many hosts busy
	// and leaves the other hosts to other files.
	RequestsPerCall int
	// KeepAlive, if non-nil, is sent as keep_alive with every request: how
	// long Ollama keeps the model loaded once idle; 0 unloads it at once,
	// negative keeps it loaded. nil sends none, so Ollama's own setting
	// applies (OLLAMA_KEEP_ALIVE, 5 minutes unless set; server/sched.go
	// load, envconfig.KeepAlive in v0.17.4). A request that sends one also
	// resets the loaded model's keep-alive to it (sched.go
	// useLoadedRunner), which is what makes a client that needs the model
	// reloaded wait until the app has been idle that long.
	KeepAlive *time.Duration
	// Timeout bounds each request (not a whole EmbedDocuments call); 0 means
	// DefaultTimeout. It applies through the request context, so it also
	// holds with a caller-supplied HTTPClient.
	Timeout time.Duration
	// HTTPClient carries the requests; nil means a plain http.Client. Wrap
	// its Transport to add credentials for a reverse proxy.
	HTTPClient *http.Client
	// Logger receives warnings (unknown model, host failures) and debug
	// lines per request; nil means slog.Default(). Texts are never logged.
	Logger *slog.Logger

	// NumCtx, if positive, is sent as options.num_ctx with every request,
	// capped at the model's trained context. Zero lets the client decide
	// (see ContextNeeded): Ollama reloads a model whenever two clients ask
	// for different contexts, so it is sent only when it helps.
	NumCtx int
	// ContextNeeded is the most tokens one input may take (prefix, title,
	// headings and a whole chunk); 0 means DefaultContextNeeded. When the
	// context Ollama would use by default (the model's num_ctx parameter,
	// else ServerDefaultContext, capped at the trained context) is smaller
	// and the model was trained for more, options.num_ctx asks for it
	// (rounded up to a power of two, capped at the trained context);
	// otherwise no num_ctx is sent.
	ContextNeeded int
	// QueryCacheSize is the number of query vectors kept; 0 means
	// DefaultQueryCacheSize, negative turns the cache off.
	QueryCacheSize int
	// HostCooldown is how long a host that failed (unreachable, timed out,
	// model missing) is skipped while other hosts remain; 0 means
	// DefaultHostCooldown.
	HostCooldown time.Duration
	// Observe, if non-nil, is told of every /api/embed request: the host,
	// the number of inputs, the duration and the error (nil on success).
	Observe func(host string, inputs int, d time.Duration, err error)
}

// ServerDefaultContext is the context Ollama gives a model that sets no
// num_ctx when a request sets none either: 4096 below 23 GiB of VRAM
// (32768 up to 47 GiB, 262144 above; OLLAMA_CONTEXT_LENGTH overrides it),
// from server/routes.go Serve in v0.17.4. The client assumes the smallest.
const ServerDefaultContext = 4096

// Info is what /api/show reports about the model.
type Info struct {
	Model         string   // the configured model name
	Dim           int      // <arch>.embedding_length
	ContextLength int      // <arch>.context_length (trained context, in tokens)
	Family        string   // details.family, e.g. "nomic-bert"; the architecture if absent
	Capabilities  []string // e.g. ["embedding"]

	// DefaultContext is the model's num_ctx parameter (parameters), the
	// context Ollama uses when a request sets none; 0 when it has none.
	DefaultContext int
}

// Ollama embeds documents and queries through one or more Ollama servers.
// It is safe for concurrent use; NewOllama does no I/O.
type Ollama struct {
	model     string
	prefixes  Prefixes
	batch     int
	perCall   int           // requests of one EmbedDocuments call in flight at once
	keepAlive *api.Duration // nil: none sent
	timeout   time.Duration
	numCtx    int
	needCtx   int
	log       *slog.Logger
	cache     *QueryCache // nil when off
	pool      *pool
	observe   func(host string, inputs int, d time.Duration, err error) // nil: none

	probeSem chan struct{} // one probe at a time
	infoMu   sync.Mutex
	info     *Info // set once a probe succeeds
}

// NewOllama checks o and returns a client. It returns an EINVALID error for
// a missing model, no hosts, a host that is not an http(s) URL or a
// negative size or duration (KeepAlive excepted).
func NewOllama(o OllamaOptions) (*Ollama, error) {
	if strings.TrimSpace(o.Model) == "" {
		return nil, hs.Errorf(hs.EINVALID, "embedding: no ollama model configured")
	}
	if len(o.Hosts) == 0 {
		return nil, hs.Errorf(hs.EINVALID, "embedding: no ollama hosts configured")
	}
	if o.BatchSize < 0 || o.RequestsPerCall < 0 || o.Timeout < 0 || o.NumCtx < 0 || o.ContextNeeded < 0 || o.HostCooldown < 0 {
		return nil, hs.Errorf(hs.EINVALID, "embedding: negative batch size, requests per call, timeout, num_ctx, context needed or host cooldown")
	}
	c := &Ollama{
		model:    o.Model,
		batch:    orDefault(o.BatchSize, DefaultBatchSize),
		perCall:  orDefault(o.RequestsPerCall, DefaultRequestsPerCall),
		timeout:  orDefault(o.Timeout, DefaultTimeout),
		numCtx:   o.NumCtx,
		needCtx:  orDefault(o.ContextNeeded, DefaultContextNeeded),
		log:      o.Logger,
		observe:  o.Observe,
		probeSem: make(chan struct{}, 1),
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	if o.KeepAlive != nil {
		c.keepAlive = &api.Duration{Duration: *o.KeepAlive}
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	hosts := make([]*host, 0, len(o.Hosts))
	for _, raw := range o.Hosts {
		u, err := parseHost(raw)
		if err != nil {
			return nil, err
		}
		name := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
		hosts = append(hosts, &host{name: name, client: api.NewClient(u, hc)})
	}
	c.pool = newPool(hosts, orDefault(o.HostCooldown, DefaultHostCooldown))
	if o.QueryCacheSize >= 0 {
		c.cache = NewQueryCache(o.QueryCacheSize)
	}
	var known bool
	c.prefixes, known = PrefixesFor(o.Model)
	if !known {
		c.log.Warn("embedding model has no known prefixes; sending texts without any", "model", o.Model)
	}
	return c, nil
}

func orDefault[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// parseHost accepts "http://h:p/base", "h:p" and "h" (port 11434).
func parseHost(raw string) (*url.URL, error) {
	s := strings.TrimRight(strings.TrimSpace(raw), "/")
	if !strings.Contains(s, "://") {
		s = "http://" + s
		if u, err := url.Parse(s); err == nil && u.Port() == "" {
			s = "http://" + u.Host + ":" + defaultOllamaPort + u.Path
		}
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, hs.Errorf(hs.EINVALID, "embedding: ollama host %q is not an http(s) URL", raw)
	}
	return u, nil
}

// Model returns the configured model name.
func (o *Ollama) Model() string { return o.model }

// Prefixes returns the document and query prefixes in use.
func (o *Ollama) Prefixes() Prefixes { return o.prefixes }

// Dim returns the vector dimension, probing the hosts on first use.
func (o *Ollama) Dim(ctx context.Context) (int, error) {
	info, err := o.Probe(ctx)
	if err != nil {
		return 0, err
	}
	return info.Dim, nil
}

// EmbedDocuments returns one unit vector per text, in order, each text sent
// with the model's document prefix. Texts are split into requests of
// BatchSize, at most RequestsPerCall of them in flight at once and no
// more than there are hosts; a request whose host cannot be reached is retried on
// another host. An empty text is an EINVALID
// error; see the package doc for the other error kinds. No text means no
// request.
func (o *Ollama) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	inputs := make([]string, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			return nil, hs.Errorf(hs.EINVALID, "embedding: document %d of %d is empty", i, len(texts))
		}
		inputs[i] = o.prefixes.Document + t
	}
	info, err := o.Probe(ctx)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(inputs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(min(o.perCall, len(o.pool.hosts)))
	for start := 0; start < len(inputs); start += o.batch {
		end := min(start+o.batch, len(inputs))
		g.Go(func() error {
			vecs, err := o.embedBatch(gctx, inputs[start:end], info, true)
			if err != nil {
				return err
			}
			copy(out[start:end], vecs)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// EmbedQuery returns the unit vector of one search query, sent with the
// model's query prefix to the least busy host. Vectors are cached by
// (model, prefix+text); a cache hit sends nothing. An empty query is an
// EINVALID error.
func (o *Ollama) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if strings.TrimSpace(text) == "" {
		return nil, hs.Errorf(hs.EINVALID, "embedding: empty query")
	}
	input := o.prefixes.Query + text
	if o.cache != nil {
		if v, ok := o.cache.Get(o.model, input); ok {
			return v, nil
		}
	}
	info, err := o.Probe(ctx)
	if err != nil {
		return nil, err
	}
	vecs, err := o.embedBatch(ctx, []string{input}, info, false)
	if err != nil {
		return nil, err
	}
	if o.cache != nil {
		o.cache.Put(o.model, input, vecs[0])
	}
	return vecs[0], nil
}

// Health reports whether at least one host answers (HEAD /). It returns an
// EUNAVAILABLE error naming the first failing host when none does.
func (o *Ollama) Health(ctx context.Context) error {
	errs := make([]error, len(o.pool.hosts))
	var wg sync.WaitGroup
	for i, h := range o.pool.hosts {
		wg.Go(func() {
			rctx, cancel := context.WithTimeout(ctx, o.timeout)
			defer cancel()
			if err := h.client.Heartbeat(rctx); err != nil {
				errs[i] = classify(ctx, "heartbeat", h.name, o.model, err)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err == nil {
			return nil
		}
	}
	return errs[0]
}

// embedBatch embeds inputs on one host. With wait it queues for an idle
// host (document batches); without, it takes the least busy host at once
// (queries). On a host failure it tries the next host until all were tried.
func (o *Ollama) embedBatch(ctx context.Context, inputs []string, info Info, wait bool) ([][]float32, error) {
	tried := make(map[*host]bool)
	var last error
	for {
		var h *host
		var ok bool
		if wait {
			var err error
			h, ok, err = o.pool.acquire(ctx, tried)
			if err != nil {
				return nil, hs.Errorf(hs.EUNAVAILABLE, "embedding: waiting for an ollama host: %w", err)
			}
		} else {
			h, ok = o.pool.pick(tried)
		}
		if !ok {
			if last == nil {
				last = hs.Errorf(hs.EUNAVAILABLE, "embedding: no ollama host to try")
			}
			return nil, last
		}
		vecs, err := o.embedOn(ctx, h, inputs, info)
		o.pool.release(h, isHostError(err))
		if err == nil {
			return vecs, nil
		}
		if !isHostError(err) || ctx.Err() != nil {
			return nil, err
		}
		o.log.Warn("ollama host failed; skipping it for a while", "host", h.name, "error", err)
		tried[h] = true
		last = err
	}
}

// embedOn sends one /api/embed request to h and checks the vectors.
func (o *Ollama) embedOn(ctx context.Context, h *host, inputs []string, info Info) ([][]float32, error) {
	rctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	truncate := true
	req := &api.EmbedRequest{
		Model:     o.model,
		Input:     inputs,
		KeepAlive: o.keepAlive,
		Truncate:  &truncate,
	}
	if n := o.contextSize(info); n > 0 {
		req.Options = map[string]any{"num_ctx": n}
	}
	start := time.Now()
	resp, err := h.client.Embed(rctx, req)
	if o.observe != nil {
		o.observe(h.name, len(inputs), time.Since(start), err)
	}
	if err != nil {
		return nil, classify(ctx, "embed", h.name, o.model, err)
	}
	o.log.Debug("ollama embed", "host", h.name, "input_count", len(inputs), "duration_ms", time.Since(start).Milliseconds())
	if len(resp.Embeddings) != len(inputs) {
		return nil, hs.Errorf(hs.EINTERNAL, "embedding: ollama embed on %s: got %d vectors for %d inputs", h.name, len(resp.Embeddings), len(inputs))
	}
	for i, v := range resp.Embeddings {
		if err := normalize(v, info.Dim); err != nil {
			return nil, hs.Errorf(hs.EINTERNAL, "embedding: ollama embed on %s: vector %d: %w", h.name, i, err)
		}
	}
	return resp.Embeddings, nil
}

// contextSize is the num_ctx to send, 0 for none. An explicit NumCtx is
// sent (capped at the trained context). Otherwise num_ctx is sent only
// when the context Ollama uses by default is smaller than needCtx and the
// model allows more: every client of a model that sends none shares one
// loaded runner, while a num_ctx that differs from another client's makes
// Ollama reload the model on every switch.
func (o *Ollama) contextSize(info Info) int {
	trained := info.ContextLength
	capped := func(n int) int {
		if trained > 0 {
			return min(n, trained)
		}
		return n
	}
	if o.numCtx > 0 {
		return capped(o.numCtx)
	}
	def := info.DefaultContext
	if def <= 0 {
		def = ServerDefaultContext
	}
	def = capped(def)
	if def >= o.needCtx || (trained > 0 && trained <= def) {
		return 0
	}
	n := 1
	for n < o.needCtx {
		n *= 2
	}
	return capped(n)
}

// String describes the client for logs.
func (o *Ollama) String() string {
	names := make([]string, len(o.pool.hosts))
	for i, h := range o.pool.hosts {
		names[i] = h.name
	}
	return fmt.Sprintf("ollama(%s on %s)", o.model, strings.Join(names, ", "))
}
