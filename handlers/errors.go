package handlers

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// statusOf maps error kinds to HTTP statuses. It is the only such table.
var statusOf = map[string]int{
	hs.EINVALID:      http.StatusBadRequest,
	hs.ENOTFOUND:     http.StatusNotFound,
	hs.EUNAUTHORIZED: http.StatusUnauthorized,
	hs.ECONFLICT:     http.StatusConflict,
	hs.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	hs.EUNAVAILABLE:  http.StatusServiceUnavailable,
	hs.EINTERNAL:     http.StatusInternalServerError,
}

// errorBody is the JSON body of every error response.
type errorBody struct {
	Error string `json:"error"`
	Kind  string `json:"kind,omitempty"`
}

// errorHandler turns a handler's error into a JSON response. Domain errors
// keep their user-safe message, without internal addresses (the log has
// them); Echo's own errors (404, 405, 413) keep
// theirs; anything else is logged and shown as a generic message.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status := http.StatusInternalServerError
	body := errorBody{Error: "internal error", Kind: hs.EINTERNAL}
	var he *echo.HTTPError
	switch {
	case errors.As(err, &he):
		status = he.Code
		body = errorBody{Error: http.StatusText(he.Code)}
		if msg, ok := he.Message.(string); ok && msg != "" {
			body.Error = msg
		}
		if he.Code == http.StatusRequestEntityTooLarge {
			body = errorBody{Error: "request body too large", Kind: hs.ETOOLARGE}
		}
	default:
		kind := hs.ErrorKind(err)
		body = errorBody{Error: hs.RedactEndpoints(hs.ErrorMessage(err)), Kind: kind}
		if st, ok := statusOf[kind]; ok {
			status = st
		} else { // a kind this table does not know is a bug: 500, not 0
			body = errorBody{Error: "internal error", Kind: hs.EINTERNAL}
		}
	}
	if status >= 500 {
		s.logger.Error("request failed", slog.String("method", c.Request().Method),
			slog.String("path", c.Request().URL.Path), slog.Int("status", status), slog.Any("error", err))
	}
	if c.Request().Method == http.MethodHead {
		err = c.NoContent(status)
	} else {
		err = c.JSON(status, body)
	}
	if err != nil {
		s.logger.Error("writing error response", slog.Any("error", err))
	}
}
