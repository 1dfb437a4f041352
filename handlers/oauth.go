package handlers

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/oauth"
)

// AuthServer is the app's OAuth authorization server (*oauth.Server).
// Refusals are *oauth.Error; other errors are store failures.
type AuthServer interface {
	Metadata() oauth.Metadata
	OpenIDMetadata() oauth.Metadata
	Register(ctx context.Context, body []byte) (oauth.Client, error)
	Start(ctx context.Context, r oauth.AuthRequest) (oauth.Pending, error)
	Resume(ctx context.Context, id string, user hs.UserID) (oauth.Pending, error)
	Decide(ctx context.Context, id string, user hs.UserID, csrf string, allow bool) (string, error)
	Token(ctx context.Context, r oauth.TokenRequest) (oauth.TokenResponse, error)
	Revoke(ctx context.Context, token, hint, clientID string) error
}

// Rate limits per client address (the X-Origin-Ip AppAPI sets on proxied
// requests, else the peer address): registrations, authorization
// requests (each may fetch a client metadata document) and token and
// revocation requests.
var (
	registerRate  = limit{per: time.Minute / 10, burst: 10}
	authorizeRate = limit{per: time.Minute / 30, burst: 30}
	tokenRate     = limit{per: time.Minute / 60, burst: 30}
)

type limit struct {
	per   time.Duration // one more request allowed every per
	burst int
}

// Body limits of the OAuth endpoints.
const oauthBodyLimit = "16K"

// handleAuthServerMetadata answers GET /.well-known/oauth-authorization-server.
func (s *Server) handleAuthServerMetadata(c echo.Context) error {
	publicJSON(c)
	return c.JSON(http.StatusOK, s.mcp.OAuth.Metadata())
}

// handleOpenIDMetadata answers GET /.well-known/openid-configuration.
func (s *Server) handleOpenIDMetadata(c echo.Context) error {
	publicJSON(c)
	return c.JSON(http.StatusOK, s.mcp.OAuth.OpenIDMetadata())
}

// handleJWKS answers GET /oauth/jwks: an empty key set (tokens are signed
// with a symmetric key and only this app checks them).
func (s *Server) handleJWKS(c echo.Context) error {
	publicJSON(c)
	return c.JSON(http.StatusOK, map[string]any{"keys": []any{}})
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

// rateLimit limits requests per client address; over the limit the
// answer is 429 temporarily_unavailable with Retry-After.
func (s *Server) rateLimit(l limit) echo.MiddlewareFunc {
	return middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Store: middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
			Rate: rate.Every(l.per), Burst: l.burst, ExpiresIn: 10 * time.Minute,
		}),
		IdentifierExtractor: func(c echo.Context) (string, error) { return s.clientAddress(c.Request()), nil },
		DenyHandler: func(c echo.Context, _ string, _ error) error {
			c.Response().Header().Set("Retry-After", "60")
			return oauthJSONError(c, &oauth.Error{Code: oauth.ErrTemporarilyUnavailable, Description: "too many requests; try again in a minute", Status: http.StatusTooManyRequests})
		},
	})
}

// clientAddress is the caller's IP: X-Origin-Ip on requests the AppAPI
// proxy signed (it sets that header itself), else the peer address.
func (s *Server) clientAddress(r *http.Request) string {
	if _, ok := s.viaProxy(r); ok {
		if ip := r.Header.Get("X-Origin-Ip"); ip != "" {
			return ip
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
