package mcp

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	hs "github.com/hybrid-search/hybridsearch"
)

// Searcher runs one search as one user (*search.Service).
type Searcher interface {
	Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error)
}

// Chunks returns a file's stored chunks in chunk order, none for a file
// that is not indexed (the store).
type Chunks interface {
	FilePoints(ctx context.Context, id hs.FileID, withVectors bool) ([]hs.Point, error)
}

// Access looks a file up by id as a user: Nextcloud's own access check
// (*nextcloud.Client). ENOTFOUND means the user cannot read the file.
type Access interface {
	FindByID(ctx context.Context, user hs.UserID, id hs.FileID) (hs.FileInfo, error)
}

// StatusSource reports the indexing status as user sees it (nc_index_status
// asks with all unset: the user's own files).
type StatusSource interface {
	Status(ctx context.Context, user hs.UserID, all bool) (hs.IndexStatus, error)
}

// DefaultMaxBodyBytes bounds a request body when Options.MaxBodyBytes is 0.
const DefaultMaxBodyBytes = 1 << 20

// Options configure NewHandler.
type Options struct {
	Search Searcher     // required
	Chunks Chunks       // required
	Access Access       // required
	Status StatusSource // required
	// NextcloudURL is the base of document links, e.g.
	// "https://cloud.example.com"; empty gives links relative to the
	// Nextcloud root.
	NextcloudURL string
	// AllowedOrigins are the browser origins (or URLs, whose origin is
	// taken) that may call the endpoint, normally Nextcloud's. A request
	// with any other Origin header gets 403 (DNS-rebinding protection);
	// requests without one (MCP clients are not browsers) pass.
	AllowedOrigins []string
	// Version is the server version reported to clients.
	Version string
	// Rules are the search request rules the search tool's schema and
	// checks follow; the zero value means hs.DefaultSearchRules().
	Rules hs.SearchRules
	// Defaults, if non-nil, returns the defaults in force at each call
	// (an admin may change the default weights while the app runs); they
	// fill the weights a call leaves out when it gives some. nil means
	// Rules.Defaults.
	Defaults func() hs.SearchDefaults
	// MaxBodyBytes bounds a request body (413 beyond it); 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	Logger       *slog.Logger // nil means slog.Default()
	// ObserveTool, if non-nil, is told of every tool call: the tool, its
	// outcome ("ok", "cancelled" when the client went away, or the error
	// kind, e.g. "invalid") and its duration.
	ObserveTool func(tool, outcome string, d time.Duration)
}

// instructions tell the assistant how the tools fit together.
const instructions = `Search the user's Nextcloud files and notes. Use nc_semantic_search first: it finds documents by meaning, keywords and approximate spelling, and returns the matching passages with a file_id, a path and a link for each document. To read more of a document, call nc_get_document with its file_id (the whole text in pages, or a window of chunks around a chunk_no from the search). If expected documents are missing, nc_index_status tells whether indexing is still running or failed for some files. Cite documents by title and link.`

// handler is the MCP endpoint.
type handler struct {
	o       Options
	rules   hs.SearchRules
	origins map[string]bool
	mcp     http.Handler
	log     *slog.Logger

	srv   atomic.Pointer[liveServer] // the server for the defaults in force
	srvMu sync.Mutex                 // serializes building a new one
}

