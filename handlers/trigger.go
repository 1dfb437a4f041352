package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// TaskTrigger hears that a task for one of the app's Task Processing
// providers is waiting (*assistant.Service). Trigger returns at once; an
// unknown provider is ENOTFOUND.
type TaskTrigger interface {
	Trigger(providerID string) error
}

// handleTrigger answers POST /trigger?providerId=<id>, which AppAPI sends
// (signed, without a user, within 3 s) when a task comes in for a provider
// while none of its type runs (app_api v33+ TaskProcessingService
// getAnonymousExAppProvider trigger()). The app takes the task itself
// afterwards; AppAPI does not read the answer.
func (s *Server) handleTrigger(c echo.Context) error {
	if s.tasks == nil {
		return hs.Errorf(hs.ENOTFOUND, "no task processing providers")
	}
	if err := s.tasks.Trigger(c.QueryParam("providerId")); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, struct{}{})
}
