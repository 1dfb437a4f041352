package handlers_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/hybrid-search/hybridsearch/handlers"
)

// TestHeartbeatReflectsHealth: AppAPI counts only 200 with
// {"status":"ok"} as alive, so a starting, stopping or failed app answers
// 503 with its state, and never an error text (no auth on /heartbeat).
func TestHeartbeatReflectsHealth(t *testing.T) {
	tests := []struct {
		health     error
		wantStatus int
		wantBody   string
	}{
		{nil, http.StatusOK, `{"status":"ok"}`},
		{errors.New("starting"), http.StatusServiceUnavailable, `{"status":"starting"}`},
		{errors.New("failed: indexing workers"), http.StatusServiceUnavailable, `{"status":"failed: indexing workers"}`},
	}
	for _, tt := range tests {
		s, err := handlers.New(handlers.Deps{
			AppID: testAppID, AppSecret: testSecret, Lifecycle: &fakeLifecycle{}, Status: fakeStatus{}, Publish: &fakeQueue{},
			Operator: &fakeOperator{}, Assets: fstest.MapFS{}, Health: func() error { return tt.health },
		})
		if err != nil {
			t.Fatal(err)
		}
		rec := do(s.Handler(), httptest.NewRequest(http.MethodGet, "/heartbeat", nil))
		if rec.Code != tt.wantStatus || rec.Body.String() != tt.wantBody+"\n" {
			t.Errorf("health %v: GET /heartbeat = %d %q, want %d %s", tt.health, rec.Code, rec.Body.String(), tt.wantStatus, tt.wantBody)
		}
	}
}
