package handlers

import (
	"context"
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
	hs.EFORBIDDEN:    http.StatusForbidden,
	hs.ECONFLICT:     http.StatusConflict,
	hs.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	hs.EUNAVAILABLE:  http.StatusServiceUnavailable,
	hs.EINTERNAL:     http.StatusInternalServerError,
}

// StatusClientClosedRequest is the status logged for a request whose
// client went away before the answer (nginx's 499; no client sees it).
const StatusClientClosedRequest = 499

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
	if clientGone(c.Request(), err) {
		// Not a failure of ours: no ERROR, no 500. The status is for the
		// access log and the metrics; nobody reads the answer.
		s.logger.Info("request cancelled by the client", slog.String("method", c.Request().Method),
			slog.String("path", c.Request().URL.Path), slog.Int("status", StatusClientClosedRequest))
		c.Response().WriteHeader(StatusClientClosedRequest)
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

// clientGone reports whether err only says that the request's context was
// cancelled because its client disconnected (a timeout of ours is not).
func clientGone(r *http.Request, err error) bool {
	return errors.Is(err, context.Canceled) && errors.Is(r.Context().Err(), context.Canceled)
}
