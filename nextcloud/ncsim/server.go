package ncsim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Server is the simulated Nextcloud. Exported fields are configuration and
// hooks; set them before the first request. Zero durations and counts mean
// the documented default.
type Server struct {
	// BaseURL is the public URL of the simulator (no trailing slash), used in
	// the NEXTCLOUD_URL handed to ExApps and in absolute links. Start sets it.
	BaseURL string
	// NextcloudVersion is the Nextcloud release to imitate: a major ("32",
	// "33", "34" or "35", meaning its .0 release) or a full release such as
	// "32.0.9". It decides the proxy's route matching, whether info.xml's
	// headers_to_exclude is honoured, and which node events exist (see
	// version.go). Default DefaultVersion. An invalid value panics.
	NextcloudVersion string
	// AppAPIVersion is the AppAPI version reported in AA-VERSION; default
	// the Nextcloud version (AppAPI versions follow the server since 32).
	AppAPIVersion string
	// ServerVersion is the Nextcloud version string (status.php, capabilities,
	// the User-Agent of outgoing calls); default the Nextcloud version.
	ServerVersion string
	// InstanceID is the instance id used in oc:id values; default "ocsim0000001".
	InstanceID string
	// Now, if non-nil, returns the current time (tests freeze or advance it).
	Now func() time.Time
	// Logf, if non-nil, receives one line per notable simulator action.
	Logf func(format string, args ...any)
	// OnRequest, if non-nil, is called with every incoming request before it
	// is handled.
	OnRequest func(r *http.Request)

	// HeartbeatInterval is the pause between heartbeat attempts; default 1s.
	HeartbeatInterval time.Duration
	// HeartbeatAttempts is how many heartbeats AppAPI tries; default 600.
	HeartbeatAttempts int
	// InitTimeout is AppAPI's init_timeout (app config app_api/init_timeout,
	// default 40 minutes): an init that has not reached 100 by then gets
	// status.error "initialization timed out", which ends Install with an
	// error; the app stays enabled, and a 100 reported later still
	// enables it (install.go armInitTimeoutLocked).
	InitTimeout time.Duration
	// InitRequestTimeout bounds POST /init; default 30s (Nextcloud's client default).
	InitRequestTimeout time.Duration
	// EnabledRequestTimeout bounds PUT /enabled; default 60s.
	EnabledRequestTimeout time.Duration
	// ExAppRequestTimeout bounds AppAPI requests made without an explicit
	// timeout, webhook deliveries to ExApps among them; default 3s.
	ExAppRequestTimeout time.Duration
	// WebhookInterval is how often the simulated cron runs queued webhook
	// jobs; default 1s. Real Nextcloud runs them from cron (every 5 minutes
	// by default) or dedicated workers, so expect seconds to minutes there.
	WebhookInterval time.Duration
	// WebhookURLTimeout bounds webhook calls to absolute URLs; default 30s.
	WebhookURLTimeout time.Duration
	// ThrottleBaseDelay is the brute-force delay unit: after n failed logins
	// from an IP, its next login attempts wait base*2^n. Default 1ms
	// (Nextcloud: 100ms), so single failures do not slow tests.
	ThrottleBaseDelay time.Duration
	// ThrottleMaxDelay caps the brute-force delay; default 100ms (Nextcloud: 25s).
	ThrottleMaxDelay time.Duration
	// ThrottleMaxAttempts is the number of failed attempts after which login
	// attempts from that IP get HTTP 429; default 10 (as Nextcloud).
	ThrottleMaxAttempts int
	// HaRPSharedKey is the key HaRP and AppAPI share (HP_SHARED_KEY); it
	// guards /index.php/apps/app_api/harp/user-info. Empty means a random one.
	HaRPSharedKey string
	// GoneNodeIDs picks which events about a node that no longer exists
	// (a delete, a rename's source) carry its id; see GoneIDs. Default
	// GoneIDsMixed.
	GoneNodeIDs GoneIDs
	// PrettyURLs turns on Nextcloud's pretty URLs (mod_rewrite with
	// htaccess.RewriteBase, as the official Docker image has it): paths
	// without /index.php reach the front controller too, and generated
	// links (the navigation, generateUrl in pages) leave it out. Off, such
	// paths do not exist (404). See prettyPath.
	PrettyURLs bool
	// TaskScheduleLimit is how many tasks one user may schedule within two
	// minutes (the schedule endpoint's #[UserRateLimit(limit: 20, period:
	// 120)]); 0 means 20, negative means no limit.
	TaskScheduleLimit int
	// HTTPClient, if non-nil, is used for calls to ExApps and webhook URLs.
	// It must not follow a cookie jar.
	HTTPClient *http.Client

	initOnce sync.Once
	rel      release // parsed NextcloudVersion
	mux      *http.ServeMux
	client   *http.Client
	baseCtx  context.Context // canceled by Close
	cancel   context.CancelFunc

	mu        sync.Mutex
	users     map[string]*user     // by uid
	sessions  map[string]string    // session cookie value -> uid
	apps      map[string]*exApp    // by app id
	unhandled []string             // "METHOD path" of requests no route knew
	failures  map[string][]failure // injected failures, by path prefix
	events    []Event              // every event fired, in order
	subs      []func(Event)        // event subscribers (webhook dispatch)
	httpSrv   *http.Server         // set by Start
	closed    bool

	files filesState  // files side: trees, ids, trash, shares
	hooks appAPIState // AppAPI side: UI registrations, webhooks, deliveries
	taskq taskState   // Task Processing: providers and tasks (taskprocessing.go)
}

