package ncsim

import (
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Server is the simulated Nextcloud. Exported fields are configuration and
// hooks; set them before the first request.
type Server struct {
	// BaseURL is the public URL of the simulator (no trailing slash), used in
	// the NEXTCLOUD_URL handed to ExApps and in absolute links. Start sets it.
	BaseURL string
	// AppAPIVersion is the AppAPI version reported in AA-VERSION; default "32.0.0".
	AppAPIVersion string
	// InstanceID is the instance id used in oc:id values; default "ocsim0000001".
	InstanceID string
	// Now, if non-nil, returns the current time (tests freeze or advance it).
	Now func() time.Time
	// Logf, if non-nil, receives one line per notable simulator action.
	Logf func(format string, args ...any)
	// OnRequest, if non-nil, is called with every incoming request before it
	// is handled.
	OnRequest func(r *http.Request)

	initOnce sync.Once
	mux      *http.ServeMux

	mu        sync.Mutex
	users     map[string]*user     // by uid
	sessions  map[string]string    // session cookie value -> uid
	apps      map[string]*exApp    // by app id
	unhandled []string             // "METHOD path" of requests no route knew
	failures  map[string][]failure // injected failures, by path prefix
	events    []Event              // every event fired, in order
	subs      []func(Event)        // event subscribers (webhook dispatch, tests)

	files filesState  // files side: trees, ids, trash, shares
	hooks appAPIState // AppAPI side: UI registrations, webhooks, deliveries
}

type failure struct {
	method string
	status int
}

func (s *Server) init() {
	s.initOnce.Do(func() {
		if s.AppAPIVersion == "" {
			s.AppAPIVersion = "32.0.0"
		}
		if s.InstanceID == "" {
			s.InstanceID = "ocsim0000001"
		}
		s.users = map[string]*user{}
		s.sessions = map[string]string{}
		s.apps = map[string]*exApp{}
		s.failures = map[string][]failure{}
		s.mux = http.NewServeMux()
		s.initFiles()
		s.initAppAPI()
		s.routesFiles(s.mux)
		s.routesAppAPI(s.mux)
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
	s.mux.ServeHTTP(w, r)
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
		if len(r.URL.Path) < len(prefix) || r.URL.Path[:len(prefix)] != prefix {
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
