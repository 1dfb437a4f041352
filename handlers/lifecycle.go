package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// Lifecycle is what the app does when AppAPI initializes, enables and
// disables it.
type Lifecycle interface {
	// StartInit starts initialization in the background and returns at
	// once; progress is reported to Nextcloud by the implementation.
	StartInit()
	// SetEnabled registers (true) or removes (false) the app's UI entries
	// and webhooks. It must be idempotent.
	SetEnabled(ctx context.Context, enabled bool) error
}

// enabledTimeout bounds /enabled; AppAPI itself waits 60 s.
const enabledTimeout = 55 * time.Second

// handleHeartbeat answers GET /heartbeat, which AppAPI calls without auth.
// AppAPI counts only HTTP 200 with {"status":"ok"} as alive
// (AppAPIService::heartbeatExApp, app_api v32–v35); while a component is
// starting, stopping or dead the answer is 503 with the state, never an
// error text (the caller is not authenticated).
func (s *Server) handleHeartbeat(c echo.Context) error {
	if s.health != nil {
		if err := s.health(); err != nil {
			return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": err.Error()})
		}
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// handleInit answers POST /init at once and starts initialization.
func (s *Server) handleInit(c echo.Context) error {
	s.life.StartInit()
	return c.JSON(http.StatusOK, struct{}{})
}

// enabledResponse is the body AppAPI reads from /enabled: only Error counts.
type enabledResponse struct {
	Error string `json:"error"`
}

// handleEnabled answers PUT /enabled?enabled=1|0. AppAPI ignores the HTTP
// status and reads only the error field, so failures are reported there.
func (s *Server) handleEnabled(c echo.Context) error {
	var enabled bool
	switch c.QueryParam("enabled") {
	case "1":
		enabled = true
	case "0":
		enabled = false
	default:
		return c.JSON(http.StatusBadRequest, enabledResponse{Error: "query parameter enabled must be 1 or 0"})
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), enabledTimeout)
	defer cancel()
	if err := s.life.SetEnabled(ctx, enabled); err != nil {
		s.logger.Error("changing enabled state failed", "enabled", enabled, "error", err)
		return c.JSON(http.StatusOK, enabledResponse{Error: err.Error()})
	}
	return c.JSON(http.StatusOK, enabledResponse{Error: ""})
}
