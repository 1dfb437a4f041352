package handlers

import (
	"container/list"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/oauth"
)

// AuthServer is the app's OAuth authorization server (*oauth.Server).
// Refusals are *oauth.Error; other errors are store failures.
type AuthServer interface {
	Metadata() oauth.Metadata
	OpenIDMetadata() oauth.OpenIDMetadata
	Register(ctx context.Context, body []byte) (oauth.Client, error)
	Start(ctx context.Context, r oauth.AuthRequest) (oauth.Pending, error)
	Resume(ctx context.Context, id string, user hs.UserID) (oauth.Pending, error)
	Decide(ctx context.Context, id string, user hs.UserID, csrf string, allow bool) (string, error)
	Token(ctx context.Context, r oauth.TokenRequest) (oauth.TokenResponse, error)
	Revoke(ctx context.Context, token, hint, clientID string) error
}

// Rate limits per client address (rateKey): registrations, authorization
// requests (each may fetch a client metadata document; a signed-in
// user's count against the user, whose sign-ins are stored) and token and
// revocation requests. None of them stores anything for an anonymous
// caller, so the limits bound work, not room: a flood from many addresses
// slows the app down but blocks nobody's sign-in.
var (
	registerRate  = limit{per: time.Minute / 10, burst: 10}
	authorizeRate = limit{per: time.Minute / 30, burst: 30}
	tokenRate     = limit{per: time.Minute / 60, burst: 30}
	// userAuthorizeRate bounds the sign-ins one signed-in user opens
	// (each is a small record for RequestTTL): about 600 at most, so no
	// one user can fill the bucket, and none who signs in often is
	// refused.
	userAuthorizeRate = limit{per: time.Second, burst: 60}
)

// maxTracked bounds the addresses each limiter remembers (least recently
// seen out first), so a flood from many addresses cannot grow it.
const maxTracked = 10000

type limit struct {
	per   time.Duration // one more request allowed every per
	burst int
}

// Body limits of the OAuth endpoints.
const oauthBodyLimit = "16K"

// handleAuthServerMetadata answers GET /.well-known/oauth-authorization-server
// through the proxy. The app's own port takes app tokens only: there it is
// 404, saying so.
func (s *Server) handleAuthServerMetadata(c echo.Context) error {
	if _, ok := s.viaProxy(c.Request()); !ok {
		return s.noAuthServerHere(c)
	}
	publicJSON(c)
	return c.JSON(http.StatusOK, s.mcp.OAuth.Metadata())
}

// handleOpenIDMetadata answers GET /.well-known/openid-configuration
// through the proxy (404 on the app's own port).
func (s *Server) handleOpenIDMetadata(c echo.Context) error {
	if _, ok := s.viaProxy(c.Request()); !ok {
		return s.noAuthServerHere(c)
	}
	publicJSON(c)
	return c.JSON(http.StatusOK, s.mcp.OAuth.OpenIDMetadata())
}

// noAuthServerHere is the 404 of the authorization server's documents on
// the app's own port.
func (s *Server) noAuthServerHere(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-cache")
	return c.JSON(http.StatusNotFound, errorBody{Error: "no authorization server here. " + s.directNote(), Kind: hs.ENOTFOUND})
}

// handleJWKS answers GET /oauth/jwks: an empty key set (tokens are signed
// with a symmetric key and only this app checks them).
func (s *Server) handleJWKS(c echo.Context) error {
	publicJSON(c)
	return c.JSON(http.StatusOK, map[string]any{"keys": []any{}})
}

// preflightHeaders are the request headers browser-based OAuth clients
// send: the body's type and the MCP protocol version the TypeScript SDK
// adds to its discovery requests.
const preflightHeaders = "Content-Type, MCP-Protocol-Version, Authorization"

// preflight answers a CORS preflight (OPTIONS) for the discovery
// documents and the OAuth endpoints, whose answers already allow any
// origin (they carry no cookies and decide nothing by origin). Only HaRP
// forwards OPTIONS: AppAPI's PHP proxy has no OPTIONS route in any
// release (app_api appinfo/routes.php, v32.0.0 to v35.0.0beta4), so
// Nextcloud answers those with 405 before the app sees them.
func preflight(method string) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Allow", "OPTIONS, "+method)
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", method+", OPTIONS")
		h.Set("Access-Control-Allow-Headers", preflightHeaders)
		h.Set("Access-Control-Max-Age", "86400")
		return c.NoContent(http.StatusNoContent)
	}
}

