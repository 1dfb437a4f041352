package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// SettingsSource tells the panel the settings in force (the admin's
// settings on top of the environment): default fusion and weights, whether
// semantic search runs, and for admins the settings that could not be
// used.
type SettingsSource interface {
	PanelSettings(ctx context.Context, user hs.UserID) (any, error)
}

// handleSettings answers GET /api/settings for the acting user.
func (s *Server) handleSettings(c echo.Context) error {
	if s.settings == nil {
		return hs.Errorf(hs.EUNAVAILABLE, "settings are not available")
	}
	out, err := s.settings.PanelSettings(c.Request().Context(), actingUser(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}
