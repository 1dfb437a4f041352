package handlers

import (
	"errors"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/oauth"
)

// MaxBodyBytes limits every request body (webhook batches, search
// requests); larger bodies get 413 before they are read.
const MaxBodyBytes = 1 << 20

// Deps are the handlers' dependencies; New checks the required ones.
type Deps struct {
	AppID     string // required: the EX-APP-ID to accept
	AppSecret string // required: the AppAPI shared secret
	// HaRPKey is HP_SHARED_KEY when the app is deployed behind HaRP ("" if
	// not): AppAPI sends it on the requests it makes through HaRP (its
	// proxy's among them), HaRP passes it on, and a client never knows it,
	// so it alone tells AppAPI's proxy from HaRP's own /exapps/ route.
	HaRPKey   string
	Lifecycle Lifecycle    // required
	Status    StatusSource // required
	Publish   Publisher    // required
	Operator  Operator     // required
	Search    Searcher     // nil: /api/search answers 503
	Viz       Visualizer   // nil: /api/viz answers 503
	Similar   Similarity   // nil: /api/similar answers 503
	// SimilarPage is the app page "Find similar" opens; "" means
	// DefaultSimilarPage.
	SimilarPage string
	Settings    SettingsSource // nil: /api/settings answers 503
	// Ask answers questions (POST /api/ask); nil answers 404 ask_off.
	Ask Asker
	// Tasks hears AppAPI's task processing triggers (POST /trigger); nil
	// answers 404.
	Tasks TaskTrigger
	// Rules are the search request rules (dates, limits); the zero value
	// means hs.DefaultSearchRules(). The search service checks requests
	// against the same rules and fills in its own defaults.
	Rules hs.SearchRules
	// Defaults, if non-nil, returns the search defaults in force at each
	// request (an admin may change the default weights while the app
	// runs); they fill the weights a request leaves out when it gives
	// some, as in MCP. nil means Rules.Defaults.
	Defaults func() hs.SearchDefaults
	MCP      *MCPDeps     // nil: no /mcp, metadata or token routes
	Assets   fs.FS        // required: the frontend build (js/, css/, img/)
	Logger   *slog.Logger // nil means slog.Default()
	// Health reports whether the app's components all run (nil) or what
	// is wrong; /heartbeat answers from it. nil means always healthy.
	Health func() error
	// Observer counts webhook events (*metrics.Metrics); nil counts none.
	Observer Observer
	// Live hears each webhook's event time and arrival, for the delay
	// figures of the status (*indexing.Live); nil records none.
	Live DeliveryRecorder
	// Ops are /metrics, /healthz and /readyz; nil leaves them out.
	Ops *Ops
}

// Server holds the handlers and what they need.
type Server struct {
	appID    string
	secret   string
	harpKey  string
	life     Lifecycle
	status   StatusSource
	publish  Publisher
	operator Operator
	search   Searcher
	viz      Visualizer
	similar  Similarity
	simPage  string
	settings SettingsSource
	ask      Asker
	tasks    TaskTrigger
	rules    hs.SearchRules
	defaults func() hs.SearchDefaults
	mcp      *MCPDeps
	assets   fs.FS
	// assetCache holds the assets served so far (handleAsset).
	assetCache assetCache
	logger     *slog.Logger
	health     func() error
	observer   Observer
	live       DeliveryRecorder
	ops        *Ops
}