func publicJSON(c echo.Context) {
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	c.Response().Header().Set("Cache-Control", "public, max-age=3600")
}

// handleOAuthRegister answers POST /oauth/register: RFC 7591 dynamic
// client registration (JSON in, 201 with the client out).
func (s *Server) handleOAuthRegister(c echo.Context) error {
	noStore(c)
	if mt := mediaType(c.Request()); mt != echo.MIMEApplicationJSON {
		return oauthJSONError(c, &oauth.Error{Code: oauth.ErrInvalidClientMetadata, Description: "send the client metadata as application/json", Status: http.StatusBadRequest})
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	client, err := s.mcp.OAuth.Register(c.Request().Context(), body)
	if err != nil {
		return s.oauthError(c, err)
	}
	return c.JSON(http.StatusCreated, client)
}

// handleOAuthToken answers POST /oauth/token (form-encoded, RFC 6749 4.1.3
// and 6): tokens for a code or a refresh token.
func (s *Server) handleOAuthToken(c echo.Context) error {
	noStore(c)
	f, ferr := oauthForm(c)
	if ferr != nil {
		return oauthJSONError(c, ferr)
	}
	if c.Request().Header.Get("Authorization") != "" {
		return oauthJSONError(c, &oauth.Error{Code: oauth.ErrInvalidClient, Status: http.StatusUnauthorized,
			Description: "clients are public here: send client_id in the body and no Authorization header"})
	}
	tok, err := s.mcp.OAuth.Token(c.Request().Context(), oauth.TokenRequest{
		GrantType: f.Get("grant_type"), ClientID: f.Get("client_id"), Code: f.Get("code"), RedirectURI: f.Get("redirect_uri"),
		CodeVerifier: f.Get("code_verifier"), RefreshToken: f.Get("refresh_token"), Scope: f.Get("scope"), Resources: f["resource"],
	})
	if err != nil {
		return s.oauthError(c, err)
	}
	return c.JSON(http.StatusOK, tok)
}

// handleOAuthRevoke answers POST /oauth/revoke (RFC 7009): 200 whether or
// not the token was known.
func (s *Server) handleOAuthRevoke(c echo.Context) error {
	noStore(c)
	f, ferr := oauthForm(c)
	if ferr != nil {
		return oauthJSONError(c, ferr)
	}
	if err := s.mcp.OAuth.Revoke(c.Request().Context(), f.Get("token"), f.Get("token_type_hint"), f.Get("client_id")); err != nil {
		return s.oauthError(c, err)
	}
	return c.NoContent(http.StatusOK)
}

// oauthForm parses a form-encoded OAuth request body; a parameter sent
// twice (other than resource) is refused (RFC 6749 3.2).
func oauthForm(c echo.Context) (url.Values, *oauth.Error) {
	bad := func(d string) (url.Values, *oauth.Error) {
		return nil, &oauth.Error{Code: oauth.ErrInvalidRequest, Description: d, Status: http.StatusBadRequest}
	}
	r := c.Request()
	if mediaType(r) != echo.MIMEApplicationForm {
		return bad("send the parameters as application/x-www-form-urlencoded")
	}
	body, err := readBody(c)
	if err != nil {
		return bad("the body cannot be read")
	}
	f, err := url.ParseQuery(string(body))
	if err != nil {
		return bad("the body is not form-encoded")
	}
	for k, vs := range f {
		if len(vs) > 1 && k != "resource" {
			return bad("parameter " + k + " is sent more than once")
		}
	}
	return f, nil
}

// oauthError answers err as an OAuth JSON error: *oauth.Error as it is,
// an unavailable store as temporarily_unavailable (503), anything else as
// server_error (500, logged).
func (s *Server) oauthError(c echo.Context, err error) error {
	var oe *oauth.Error
	if errors.As(err, &oe) {
		return oauthJSONError(c, oe)
	}
	if hs.ErrorKind(err) == hs.EUNAVAILABLE {
		s.logger.Warn("oauth request failed", "path", c.Request().URL.Path, "error", err)
		c.Response().Header().Set("Retry-After", "5")
		return oauthJSONError(c, &oauth.Error{Code: oauth.ErrTemporarilyUnavailable, Description: "try again in a moment", Status: http.StatusServiceUnavailable})
	}
	s.logger.Error("oauth request failed", "path", c.Request().URL.Path, "error", err)
	return oauthJSONError(c, &oauth.Error{Code: oauth.ErrServerError, Description: "internal error", Status: http.StatusInternalServerError})
}

func oauthJSONError(c echo.Context, e *oauth.Error) error {
	noStore(c)
	status := e.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	return c.JSON(status, map[string]string{"error": e.Code, "error_description": e.Description})
}

func noStore(c echo.Context) {
	h := c.Response().Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	h.Set("Access-Control-Allow-Origin", "*")
}

func mediaType(r *http.Request) string {
	mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

func readBody(c echo.Context) ([]byte, error) {
	return io.ReadAll(c.Request().Body)
}

// rateLimit limits requests per rateKey, and a signed-in user's by
// perUser (nil: as anyone's); over the limit the answer is 429
// temporarily_unavailable with Retry-After. Callers without a key the app
// can trust are not limited here.
func (s *Server) rateLimit(l limit, perUser *limit) echo.MiddlewareFunc {
	store := newLimiter(l, maxTracked)
	var users *limiter
	if perUser != nil {
		users = newLimiter(*perUser, maxTracked)
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			key, ok := s.rateKey(c.Request())
			st := store
			if users != nil {
				if user, signed := s.viaProxy(c.Request()); signed && user != "" {
					key, ok, st = string(user), true, users
				}
			}
			if ok && !st.allow(key) {
				c.Response().Header().Set("Retry-After", "60")
				return oauthJSONError(c, &oauth.Error{Code: oauth.ErrTemporarilyUnavailable, Description: "too many requests; try again in a minute", Status: http.StatusTooManyRequests})
			}
			return next(c)
		}
	}
}

// rateKey is the address a request counts against, and whether the app
// knows one it can trust: X-Origin-Ip on requests AppAPI's proxy sent (it
// sets the header itself; fromAppAPI), the peer's address on the app's own
// port. HaRP's own /exapps/ route passes no caller address, and the
// X-Origin-Ip on it is the client's to write: no key. An IPv6 address
// counts as its /64, which one host usually holds whole.
func (s *Server) rateKey(r *http.Request) (string, bool) {
	addr := ""
	switch _, signed := s.viaProxy(r); {
	case signed && !s.fromAppAPI(r):
		return "", false
	case signed:
		addr = r.Header.Get("X-Origin-Ip")
	}
	if addr == "" {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		addr = host
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr, true
	}
	if ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(64)
		return p.String(), true
	}
	return ip.Unmap().String(), true
}

// limiter is one token bucket per key, for at most max keys: the least
// recently seen is forgotten first.
type limiter struct {
	l   limit
	max int

	mu   sync.Mutex
	keys map[string]*list.Element // of *bucket
	lru  *list.List               // front: most recently seen
}

type bucket struct {
	key string
	lim *rate.Limiter
}

func newLimiter(l limit, max int) *limiter {
	return &limiter{l: l, max: max, keys: map[string]*list.Element{}, lru: list.New()}
}

// allow reports whether key may make one more request now.
func (l *limiter) allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.keys[key]
	if ok {
		l.lru.MoveToFront(el)
	} else {
		el = l.lru.PushFront(&bucket{key: key, lim: rate.NewLimiter(rate.Every(l.l.per), l.l.burst)})
		l.keys[key] = el
		for l.lru.Len() > l.max {
			last := l.lru.Back()
			l.lru.Remove(last)
			delete(l.keys, last.Value.(*bucket).key)
		}
	}
	return el.Value.(*bucket).lim.Allow()
}

// size is how many keys the limiter tracks.
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}
