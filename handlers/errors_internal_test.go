package handlers

import (
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
