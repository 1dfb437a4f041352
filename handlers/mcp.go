package handlers

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/appapi"
)

// TokenService issues, lists, revokes and verifies the per-user bearer
// tokens for direct MCP access (*tokens.Service). Verify returns an
// EUNAUTHORIZED error for any bad token.
type TokenService interface {
	Issue(ctx context.Context, user hs.UserID, name string, ttl time.Duration) (string, hs.Token, error)
	List(ctx context.Context, user hs.UserID) ([]hs.Token, error)
	Revoke(ctx context.Context, user hs.UserID, id string) error
	Verify(ctx context.Context, raw string) (hs.UserID, hs.Token, error)
}

// MCPDeps are what /mcp, its protected-resource metadata and the token
// API need. A nil Deps.MCP leaves these routes out.
type MCPDeps struct {
	// Handler is the MCP endpoint (mcp.NewHandler); it reads the acting
	// user from the request context. Required.
	Handler http.Handler
	Tokens  TokenService // required
	// Users confirms that a user exists in Nextcloud before a token is
	// issued for them (*nextcloud.UserDirectory). Required: the app's
	// own signed API (the token CLI) can name any user.
	Users UserChecker
	// NextcloudURL is Nextcloud's base URL (no trailing slash), from
	// which the proxied URLs are built. Required.
	NextcloudURL string
	// OAuth is the app's authorization server (*oauth.Server); nil leaves
	// its routes out and the resource metadata without one.
	OAuth AuthServer
	// HaRP is set when the app is deployed behind HaRP: requests signed by
	// HaRP itself (no AA-REQUEST-ID, which AppAPI always sends) came
	// through <NextcloudURL>/exapps/<app id>/ rather than AppAPI's proxy.
	HaRP bool
}

// check reports the first missing dependency; a nil *MCPDeps is fine.
func (d *MCPDeps) check() error {
	switch {
	case d == nil:
		return nil
	case d.Handler == nil:
		return errors.New("handlers: MCP.Handler is required")
	case d.Tokens == nil:
		return errors.New("handlers: MCP.Tokens is required")
	case d.Users == nil:
		return errors.New("handlers: MCP.Users is required")
	case d.NextcloudURL == "":
		return errors.New("handlers: MCP.NextcloudURL is required")
	}
	return nil
}

// Paths of the MCP endpoint and of its protected-resource metadata
// (RFC 9728): the root form and the form for the resource /mcp.
const (
	mcpPath          = "/mcp"
	resourceMetaPath = "/.well-known/oauth-protected-resource"
)

// proxyBase is the app's base URL through the front that signed r: HaRP's
// /exapps/ or the AppAPI proxy.
func (s *Server) proxyBase(r *http.Request) string {
	if s.mcp.HaRP && r.Header.Get("AA-REQUEST-ID") == "" {
		return appapi.HaRPURL(s.mcp.NextcloudURL, s.appID)
	}
	return appapi.ProxyURL(s.mcp.NextcloudURL, s.appID)
}

// viaProxy reports whether the request came through the AppAPI proxy
// (its auth headers verify), and with which user ("" = anonymous).
func (s *Server) viaProxy(r *http.Request) (hs.UserID, bool) {
	if r.Header.Get(appapi.AuthHeader) == "" {
		return "", false
	}
	user, err := s.verifyAppAPI(r.Header.Get)
	return user, err == nil
}