type failure struct {
	method string
	status int
}

func (s *Server) init() {
	s.initOnce.Do(func() {
		if s.NextcloudVersion == "" {
			s.NextcloudVersion = DefaultVersion
		}
		rel, err := parseRelease(s.NextcloudVersion)
		if err != nil {
			panic(err)
		}
		s.rel = rel
		if s.AppAPIVersion == "" {
			s.AppAPIVersion = rel.String()
		}
		if s.ServerVersion == "" {
			s.ServerVersion = rel.String()
		}
		if s.InstanceID == "" {
			s.InstanceID = "ocsim0000001"
		}
		s.baseCtx, s.cancel = context.WithCancel(context.Background())
		s.client = s.HTTPClient
		if s.client == nil {
			s.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), CheckRedirect: guzzleRedirects}
		}
		s.users = map[string]*user{}
		s.sessions = map[string]string{}
		s.apps = map[string]*exApp{}
		s.failures = map[string][]failure{}
		s.mux = http.NewServeMux()
		s.initFiles()
		s.initAppAPI()
		s.initTasks()
		s.routesFiles(s.mux)
		s.routesAppAPI(s.mux)
		s.routesTasks(s.mux)
		s.routesCore(s.mux)
	})
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Server) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}

// guzzleRedirects follows redirects as Nextcloud's HTTP client does: it
// sets no allow_redirects when local addresses are allowed (AppAPI allows
// them for every ExApp call), so Guzzle's default applies: up to 5
// redirects, then an error (server lib/private/Http/Client/Client.php
// buildRequestOptions, ClientService.php newClient; Guzzle
// RedirectMiddleware::$defaultSettings). The AppAPI proxy thus fetches an
// ExApp's 3xx target itself, with the AppAPI headers, and the browser
// gets the final page, never the Location.
func guzzleRedirects(_ *http.Request, via []*http.Request) error {
	if len(via) > 5 {
		return errors.New("will not follow more than 5 redirects")
	}
	return nil
}

// ServeHTTP serves the simulated Nextcloud.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.init()
	if s.OnRequest != nil {
		s.OnRequest(r)
	}
	if status, ok := s.takeFailure(r); ok {
		http.Error(w, fmt.Sprintf("injected failure %d", status), status)
		return
	}
	if !s.throttleLogin(w, r) {
		return
	}
	defer s.bootWebhookListeners(r)()
	if s.frontControllerPath(r) {
		if !s.PrettyURLs {
			http.NotFound(w, r) // the web server has no such file
			return
		}
		r = withIndexPHP(r)
	}
	// The proxy sees raw paths: ServeMux would redirect paths with ".."
	// before AppAPI's own ".." check could answer 404.
	if strings.HasPrefix(r.URL.Path, proxyPrefix) {
		s.handleProxy(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, harpPrefix) {
		s.handleHaRP(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Start listens on addr ("127.0.0.1:0" picks a free port), serves the
// simulator in the background, sets BaseURL to "http://<host:port>" and
// returns it. Close stops it.
func (s *Server) Start(addr string) (string, error) {
	s.init()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("ncsim start %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	s.mu.Lock()
	s.httpSrv = srv
	s.mu.Unlock()
	s.BaseURL = "http://" + ln.Addr().String()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logf("ncsim: serve: %v", err)
		}
	}()
	return s.BaseURL, nil
}

// Close stops the server started by Start, the webhook cron and any
// in-flight calls to ExApps. Queued webhook jobs are dropped. It is safe to
// call more than once.
func (s *Server) Close() {
	s.init()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	srv := s.httpSrv
	s.stopWebhookCronLocked()
	s.mu.Unlock()
	s.cancel()
	// Wait for a webhook batch in flight; its calls end with baseCtx.
	s.hooks.webhooks.runMu.Lock()
	//lint:ignore SA2001 taking the lock was the point: it waits for the batch holding it
	s.hooks.webhooks.runMu.Unlock()
	if srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
	s.client.CloseIdleConnections()
}

// FailNext makes the next request whose path starts with pathPrefix (and
// whose method equals method, unless method is "") fail with status.
// Several calls queue several failures.
func (s *Server) FailNext(method, pathPrefix string, status int) {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[pathPrefix] = append(s.failures[pathPrefix], failure{method: method, status: status})
}

func (s *Server) takeFailure(r *http.Request) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for prefix, fs := range s.failures {
		if !strings.HasPrefix(r.URL.Path, prefix) {
			continue
		}
		for i, f := range fs {
			if f.method == "" || f.method == r.Method {
				s.failures[prefix] = append(fs[:i:i], fs[i+1:]...)
				return f.status, true
			}
		}
	}
	return 0, false
}

// Unhandled returns "METHOD path" for every request that no simulated route
// knew (answered 501).
func (s *Server) Unhandled() []string {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unhandled...)
}

