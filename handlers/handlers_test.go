package handlers_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
)

const (
	testAppID  = "hybrid_search"
	testSecret = "s3cr3t+/AbC"
)

// fakeLifecycle records lifecycle calls.
type fakeLifecycle struct {
	mu        sync.Mutex
	inits     int
	enabled   []bool
	enableErr error
}

func (f *fakeLifecycle) StartInit() { f.mu.Lock(); f.inits++; f.mu.Unlock() }

func (f *fakeLifecycle) SetEnabled(ctx context.Context, enabled bool) error {
	f.mu.Lock()
	f.enabled = append(f.enabled, enabled)
	err := f.enableErr
	f.mu.Unlock()
	return err
}

// fakeStatus reports the acting user back.
type fakeStatus struct{ err error }

func (f fakeStatus) Status(ctx context.Context, user hs.UserID, all bool) (hs.IndexStatus, error) {
	if f.err != nil {
		return hs.IndexStatus{}, f.err
	}
	return hs.IndexStatus{User: user}, nil
}

// fakeQueue records enqueued jobs.
type fakeQueue struct {
	mu   sync.Mutex
	jobs []hs.IndexJob
	err  error
}

func (f *fakeQueue) Publish(ctx context.Context, jobs ...hs.IndexJob) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.jobs = append(f.jobs, jobs...)
	return nil
}

// fakeOperator records scan and retry requests.
type fakeOperator struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeOperator) Scan(ctx context.Context, user hs.UserID, all bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if all && user != "admin" {
		return hs.Errorf(hs.EFORBIDDEN, "only admins may act on every user's files")
	}
	f.calls = append(f.calls, "scan:"+string(user))
	return nil
}

func (f *fakeOperator) Retry(ctx context.Context, user hs.UserID, all bool) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "retry:"+string(user))
	return 2, nil
}

func newServer(t *testing.T, life *fakeLifecycle, status handlers.StatusSource) http.Handler {
	return newServerQ(t, life, status, &fakeQueue{})
}

