package handlers

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	hs "github.com/hybrid-search/hybridsearch"
)

// TestErrorHandlerStatuses: every kind has its status, and a kind the
// table does not know is a 500 with the generic message (it was 0, which
// net/http refuses).
func TestErrorHandlerStatuses(t *testing.T) {
	s := &Server{logger: slog.New(slog.DiscardHandler)}
	tests := []struct {
		err      error
		want     int
		wantBody string
	}{
		{hs.Errorf(hs.EINVALID, "bad query"), http.StatusBadRequest, `"bad query"`},
		{hs.Errorf(hs.EUNAVAILABLE, "store down"), http.StatusServiceUnavailable, `"store down"`},
		{hs.Errorf("unheard_of", "secret detail"), http.StatusInternalServerError, `{"error":"internal error","kind":"internal"}`},
		{echo.ErrNotFound, http.StatusNotFound, `"Not Found"`},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/api/search", nil), rec)
		s.errorHandler(tt.err, c)
		if rec.Code != tt.want || !strings.Contains(rec.Body.String(), tt.wantBody) {
			t.Errorf("%v: %d %s, want %d with %s", tt.err, rec.Code, rec.Body.String(), tt.want, tt.wantBody)
		}
	}
}

// recordLevels is a slog handler that keeps each record's level and message.
type recordLevels struct{ got *[]string }

func (h recordLevels) Enabled(context.Context, slog.Level) bool { return true }
func (h recordLevels) Handle(_ context.Context, r slog.Record) error {
	*h.got = append(*h.got, r.Level.String()+" "+r.Message)
	return nil
}
func (h recordLevels) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordLevels) WithGroup(string) slog.Handler      { return h }

// TestErrorHandlerClientGone: a search whose client went away is logged at
// INFO as cancelled with status 499, not as an ERROR with 500 (it was);
// a cancellation that is not the client's stays a 500.
func TestErrorHandlerClientGone(t *testing.T) {
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name      string
		ctx       context.Context
		err       error
		want      int
		wantLevel string
	}{
		{"client gone", gone, fmt.Errorf("search: %w", context.Canceled), StatusClientClosedRequest, "INFO request cancelled by the client"},
		{"client gone, wrapped", gone, hs.WrapError(hs.EINTERNAL, fmt.Errorf("verify access: %w", context.Canceled), "search"), StatusClientClosedRequest, "INFO request cancelled by the client"},
		{"cancelled, client still there", context.Background(), fmt.Errorf("search: %w", context.Canceled), http.StatusInternalServerError, "ERROR request failed"},
		{"client gone, other error", gone, hs.Errorf(hs.EUNAVAILABLE, "store down"), http.StatusServiceUnavailable, "ERROR request failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logged []string
			s := &Server{logger: slog.New(recordLevels{&logged})}
			rec := httptest.NewRecorder()
			c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/api/search", nil).WithContext(tt.ctx), rec)
			s.errorHandler(tt.err, c)
			if rec.Code != tt.want || c.Response().Status != tt.want {
				t.Errorf("status %d (response %d), want %d", rec.Code, c.Response().Status, tt.want)
			}
			if len(logged) != 1 || logged[0] != tt.wantLevel {
				t.Errorf("logged %q, want [%q]", logged, tt.wantLevel)
			}
		})
	}
}
