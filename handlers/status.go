package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// StatusSource reports the app's state as one user sees it, or for every
// user when all is set (admins only; the source checks).
type StatusSource interface {
	Status(ctx context.Context, user hs.UserID, all bool) (hs.IndexStatus, error)
}

// handleStatus answers GET /api/status[?all=1] for the acting user.
func (s *Server) handleStatus(c echo.Context) error {
	all := c.QueryParam("all") == "1" || c.QueryParam("all") == "true"
	st, err := s.status.Status(c.Request().Context(), actingUser(c), all)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, st)
}

// requireNoUser admits only calls AppAPI makes for the app itself (empty
// user): /init and /enabled. A caller naming a user gets 403.
func requireNoUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if actingUser(c) != "" {
			return echo.NewHTTPError(http.StatusForbidden, "this route is for AppAPI only")
		}
		return next(c)
	}
}
