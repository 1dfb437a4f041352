package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// Operator runs on-demand index operations for a user, or for every user
// with all (the operator checks that the user is an admin).
type Operator interface {
	Scan(ctx context.Context, user hs.UserID, all bool) error
	Retry(ctx context.Context, user hs.UserID, all bool) (int, error)
}

// handleScan answers POST /api/scan[?all=1]: a reconciliation scan of the
// acting user's files (or everyone's), started in the background.
func (s *Server) handleScan(c echo.Context) error {
	all := c.QueryParam("all") == "1" || c.QueryParam("all") == "true"
	if err := s.operator.Scan(c.Request().Context(), actingUser(c), all); err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"scan": "requested", "all": all})
}

// handleRetry answers POST /api/retry[?all=1]: failed files are queued again.
func (s *Server) handleRetry(c echo.Context) error {
	all := c.QueryParam("all") == "1" || c.QueryParam("all") == "true"
	n, err := s.operator.Retry(c.Request().Context(), actingUser(c), all)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"queued": n})
}