// base is the app's base URL as the client that sent r reaches it: the
// proxy URL for proxied requests, else the scheme and Host it used.
func (s *Server) base(r *http.Request) string {
	if _, ok := s.viaProxy(r); ok {
		return s.proxyBase(r)
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// mcpAuth admits an AppAPI user or a valid bearer token and puts the user
// into the request context. Both Nextcloud's proxy and HaRP sign every
// request they forward, with user "" when Nextcloud logged nobody in: an
// app-issued token is not a Nextcloud login, so then the bearer token
// decides. With a Nextcloud user, the Authorization header (an app
// password Nextcloud already checked) is ignored. Anything else gets 401
// with a WWW-Authenticate header naming the protected-resource metadata
// at the URL the client can reach (the proxy's, HaRP's or the app's own).
// The Authorization header is never logged, stored or echoed.
func (s *Server) mcpAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		user, proxied := hs.UserID(""), r.Header.Get(appapi.AuthHeader) != ""
		if proxied {
			u, err := s.verifyAppAPI(r.Header.Get)
			if err != nil {
				return s.challenge(c, "invalid_token", err)
			}
			user = u
		}
		if user == "" {
			u, err := s.bearerUser(r, proxied)
			if err != nil && hs.ErrorKind(err) != hs.EUNAUTHORIZED {
				return err
			}
			if err != nil {
				code := ""
				if _, sent := bearerToken(r.Header.Get("Authorization")); sent {
					code = "invalid_token"
				}
				return s.challenge(c, code, err)
			}
			user = u
		}
		c.SetRequest(r.WithContext(hs.NewContextWithUser(r.Context(), user)))
		return next(c)
	}
}

// bearerUser verifies the request's app-issued bearer token. Without one
// it explains how to sign in, through a proxy or directly.
func (s *Server) bearerUser(r *http.Request, proxied bool) (hs.UserID, error) {
	raw, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok {
		if proxied {
			return "", hs.Errorf(hs.EUNAUTHORIZED,
				"sign in: send a Nextcloud app password (Basic or Bearer) or a token from \"hybridsearch token issue\" as Bearer authorization")
		}
		return "", hs.Errorf(hs.EUNAUTHORIZED,
			"send a token from \"hybridsearch token issue\" as Bearer authorization, or use the Nextcloud proxy URL with an app password")
	}
	u, _, err := s.mcp.Tokens.Verify(r.Context(), raw)
	if err != nil {
		return "", err
	}
	return u, nil
}

// challenge sets the RFC 6750 / RFC 9728 WWW-Authenticate header and
// returns err (EUNAUTHORIZED), which the error handler turns into 401.
func (s *Server) challenge(c echo.Context, code string, err error) error {
	v := `Bearer resource_metadata="` + s.base(c.Request()) + resourceMetaPath + mcpPath + `", scope="` + hs.TokenScope + `"`
	if code != "" {
		v += `, error="` + code + `", error_description="` + quotable(hs.ErrorMessage(err)) + `"`
	}
	c.Response().Header().Set("WWW-Authenticate", v)
	return err
}

// quotable drops what may not appear in a quoted header parameter.
func quotable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '"' || r == '\\' || r < 0x20 || r > 0x7e {
			return -1
		}
		return r
	}, s)
}

// bearerToken returns the token of "Bearer <token>".
func bearerToken(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	tok = strings.TrimSpace(tok)
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", false
	}
	return tok, true
}

// resourceMetadata is the RFC 9728 protected-resource metadata. Through
// the proxy it names the app's own authorization server (issuer: the
// app's proxy URL), which signs users in with Nextcloud's login. On the
// app's own port it names none: OAuth tokens are for the proxied MCP URL,
// and there clients use tokens from "hybridsearch token issue".
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	ResourceName           string   `json:"resource_name"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
}

// handleResourceMetadata answers GET /.well-known/oauth-protected-resource
// and …/mcp, public, through the proxy or directly: the resource is the
// MCP URL the client reaches this way.
func (s *Server) handleResourceMetadata(c echo.Context) error {
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	c.Response().Header().Set("Cache-Control", "public, max-age=3600")
	md := resourceMetadata{
		Resource:               s.base(c.Request()) + mcpPath,
		ResourceName:           "Hybrid Search for Nextcloud",
		ScopesSupported:        []string{hs.TokenScope},
		BearerMethodsSupported: []string{"header"},
	}
	if _, proxied := s.viaProxy(c.Request()); proxied && s.mcp.OAuth != nil {
		// The issuer is the AppAPI proxy URL, also under HaRP.
		md.AuthorizationServers = []string{appapi.ProxyURL(s.mcp.NextcloudURL, s.appID)}
	}
	return c.JSON(http.StatusOK, md)
}