// New returns a Server, or an error naming the first missing dependency.
func New(d Deps) (*Server, error) {
	switch {
	case d.AppID == "":
		return nil, errors.New("handlers: AppID is required")
	case d.AppSecret == "":
		return nil, errors.New("handlers: AppSecret is required")
	case d.Lifecycle == nil:
		return nil, errors.New("handlers: Lifecycle is required")
	case d.Status == nil:
		return nil, errors.New("handlers: Status is required")
	case d.Publish == nil:
		return nil, errors.New("handlers: Publish is required")
	case d.Operator == nil:
		return nil, errors.New("handlers: Operator is required")
	case d.Assets == nil:
		return nil, errors.New("handlers: Assets is required")
	}
	if err := d.MCP.check(); err != nil {
		return nil, err
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &Server{mcp: d.MCP, appID: d.AppID, secret: d.AppSecret, harpKey: d.HaRPKey, life: d.Lifecycle, status: d.Status, publish: d.Publish, operator: d.Operator, search: d.Search, viz: d.Viz, similar: d.Similar, simPage: d.SimilarPage, settings: d.Settings, ask: d.Ask, tasks: d.Tasks, rules: d.Rules.OrDefault(), defaults: d.Defaults, assets: d.Assets, logger: d.Logger, health: d.Health, observer: d.Observer, live: d.Live, ops: d.Ops}, nil
}

// Handler returns the app's complete HTTP handler.
func (s *Server) Handler() http.Handler {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.errorHandler
	e.Use(middleware.Recover())
	e.Use(requestIDFrom(s.fromAppAPI))
	e.Use(s.observeWebhook) // outside the body limit, to count its 413s
	e.Use(middleware.BodyLimit("1M"))
	e.Use(s.requestLogger())
	s.Register(e)
	return e
}

// Register adds every route to e. This is the whole route table.
func (s *Server) Register(e *echo.Echo) {
	// AppAPI lifecycle (called by Nextcloud directly, not through the proxy).
	e.GET("/heartbeat", s.handleHeartbeat)
	e.POST("/init", s.handleInit, s.appAPIAuth, requireNoUser)
	e.PUT("/enabled", s.handleEnabled, s.appAPIAuth, requireNoUser)
	// Task Processing: AppAPI (33+) nudges a provider when a task comes in
	// (trigger.go). No info.xml route matches it.
	e.POST("/trigger", s.handleTrigger, s.appAPIAuth, requireNoUser)
	// File events from webhook_listeners, which AppAPI delivers to the app
	// directly (exAppRequest) as the user who caused the event. No info.xml
	// route matches this path, so neither AppAPI's proxy nor HaRP forwards
	// anyone's request to it (webhook.go).
	e.POST(WebhookPath, s.handleWebhook, s.appAPIAuth)

	// JSON API (through the AppAPI proxy, as the logged-in user).
	api := e.Group("/api", s.appAPIAuth)
	api.GET("/status", s.handleStatus)
	api.GET("/settings", s.handleSettings)
	api.GET("/search", s.handleSearch)
	api.POST("/search", s.handleSearch)
	api.GET("/viz", s.handleViz)
	api.GET("/similar", s.handleSimilar)
	api.POST("/files/similar", s.handleFileActionSimilar)
	api.POST("/scan", s.handleScan)
	api.POST("/retry", s.handleRetry)
	api.POST("/ask", s.handleAsk, requireUser)

	// Frontend assets loaded by the top-menu page through the proxy.
	e.GET("/js/*", s.handleAsset, s.appAPIAuth)
	e.GET("/css/*", s.handleAsset, s.appAPIAuth)
	e.GET("/img/*", s.handleAsset, s.appAPIAuth)

	// Operator endpoints (the app's own port only; not proxied).
	s.ops.Register(e)

	// MCP endpoint (mcp.go) for an AppAPI user (through the Nextcloud
	// proxy, which authenticated an app password) or a bearer token
	// (direct access), its protected-resource metadata (RFC 9728, the root
	// form and the form for the resource /mcp), and the token API for the
	// acting AppAPI user (tokens.go). POST carries every MCP message. The
	// endpoint is stateless: it has no stream to GET and no session to
	// DELETE, so those get 405 (as legacy clients expect) once signed in
	// (401 with the challenge before: mcp-remote probes with a GET), and
	// OPTIONS lists only POST.
	if s.mcp == nil {
		return
	}
	e.POST(mcpPath, echo.WrapHandler(s.mcp.Handler), s.mcpAuth)
	e.Match([]string{http.MethodGet, http.MethodDelete}, mcpPath, handleNoStream, s.mcpAuth)
	e.OPTIONS(mcpPath, handleMCPOptions)
	e.GET(resourceMetaPath, s.handleResourceMetadata)
	e.GET(resourceMetaPath+mcpPath, s.handleResourceMetadata)
	e.OPTIONS(resourceMetaPath, preflight(http.MethodGet))
	e.OPTIONS(resourceMetaPath+mcpPath, preflight(http.MethodGet))
	e.GET("/api/tokens", s.handleTokenList, s.appAPIAuth, requireUser)
	e.POST("/api/tokens", s.handleTokenIssue, s.appAPIAuth, requireUser)
	e.DELETE("/api/tokens/:id", s.handleTokenRevoke, s.appAPIAuth, requireUser)

	// The OAuth authorization server for /mcp (oauth.go). The metadata is
	// served at the well-known paths under the app's base URL (both RFC
	// 8414 and OpenID Connect's names, see oauth.Server.OpenIDMetadata),
	// and under the MCP URL, where clients that take the MCP URL for the
	// authorization server look (mcp-remote). Browser-based clients'
	// CORS preflights are answered where they arrive (behind HaRP; see
	// preflight).
	if s.mcp.OAuth == nil {
		return
	}
	oauthBody := middleware.BodyLimit(oauthBodyLimit)
	for _, base := range []string{"", mcpPath} {
		e.GET(base+"/.well-known/oauth-authorization-server", s.handleAuthServerMetadata)
		e.GET(base+"/.well-known/openid-configuration", s.handleOpenIDMetadata)
		e.OPTIONS(base+"/.well-known/oauth-authorization-server", preflight(http.MethodGet))
		e.OPTIONS(base+"/.well-known/openid-configuration", preflight(http.MethodGet))
	}
	for _, p := range []string{oauth.RegisterPath, oauth.TokenPath, oauth.RevokePath} {
		e.OPTIONS(p, preflight(http.MethodPost))
	}
	e.OPTIONS(oauth.JWKSPath, preflight(http.MethodGet))
	e.GET(oauth.JWKSPath, s.handleJWKS)
	tokenLimit := s.rateLimit(tokenRate, nil)
	e.POST(oauth.RegisterPath, s.handleOAuthRegister, s.rateLimit(registerRate, nil), oauthBody)
	e.GET(oauth.AuthorizePath, s.handleAuthorize, s.rateLimit(authorizeRate, &userAuthorizeRate))
	e.POST(oauth.AuthorizePath, s.handleConsent, oauthBody)
	e.POST(oauth.TokenPath, s.handleOAuthToken, tokenLimit, oauthBody)
	e.POST(oauth.RevokePath, s.handleOAuthRevoke, tokenLimit, oauthBody)
}

// requestLogger logs one line per request at debug level, and failures at
// warn level. It never logs headers (they carry the AppAPI secret).
func (s *Server) requestLogger() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogStatus: true, LogURIPath: true, LogMethod: true, LogLatency: true,
		HandleError: true, // run the error handler first, so the logged status is the one sent
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelDebug
			if v.Status >= 500 {
				level = slog.LevelWarn
			}
			s.logger.Log(c.Request().Context(), level, "request", slog.String("method", v.Method),
				slog.String("path", v.URIPath), slog.Int("status", v.Status), slog.Int64("duration_ms", v.Latency.Milliseconds()))
			return nil
		},
	})
}
