package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// UserChecker tells whether a user exists in Nextcloud.
type UserChecker interface {
	UserExists(ctx context.Context, user hs.UserID) (bool, error)
}

// maxTokenDays guards the day count against overflow; the token service
// enforces the real limit (a year).
const maxTokenDays = 36500

// tokenRequest is the body of POST /api/tokens.
type tokenRequest struct {
	Name    string `json:"name"`
	TTLDays int    `json:"ttl_days"` // 0 means the default (90 days)
}

// issuedToken is the answer to POST /api/tokens: the token, shown once,
// and its record.
type issuedToken struct {
	Raw string `json:"token"`
	hs.Token
}

// handleTokenList answers GET /api/tokens: the acting user's tokens,
// revoked and expired ones included for a while.
func (s *Server) handleTokenList(c echo.Context) error {
	list, err := s.mcp.Tokens.List(c.Request().Context(), actingUser(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"tokens": list})
}

// handleTokenIssue answers POST /api/tokens {"name", "ttl_days"}: a new
// bearer token for the acting user, for direct MCP access, if that user
// exists in Nextcloud (404 otherwise).
func (s *Server) handleTokenIssue(c echo.Context) error {
	var req tokenRequest
	if c.Request().ContentLength != 0 {
		dec := json.NewDecoder(c.Request().Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return hs.Errorf(hs.EINVALID, "the body is not a token request {\"name\", \"ttl_days\"}: %v", err)
		}
	}
	if req.TTLDays < 0 || req.TTLDays > maxTokenDays {
		return hs.Errorf(hs.EINVALID, "ttl_days must be between 1 and 365 (0 for the default)")
	}
	user := actingUser(c)
	ok, err := s.mcp.Users.UserExists(c.Request().Context(), user)
	if err != nil {
		return hs.WrapError(hs.EUNAVAILABLE, err, "could not confirm the user with Nextcloud; try again shortly")
	}
	if !ok {
		// AppAPI vouches for proxied users, but the app's own signed API
		// (the token CLI) can name anyone.
		return hs.Errorf(hs.ENOTFOUND, "no Nextcloud user %q: tokens are issued only for existing users", user)
	}
	raw, rec, err := s.mcp.Tokens.Issue(c.Request().Context(), user, req.Name, time.Duration(req.TTLDays)*24*time.Hour)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusCreated, issuedToken{Raw: raw, Token: rec})
}

// handleTokenRevoke answers DELETE /api/tokens/:id for the acting user's
// token id.
func (s *Server) handleTokenRevoke(c echo.Context) error {
	if err := s.mcp.Tokens.Revoke(c.Request().Context(), actingUser(c), c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// requireUser admits only requests with a signed-in AppAPI user.
func requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if actingUser(c) == "" {
			return hs.Errorf(hs.EUNAUTHORIZED, "this needs a signed-in Nextcloud user")
		}
		return next(c)
	}
}