func (s *Server) notImplemented(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.unhandled = append(s.unhandled, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	s.logf("ncsim: unhandled %s %s", r.Method, r.URL.Path)
	http.Error(w, "ncsim: route not simulated", http.StatusNotImplemented)
}

// Timing and limit defaults, applied when the field is zero.

func durationOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func (s *Server) heartbeatInterval() time.Duration {
	return durationOr(s.HeartbeatInterval, time.Second)
}
func (s *Server) initTimeout() time.Duration { return durationOr(s.InitTimeout, 40*time.Minute) }
func (s *Server) initRequestTimeout() time.Duration {
	return durationOr(s.InitRequestTimeout, 30*time.Second)
}
func (s *Server) enabledRequestTimeout() time.Duration {
	return durationOr(s.EnabledRequestTimeout, 60*time.Second)
}
func (s *Server) exAppRequestTimeout() time.Duration {
	return durationOr(s.ExAppRequestTimeout, 3*time.Second)
}
func (s *Server) webhookInterval() time.Duration { return durationOr(s.WebhookInterval, time.Second) }
func (s *Server) webhookURLTimeout() time.Duration {
	return durationOr(s.WebhookURLTimeout, 30*time.Second)
}
func (s *Server) throttleBaseDelay() time.Duration {
	return durationOr(s.ThrottleBaseDelay, time.Millisecond)
}
func (s *Server) throttleMaxDelay() time.Duration {
	return durationOr(s.ThrottleMaxDelay, 100*time.Millisecond)
}

func (s *Server) heartbeatAttempts() int {
	if s.HeartbeatAttempts > 0 {
		return s.HeartbeatAttempts
	}
	return 600
}

func (s *Server) throttleMaxAttempts() int {
	if s.ThrottleMaxAttempts > 0 {
		return s.ThrottleMaxAttempts
	}
	return 10
}

// frontControllerPath reports whether r's path is a route of index.php
// written without "/index.php": what .htaccess rewrites to the front
// controller when pretty URLs are on (RewriteRule . index.php, for paths
// that are no file). Paths the simulator serves as they are (remote.php,
// ocs, status.php, static files) are not.
func (s *Server) frontControllerPath(r *http.Request) bool {
	p := r.URL.Path
	if p == "/index.php" || strings.HasPrefix(p, "/index.php/") || p == "/" {
		return false
	}
	if strings.HasPrefix(p, "/apps/app_api/proxy/") {
		return true
	}
	if _, pattern := s.mux.Handler(r); pattern != "/" {
		return false
	}
	_, pattern := s.mux.Handler(withIndexPHP(r))
	return pattern != "/"
}

// withIndexPHP returns r for the same path under /index.php.
func withIndexPHP(r *http.Request) *http.Request {
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/index.php" + r.URL.Path
	if r.URL.RawPath != "" {
		r2.URL.RawPath = "/index.php" + r.URL.RawPath
	}
	return r2
}

// link is a link Nextcloud generates for an index.php route (p starts with
// /index.php): without /index.php when pretty URLs are on.
func (s *Server) link(p string) string {
	if s.PrettyURLs {
		return strings.TrimPrefix(p, "/index.php")
	}
	return p
}