// NewHandler returns the MCP endpoint as an http.Handler, to be mounted
// behind authentication that puts the acting user into the request
// context (hs.NewContextWithUser). It refuses requests without a user
// (401) and browser requests from other origins than AllowedOrigins and
// the endpoint's own loopback address (403), and answers only the methods
// it declares (others get JSON-RPC -32601). It returns an error naming the
// first missing dependency.
func NewHandler(o Options) (http.Handler, error) {
	switch {
	case o.Search == nil:
		return nil, errors.New("mcp: Search is required")
	case o.Chunks == nil:
		return nil, errors.New("mcp: Chunks is required")
	case o.Access == nil:
		return nil, errors.New("mcp: Access is required")
	case o.Status == nil:
		return nil, errors.New("mcp: Status is required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	o.NextcloudURL = strings.TrimRight(o.NextcloudURL, "/")
	h := &handler{o: o, rules: o.Rules.OrDefault(), origins: map[string]bool{}, log: o.Logger.With("component", "mcp")}
	for _, a := range o.AllowedOrigins {
		if origin, ok := originOf(a); ok {
			h.origins[origin] = true
		}
	}
	srv, err := h.newServer(h.rules)
	if err != nil {
		return nil, err
	}
	h.srv.Store(&liveServer{defaults: h.rules.Defaults, srv: srv})
	h.mcp = sdk.NewStreamableHTTPHandler(h.server, &sdk.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		Logger:       h.log,
		// The SDK's own check compares Host with a loopback listener, which
		// refuses every proxied request when Nextcloud reaches the app on
		// 127.0.0.1 under its public Host. Every request here is
		// authenticated, and ServeHTTP checks Origin itself.
		DisableLocalhostProtection:   true,
		MaxRequestBodyBytes:          o.MaxBodyBytes,
		PropagateRequestCancellation: true,
	})
	return h, nil
}

// newServer returns the SDK server with the tools (the search tool's
// schema describing rules), the resources and the prompts.
func (h *handler) newServer(rules hs.SearchRules) (*sdk.Server, error) {
	srv := sdk.NewServer(&sdk.Implementation{
		Name: "hybrid_search", Title: "Hybrid Search for Nextcloud", Version: h.o.Version,
	}, &sdk.ServerOptions{
		Instructions: instructions,
		// Declared exactly: the tools, the document template and the
		// prompt. The lists keep their names while the app runs (only
		// the defaults a description names may change, see server), and
		// a stateless endpoint has no channel for notifications, so
		// listChanged, subscriptions and logging are not offered.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Resources: &sdk.ResourceCapabilities{}, Prompts: &sdk.PromptCapabilities{}},
	})
	if err := h.addTools(srv, rules); err != nil {
		return nil, err
	}
	h.addResources(srv)
	h.addPrompts(srv)
	srv.AddReceivingMiddleware(h.tidyErrors)
	return srv, nil
}

// liveServer is the SDK server whose tool descriptions name defaults.
type liveServer struct {
	defaults hs.SearchDefaults
	srv      *sdk.Server
}

// server returns the SDK server for a request: one whose search tool
// describes the defaults in force (Options.Defaults), built anew when an
// admin changed them, so tools/list names the live defaults.
func (h *handler) server(*http.Request) *sdk.Server {
	cur := h.srv.Load()
	if h.o.Defaults == nil {
		return cur.srv
	}
	d := h.o.Defaults()
	if d == cur.defaults {
		return cur.srv
	}
	h.srvMu.Lock()
	defer h.srvMu.Unlock()
	if cur = h.srv.Load(); d == cur.defaults {
		return cur.srv
	}
	rules := h.rules
	rules.Defaults = d
	srv, err := h.newServer(rules)
	if err != nil {
		h.log.Error("the tools could not describe the new search defaults; the previous ones stay", "error", err)
		return cur.srv
	}
	h.srv.Store(&liveServer{defaults: d, srv: srv})
	return srv
}

// ServeHTTP checks the origin and the acting user, then hands the request
// to the SDK.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" {
		origin, ok := originOf(o)
		if !ok || !h.origins[origin] && !sameLoopbackOrigin(origin, r) {
			h.log.Warn("request from a foreign origin refused", "origin", o)
			http.Error(w, "Forbidden: origin "+o+" may not call this endpoint", http.StatusForbidden)
			return
		}
	}
	if user, ok := hs.UserFromContext(r.Context()); !ok || user == "" {
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "Unauthorized: no acting user", http.StatusUnauthorized)
		return
	}
	if h.preflight(w, r) {
		return
	}
	h.mcp.ServeHTTP(w, r)
}

// sameLoopbackOrigin reports whether origin is the origin of the request's
// own Host and that Host is a loopback name (localhost, 127.0.0.0/8,
// [::1]): a page served from the endpoint's own loopback address, as a
// local client's is. A DNS-rebinding page cannot send it: its Host is the
// attacker's name.
func sameLoopbackOrigin(origin string, r *http.Request) bool {
	host := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return false
	}
	for _, scheme := range []string{"http://", "https://"} {
		if own, ok := originOf(scheme + r.Host); ok && own == origin {
			return true
		}
	}
	return false
}

// originOf returns the origin "scheme://host[:port]" of an Origin header
// or URL, lowercase and without a default port.
func originOf(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return strings.ToLower(u.Scheme) + "://" + host, true
}
