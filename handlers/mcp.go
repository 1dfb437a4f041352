package handlers

import (
	"context"
	"crypto/subtle"
	"errors"
	"net"
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
// /exapps/ or the AppAPI proxy. Only AppAPI's shared key tells them apart
// (fromAppAPI); a header a client can send (AA-REQUEST-ID) decides nothing.
func (s *Server) proxyBase(r *http.Request) string {
	if s.harpKey != "" && !s.fromAppAPI(r) {
		return appapi.HaRPURL(s.mcp.NextcloudURL, s.appID)
	}
	return appapi.ProxyURL(s.mcp.NextcloudURL, s.appID)
}

// viaProxy reports whether the request came through the AppAPI proxy or
// HaRP (its auth headers verify), and with which user ("" = anonymous).
func (s *Server) viaProxy(r *http.Request) (hs.UserID, bool) {
	if r.Header.Get(appapi.AuthHeader) == "" {
		return "", false
	}
	user, err := s.verifyAppAPI(r.Header.Get)
	return user, err == nil
}

// fromAppAPI reports whether AppAPI itself sent r (its proxy, or its own
// calls): the request is signed and, behind HaRP, carries AppAPI's
// shared key, without which HaRP signed it for a client of its /exapps/
// route, passing that client's headers (AA-REQUEST-ID, X-Origin-Ip) on.
func (s *Server) fromAppAPI(r *http.Request) bool {
	if _, ok := s.viaProxy(r); !ok {
		return false
	}
	return s.harpKey == "" || subtle.ConstantTimeCompare([]byte(r.Header.Get("harp-shared-key")), []byte(s.harpKey)) == 1
}

// base is the app's base URL as the client that sent r reaches it: the
// proxy's (or HaRP's) for signed requests, else directBase.
func (s *Server) base(r *http.Request) string {
	if _, ok := s.viaProxy(r); ok {
		return s.proxyBase(r)
	}
	return directBase(r)
}

// directBase is the app's own address as the connection that carried r
// came in on: from the listener, never from Host (or X-Forwarded-*), which
// the client writes. On the HaRP socket it is http://localhost.
func directBase(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok {
		return "http://" + a.String()
	}
	return "http://localhost"
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
		return "", hs.Errorf(hs.EUNAUTHORIZED, "send a token from \"hybridsearch token issue\" as Bearer authorization")
	}
	u, _, err := s.mcp.Tokens.Verify(r.Context(), raw)
	if err != nil {
		return "", err
	}
	return u, nil
}

// challenge sets the RFC 6750 / RFC 9728 WWW-Authenticate header and
// returns err (EUNAUTHORIZED), which the error handler turns into 401.
// Through a proxy it names the protected-resource metadata (and so the
// authorization server); on the app's own port, which takes app tokens
// only, it names none and its answer says where OAuth sign-in happens.
func (s *Server) challenge(c echo.Context, code string, err error) error {
	r := c.Request()
	_, proxied := s.viaProxy(r)
	v := `Bearer resource_metadata="` + s.base(r) + resourceMetaPath + mcpPath + `", scope="` + hs.TokenScope + `"`
	if !proxied {
		v = `Bearer realm="` + directRealm + `", scope="` + hs.TokenScope + `"`
	}
	if code != "" {
		v += `, error="` + code + `", error_description="` + quotable(hs.ErrorMessage(err)) + `"`
	}
	c.Response().Header().Set("WWW-Authenticate", v)
	if !proxied {
		return c.JSON(http.StatusUnauthorized, errorBody{Error: hs.ErrorMessage(err) + ". " + s.directNote(), Kind: hs.EUNAUTHORIZED})
	}
	return err
}

// directRealm is the challenge's realm on the app's own port.
const directRealm = "Hybrid Search (app tokens only)"

// directNote says what the app's own port takes, and where to sign in
// otherwise: the MCP URL through Nextcloud (from the configuration).
func (s *Server) directNote() string {
	return "This address takes app tokens only (\"hybridsearch token issue\", or Tokens in the app). " +
		"To sign in with OAuth or a Nextcloud app password, use " + appapi.ProxyURL(s.mcp.NextcloudURL, s.appID) + mcpPath
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
// app's own port it names none, and says so: OAuth tokens are for the
// proxied MCP URL, and there clients use tokens from "hybridsearch token
// issue".
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	ResourceName           string   `json:"resource_name"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	// SignIn, on the app's own port, says what it takes and where OAuth
	// sign-in happens (RFC 9728 2 allows further members).
	SignIn string `json:"hybridsearch_sign_in,omitempty"`
}

// handleResourceMetadata answers GET /.well-known/oauth-protected-resource
// and …/mcp, public, through the proxy or directly: the resource is the
// MCP URL the client reaches this way. Nothing in it comes from a header
// the client wrote, so the proxy's answers may be cached by anyone; the
// app's own port answers per connection, and not for caches.
func (s *Server) handleResourceMetadata(c echo.Context) error {
	r := c.Request()
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	md := resourceMetadata{
		Resource:               s.base(r) + mcpPath,
		ResourceName:           "Hybrid Search for Nextcloud",
		ScopesSupported:        []string{hs.TokenScope},
		BearerMethodsSupported: []string{"header"},
	}
	if _, proxied := s.viaProxy(r); !proxied {
		c.Response().Header().Set("Cache-Control", "no-cache")
		md.ResourceName += " (app tokens only)"
		md.SignIn = s.directNote()
		return c.JSON(http.StatusOK, md)
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=3600")
	if s.mcp.OAuth != nil {
		// The issuer is the AppAPI proxy URL, also under HaRP.
		md.AuthorizationServers = []string{appapi.ProxyURL(s.mcp.NextcloudURL, s.appID)}
	}
	return c.JSON(http.StatusOK, md)
}

// handleNoStream answers GET and DELETE /mcp once the caller is signed in:
// the endpoint is stateless, with no stream to open and no session to end.
func handleNoStream(c echo.Context) error {
	c.Response().Header().Set("Allow", "OPTIONS, POST")
	return echo.NewHTTPError(http.StatusMethodNotAllowed, "this MCP endpoint is stateless: POST every message; there is no stream to GET and no session to DELETE")
}

// handleMCPOptions answers OPTIONS /mcp with the one method it serves.
func handleMCPOptions(c echo.Context) error {
	c.Response().Header().Set("Allow", "OPTIONS, POST")
	return c.NoContent(http.StatusNoContent)
}
