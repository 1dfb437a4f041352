package ncsim

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// aaServer starts a simulator with fast timings, users alice (admin) and
// bob, and registers its shutdown. Unknown routes fail the test unless
// allowUnhandled is set.
func aaServer(t *testing.T, configure ...func(*Server)) (*Server, *httptest.Server) {
	t.Helper()
	var done atomic.Bool
	s := &Server{
		HeartbeatInterval: 5 * time.Millisecond,
		HeartbeatAttempts: 200,
		WebhookInterval:   10 * time.Millisecond,
		Logf: func(format string, args ...any) {
			if !done.Load() {
				t.Logf(format, args...)
			}
		},
	}
	for _, c := range configure {
		c(s)
	}
	ts := httptest.NewServer(s)
	s.BaseURL = ts.URL
	s.AddUser("alice", "Alice A.", true)
	s.AddUser("bob", "Bob B.", false)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
		done.Store(true)
	})
	return s, ts
}

// aaCall is one request a fake ExApp received.
type aaCall struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

// aaFakeApp is a fake ExApp: it records every request and delegates to
// handle (a 200 "{}" when handle is nil or returns false).
type aaFakeApp struct {
	srv    *httptest.Server
	mu     sync.Mutex
	calls  []aaCall
	handle func(w http.ResponseWriter, r *http.Request, body []byte) bool
}

func aaNewFakeApp(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, body []byte) bool) *aaFakeApp {
	t.Helper()
	f := &aaFakeApp{handle: handle}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.calls = append(f.calls, aaCall{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		f.mu.Unlock()
		if f.handle != nil && f.handle(w, r, body) {
			return
		}
		if r.URL.Path == "/heartbeat" {
			_, _ = io.WriteString(w, `{"status":"ok"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "{}")
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// Calls returns the requests received on path ("" for all).
func (f *aaFakeApp) Calls(path string) []aaCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []aaCall
	for _, c := range f.calls {
		if path == "" || c.Path == path {
			out = append(out, c)
		}
	}
	return out
}

// aaRegister registers the fake app as "hybrid_search" with routes.
func aaRegister(t *testing.T, s *Server, f *aaFakeApp, routes ...Route) Env {
	t.Helper()
	env, err := s.RegisterExApp(ExAppRegistration{ID: "hybrid_search", Name: "Hybrid Search", Version: "1.0.0",
		URL: f.srv.URL, Routes: routes})
	if err != nil {
		t.Fatalf("RegisterExApp: %v", err)
	}
	return env
}

// aaEnable marks an app enabled without running the install flow.
func aaEnable(t *testing.T, s *Server, appID string) {
	t.Helper()
	if !s.setEnabled(appID, true) {
		t.Fatalf("no app %s", appID)
	}
}

// aaOCS is a decoded OCS JSON answer.
type aaOCS struct {
	HTTPStatus int
	Status     string
	StatusCode int
	Message    string
	Data       json.RawMessage
	Raw        []byte
	Header     http.Header
}

// aaDo sends a request and decodes an OCS JSON answer if there is one.
func aaDo(t *testing.T, method, url string, header http.Header, body any) aaOCS {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := aaOCS{HTTPStatus: resp.StatusCode, Raw: raw, Header: resp.Header}
	var env struct {
		OCS struct {
			Meta struct {
				Status     string `json:"status"`
				StatusCode int    `json:"statuscode"`
				Message    string `json:"message"`
			} `json:"meta"`
			Data json.RawMessage `json:"data"`
		} `json:"ocs"`
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && json.Unmarshal(raw, &env) == nil {
		out.Status, out.StatusCode, out.Message, out.Data = env.OCS.Meta.Status, env.OCS.Meta.StatusCode, env.OCS.Meta.Message, env.OCS.Data
	}
	return out
}

// aaAppHeader returns the headers an ExApp sends to act as uid.
func aaAppHeader(env Env, uid string) http.Header {
	h := http.Header{}
	h.Set("EX-APP-ID", env.Get("APP_ID"))
	h.Set("EX-APP-VERSION", env.Get("APP_VERSION"))
	h.Set("AA-VERSION", env.Get("AA_VERSION"))
	h.Set("AUTHORIZATION-APP-API", b64(uid+":"+env.Get("APP_SECRET")))
	h.Set("OCS-APIRequest", "true")
	return h
}

// aaBasic returns a Basic authorization header.
func aaBasic(uid, password string) http.Header {
	h := http.Header{}
	h.Set("Authorization", "Basic "+b64(uid+":"+password))
	h.Set("OCS-APIRequest", "true")
	return h
}

// aaAwait polls cond until it holds or the deadline passes.
func aaAwait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// aaNoRedirect is a client that does not follow redirects.
var aaNoRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
