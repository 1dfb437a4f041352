package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// StatusSource reports the app's state as one user sees it.
type StatusSource interface {
	Status(ctx context.Context, user hs.UserID) (any, error)
}

// handleStatus answers GET /api/status for the acting user.
func (s *Server) handleStatus(c echo.Context) error {
	st, err := s.status.Status(c.Request().Context(), actingUser(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, st)
}

// requireNoUser admits only calls AppAPI makes for the app itself (empty
// user): /init, /enabled and webhook deliveries. A user reaching them
// through the proxy gets 403.
func requireNoUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if actingUser(c) != "" {
			return echo.NewHTTPError(http.StatusForbidden, "this route is for AppAPI only")
		}
		return next(c)
	}
}