func newServerQ(t *testing.T, life *fakeLifecycle, status handlers.StatusSource, q *fakeQueue) http.Handler {
	t.Helper()
	s, err := handlers.New(handlers.Deps{
		AppID: testAppID, AppSecret: testSecret, Lifecycle: life, Status: status, Publish: q, Operator: &fakeOperator{},
		Assets: fstest.MapFS{
			"js/hybrid_search-main.js": {Data: []byte("console.log(1)")},
			"img/app.svg":              {Data: []byte("<svg/>")},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}

// signed adds valid AppAPI headers for user.
func signed(r *http.Request, user string) *http.Request {
	r.Header.Set("EX-APP-ID", testAppID)
	r.Header.Set("EX-APP-VERSION", "0.1.0")
	r.Header.Set("AA-VERSION", "32.0.0")
	r.Header.Set("AUTHORIZATION-APP-API", base64.StdEncoding.EncodeToString([]byte(user+":"+testSecret)))
	return r
}

func do(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

func TestNewRequiresDeps(t *testing.T) {
	if _, err := handlers.New(handlers.Deps{}); err == nil {
		t.Fatal("New(Deps{}) succeeded, want an error naming the missing dependency")
	}
}

func TestHeartbeatNeedsNoAuth(t *testing.T) {
	h := newServer(t, &fakeLifecycle{}, fakeStatus{})
	rec := do(h, httptest.NewRequest(http.MethodGet, "/heartbeat", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /heartbeat = %d, want 200", rec.Code)
	}
	var body map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body["status"] != "ok" {
		t.Fatalf("GET /heartbeat body = %q, want {\"status\":\"ok\"}", rec.Body.String())
	}
}

func TestAuth(t *testing.T) {
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name     string
		headers  map[string]string
		wantCode int
		wantUser string
	}{
		{"valid user", map[string]string{"AUTHORIZATION-APP-API": enc("alice:" + testSecret)}, 200, "alice"},
		{"valid empty user", map[string]string{"AUTHORIZATION-APP-API": enc(":" + testSecret)}, 200, ""},
		{"missing auth header", map[string]string{"AUTHORIZATION-APP-API": ""}, 401, ""},
		{"missing app id", map[string]string{"EX-APP-ID": ""}, 401, ""},
		{"wrong app id", map[string]string{"EX-APP-ID": "other_app"}, 401, ""},
		{"empty app version", map[string]string{"EX-APP-VERSION": ""}, 401, ""},
		{"wrong secret", map[string]string{"AUTHORIZATION-APP-API": enc("alice:wrong")}, 401, ""},
		{"no colon", map[string]string{"AUTHORIZATION-APP-API": enc("alice" + testSecret)}, 401, ""},
		{"colon in secret part", map[string]string{"AUTHORIZATION-APP-API": enc("alice:x:" + testSecret)}, 401, ""},
		{"secret with suffix", map[string]string{"AUTHORIZATION-APP-API": enc("alice:" + testSecret + "x")}, 401, ""},
		{"malformed base64", map[string]string{"AUTHORIZATION-APP-API": "%%%not-base64"}, 401, ""},
	}
	h := newServer(t, &fakeLifecycle{}, fakeStatus{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := signed(httptest.NewRequest(http.MethodGet, "/api/status", nil), "alice")
			for k, v := range tt.headers {
				if v == "" {
					r.Header.Del(k)
				} else {
					r.Header.Set(k, v)
				}
			}
			rec := do(h, r)
			if rec.Code != tt.wantCode {
				t.Fatalf("GET /api/status = %d %s, want %d", rec.Code, rec.Body.String(), tt.wantCode)
			}
			var body struct{ User, Error string }
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q is not JSON: %v", rec.Body.String(), err)
			}
			if tt.wantCode == 200 && body.User != tt.wantUser {
				t.Errorf("acting user = %q, want %q", body.User, tt.wantUser)
			}
			if tt.wantCode == 401 {
				if !strings.Contains(body.Error, "AppAPI authentication failed") {
					t.Errorf("401 body = %q, want a clear AppAPI message", rec.Body.String())
				}
				if strings.Contains(rec.Body.String(), testSecret) {
					t.Errorf("401 body leaks the secret")
				}
			}
		})
	}
}

func TestInitAnswersAtOnce(t *testing.T) {
	life := &fakeLifecycle{}
	h := newServer(t, life, fakeStatus{})
	rec := do(h, signed(httptest.NewRequest(http.MethodPost, "/init", nil), ""))
	if rec.Code != http.StatusOK {
		t.Fatalf("POST /init = %d %s, want 200", rec.Code, rec.Body.String())
	}
	if life.inits != 1 {
		t.Errorf("StartInit called %d times, want 1", life.inits)
	}
	// A user reaching /init (e.g. through the proxy) is refused.
	rec = do(h, signed(httptest.NewRequest(http.MethodPost, "/init", nil), "alice"))
	if rec.Code != http.StatusForbidden {
		t.Errorf("POST /init as alice = %d, want 403", rec.Code)
	}
	rec = do(h, httptest.NewRequest(http.MethodPost, "/init", nil))
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("unsigned POST /init = %d, want 401", rec.Code)
	}
}

func TestEnabled(t *testing.T) {
	tests := []struct {
		name      string
		query     string
		enableErr error
		wantCode  int
		wantError string
		wantCalls []bool
	}{
		{"enable", "enabled=1", nil, 200, "", []bool{true}},
		{"disable", "enabled=0", nil, 200, "", []bool{false}},
		{"failure reported in error field", "enabled=1", hs.Errorf(hs.EUNAVAILABLE, "nextcloud down"), 200, "nextcloud down", []bool{true}},
		{"bad value", "enabled=yes", nil, 400, "query parameter enabled must be 1 or 0", nil},
		{"missing value", "", nil, 400, "query parameter enabled must be 1 or 0", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			life := &fakeLifecycle{enableErr: tt.enableErr}
			h := newServer(t, life, fakeStatus{})
			rec := do(h, signed(httptest.NewRequest(http.MethodPut, "/enabled?"+tt.query, nil), ""))
			if rec.Code != tt.wantCode {
				t.Fatalf("PUT /enabled?%s = %d, want %d", tt.query, rec.Code, tt.wantCode)
			}
			var body struct {
				Error *string `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error == nil {
				t.Fatalf("body %q has no error field", rec.Body.String())
			}
			if !strings.Contains(*body.Error, tt.wantError) || (tt.wantError == "" && *body.Error != "") {
				t.Errorf("error field = %q, want %q", *body.Error, tt.wantError)
			}
			if len(life.enabled) != len(tt.wantCalls) {
				t.Fatalf("SetEnabled calls = %v, want %v", life.enabled, tt.wantCalls)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	h := newServer(t, &fakeLifecycle{}, fakeStatus{})
	big := strings.NewReader(strings.Repeat("x", handlers.MaxBodyBytes+1))
	rec := do(h, signed(httptest.NewRequest(http.MethodPut, "/enabled?enabled=1", big), ""))
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body = %d, want 413", rec.Code)
	}
	if !strings.Contains(rec.Body.String(), "too large") {
		t.Errorf("oversized body message = %q", rec.Body.String())
	}
	rec = do(h, signed(httptest.NewRequest(http.MethodGet, "/api/nope", nil), "alice"))
	if rec.Code != http.StatusNotFound {
		t.Errorf("unknown route = %d, want 404", rec.Code)
	}
	rec = do(h, httptest.NewRequest(http.MethodDelete, "/heartbeat", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("DELETE /heartbeat = %d, want 405", rec.Code)
	}
}

func TestStatusErrorsMapToKinds(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{hs.Errorf(hs.EUNAVAILABLE, "store down"), 503},
		{hs.Errorf(hs.EINVALID, "bad"), 400},
		{io.ErrUnexpectedEOF, 500},
	}
	for _, tt := range tests {
		h := newServer(t, &fakeLifecycle{}, fakeStatus{err: tt.err})
		rec := do(h, signed(httptest.NewRequest(http.MethodGet, "/api/status", nil), "alice"))
		if rec.Code != tt.want {
			t.Errorf("status error %v = %d, want %d", tt.err, rec.Code, tt.want)
		}
		if tt.want == 500 && strings.Contains(rec.Body.String(), "unexpected EOF") {
			t.Errorf("internal error detail leaked: %s", rec.Body.String())
		}
	}
}

func TestAssets(t *testing.T) {
	h := newServer(t, &fakeLifecycle{}, fakeStatus{})
	rec := do(h, signed(httptest.NewRequest(http.MethodGet, "/js/hybrid_search-main.js", nil), "alice"))
	if rec.Code != 200 || rec.Body.String() != "console.log(1)" {
		t.Fatalf("GET js = %d %q", rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.Contains(ct, "javascript") {
		t.Errorf("Content-Type = %q, want javascript", ct)
	}
	for _, p := range []string{"/js/missing.js", "/js/../img/app.svg", "/js/"} {
		rec = do(h, signed(httptest.NewRequest(http.MethodGet, p, nil), "alice"))
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, rec.Code)
		}
	}
}

func TestScanAndRetry(t *testing.T) {
	h := newServer(t, &fakeLifecycle{}, fakeStatus{})
	tests := []struct {
		path, user string
		want       int
		body       string
	}{
		{"/api/scan", "alice", 202, `"scan":"requested"`},
		{"/api/scan?all=1", "alice", 403, "only admins"},
		{"/api/scan?all=1", "admin", 202, `"all":true`},
		{"/api/retry", "bob", 202, `"queued":2`},
	}
	for _, tt := range tests {
		rec := do(h, signed(httptest.NewRequest(http.MethodPost, tt.path, nil), tt.user))
		if rec.Code != tt.want || !strings.Contains(rec.Body.String(), tt.body) {
			t.Errorf("POST %s as %s = %d %s, want %d with %s", tt.path, tt.user, rec.Code, rec.Body.String(), tt.want, tt.body)
		}
	}
}
