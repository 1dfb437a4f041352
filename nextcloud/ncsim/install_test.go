package ncsim

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// aaReportProgress reports init progress the way an ExApp does, with no user.
func aaReportProgress(t *testing.T, baseURL string, env Env, body map[string]any) aaOCS {
	return aaDo(t, http.MethodPut, baseURL+"/ocs/v1.php/apps/app_api/ex-app/status", aaAppHeader(env, ""), body)
}

func TestInstallFullFlow(t *testing.T) {
	s, ts := aaServer(t)
	var env atomic.Value // Env, set once registered
	var heartbeats atomic.Int32
	var seen50 atomic.Bool
	var wg sync.WaitGroup
	f := aaNewFakeApp(t, func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		switch r.URL.Path {
		case "/heartbeat":
			if heartbeats.Add(1) <= 3 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return true
			}
		case "/init":
			e := env.Load().(Env)
			wg.Add(1)
			go func() { // report from the background, as nc_py_api does
				defer wg.Done()
				if got := aaReportProgress(t, ts.URL, e, map[string]any{"progress": 50}); got.StatusCode != 100 {
					t.Errorf("progress 50: %+v", got)
				}
				seen50.Store(s.AppStatus("hybrid_search").Progress == 50)
				if got := aaReportProgress(t, ts.URL, e, map[string]any{"progress": 100}); got.StatusCode != 100 {
					t.Errorf("progress 100: %+v", got)
				}
			}()
		case "/enabled":
			_, _ = io.WriteString(w, `{"error":""}`)
			return true
		}
		return false
	})
	env.Store(aaRegister(t, s, f))
	if st := s.AppStatus("hybrid_search"); st.Enabled || st.Type != "install" {
		t.Fatalf("after register: %+v, want disabled, type install", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Install(ctx, "hybrid_search"); err != nil {
		t.Fatalf("Install: %v", err)
	}
	wg.Wait()
	st := s.AppStatus("hybrid_search")
	if !st.Enabled || st.Progress != 100 || st.Error != "" || st.Type != "" || st.Action != "" {
		t.Errorf("AppStatus = %+v, want enabled at 100", st)
	}
	if !seen50.Load() {
		t.Error("progress 50 was not recorded")
	}
	secret := env.Load().(Env).Get("APP_SECRET")
	for _, c := range f.Calls("/heartbeat") {
		if c.Header.Get("AUTHORIZATION-APP-API") != "" || c.Header.Get("EX-APP-ID") != "" {
			t.Errorf("heartbeat carried AppAPI headers: %v", c.Header)
		}
		if c.Header.Get("Accept") != "application/json" || c.Header.Get("Content-Type") != "application/json" {
			t.Errorf("heartbeat headers = %v", c.Header)
		}
	}
	if n := len(f.Calls("/heartbeat")); n < 5 {
		t.Errorf("heartbeats = %d, want 3 failures, 1 success, then 1 in the enable step", n)
	}
	inits := f.Calls("/init")
	if len(inits) != 1 || inits[0].Method != http.MethodPost {
		t.Fatalf("/init calls = %+v", inits)
	}
	wantHeaders := map[string]string{
		"Aa-Version": "34.0.0", "Ex-App-Id": "hybrid_search", "Ex-App-Version": "1.0.0",
		"Authorization-App-Api": b64(":" + secret), "Aa-Request-Id": "CLI", "Accept-Language": "en",
		"User-Agent": "Nextcloud-Server-Crawler/34.0.0",
	}
	for k, want := range wantHeaders {
		if got := inits[0].Header.Get(k); got != want {
			t.Errorf("/init header %s = %q, want %q", k, got, want)
		}
	}
	enabled := f.Calls("/enabled")
	if len(enabled) != 1 || enabled[0].Method != http.MethodPut || enabled[0].Query != "enabled=1" {
		t.Errorf("/enabled calls = %+v, want one PUT enabled=1", enabled)
	}
	if enabled[0].Header.Get("Authorization-App-Api") != b64(":"+secret) {
		t.Errorf("/enabled auth = %q", enabled[0].Header.Get("Authorization-App-Api"))
	}
}

func TestInstallInitNotFoundEnablesAtOnce(t *testing.T) {
	for _, status := range []int{http.StatusNotFound, http.StatusNotImplemented} {
		s, _ := aaServer(t)
		f := aaNewFakeApp(t, func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
			if r.URL.Path == "/init" {
				w.WriteHeader(status)
				return true
			}
			return false
		})
		aaRegister(t, s, f)
		if err := s.Install(context.Background(), "hybrid_search"); err != nil {
			t.Fatalf("init %d: Install: %v", status, err)
		}
		if st := s.AppStatus("hybrid_search"); !st.Enabled || st.Progress != 100 {
			t.Errorf("init %d: AppStatus = %+v", status, st)
		}
		if n := len(f.Calls("/enabled")); n != 1 {
			t.Errorf("init %d: /enabled calls = %d", status, n)
		}
	}
}

func TestInstallFailures(t *testing.T) {
	tests := []struct {
		name    string
		handle  func(w http.ResponseWriter, r *http.Request, env Env, baseURL string) bool
		config  func(*Server)
		wantErr string
		enabled bool
	}{
		{
			name: "enabled answers an error",
			handle: func(w http.ResponseWriter, r *http.Request, _ Env, _ string) bool {
				switch r.URL.Path {
				case "/init":
					w.WriteHeader(http.StatusNotFound)
					return true
				case "/enabled":
					_, _ = io.WriteString(w, `{"error":"boom"}`)
					return true
				}
				return false
			},
			wantErr: "boom",
		},
		{
			name: "init answers 500",
			handle: func(w http.ResponseWriter, r *http.Request, _ Env, _ string) bool {
				if r.URL.Path == "/init" {
					w.WriteHeader(http.StatusInternalServerError)
					return true
				}
				return false
			},
			wantErr: "Server error",
			enabled: true, // marked enabled before /init, as AppAPI does
		},
		{
			name: "app reports an init error",
			handle: func(w http.ResponseWriter, r *http.Request, env Env, baseURL string) bool {
				if r.URL.Path == "/init" {
					go func() {
						req, _ := http.NewRequest(http.MethodPut, baseURL+"/ocs/v1.php/apps/app_api/ex-app/status",
							strings.NewReader(`{"progress":0,"error":"no model"}`))
						req.Header = aaAppHeader(env, "")
						req.Header.Set("Content-Type", "application/json")
						if resp, err := http.DefaultClient.Do(req); err == nil {
							resp.Body.Close()
						}
					}()
				}
				return false
			},
			wantErr: "no model",
			enabled: true,
		},
		{
			name: "heartbeat never ok",
			handle: func(w http.ResponseWriter, r *http.Request, _ Env, _ string) bool {
				if r.URL.Path == "/heartbeat" {
					_, _ = io.WriteString(w, `{"status":"starting"}`)
					return true
				}
				return false
			},
			config:  func(s *Server) { s.HeartbeatAttempts = 3 },
			wantErr: "heartbeat",
		},
		{
			name:    "init never reaches 100",
			config:  func(s *Server) { s.InitTimeout = 50 * time.Millisecond },
			wantErr: "initialization timed out",
			enabled: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg []func(*Server)
			if tt.config != nil {
				cfg = append(cfg, tt.config)
			}
			s, ts := aaServer(t, cfg...)
			var env atomic.Value
			f := aaNewFakeApp(t, func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
				e, _ := env.Load().(Env)
				return tt.handle != nil && tt.handle(w, r, e, ts.URL)
			})
			env.Store(aaRegister(t, s, f))
			err := s.Install(context.Background(), "hybrid_search")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Install error = %v, want it to contain %q", err, tt.wantErr)
			}
			if st := s.AppStatus("hybrid_search"); st.Enabled != tt.enabled {
				t.Errorf("AppStatus = %+v, want enabled %v", st, tt.enabled)
			}
		})
	}
}

// TestInitTimeoutThenLateProgress follows AppAPI v32.0.0–v35.0.0beta4:
// ExAppInitStatusCheckJob (every minute) sets status.error "ExApp <id>
// initialization timed out (<n>m)" once init_start_time + init_timeout
// has passed, with n the timeout in seconds (the message's unit is
// wrong in AppAPI itself), and only while no error is set. `occ
// app_api:app:register --wait-finish` (ExAppService::waitInitStepFinish)
// fails on that error at once. The app stays enabled in the database, and
// a progress of 100 that arrives later is still taken
// (AppAPIService::setAppInitProgress does not look at the error): it runs
// enableExApp, whose enableExAppInternal clears the error.
func TestInitTimeoutThenLateProgress(t *testing.T) {
	s, ts := aaServer(t, func(s *Server) { s.InitTimeout = time.Second })
	var env atomic.Value
	f := aaNewFakeApp(t, func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		if r.URL.Path != "/init" {
			return false
		}
		e := env.Load().(Env)
		go func() {
			time.Sleep(1500 * time.Millisecond)
			req, _ := http.NewRequest(http.MethodPut, ts.URL+"/ocs/v1.php/apps/app_api/ex-app/status", strings.NewReader(`{"progress":100}`))
			req.Header = aaAppHeader(e, "")
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		_, _ = io.WriteString(w, "{}")
		return true
	})
	env.Store(aaRegister(t, s, f))
	start := time.Now()
	err := s.Install(context.Background(), "hybrid_search")
	if err == nil || !strings.Contains(err.Error(), "ExApp hybrid_search initialization timed out (1m)") {
		t.Fatalf("Install error = %v, want the timeout", err)
	}
	if d := time.Since(start); d > 1400*time.Millisecond {
		t.Errorf("Install returned after %s; it must fail when the timeout error is set, not wait for init", d)
	}
	if st := s.AppStatus("hybrid_search"); !st.Enabled || st.Progress == 100 || !strings.Contains(st.Error, "timed out") {
		t.Errorf("after the timeout: %+v, want enabled with the error", st)
	}
	aaAwait(t, "the late 100 to enable the app", func() bool {
		st := s.AppStatus("hybrid_search")
		return st.Progress == 100 && st.Enabled && st.Error == "" && len(f.Calls("/enabled")) == 1
	})
}

func TestInstallHonoursContext(t *testing.T) {
	s, _ := aaServer(t, func(s *Server) { s.HeartbeatInterval = time.Hour })
	f := aaNewFakeApp(t, func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	})
	aaRegister(t, s, f)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Install(ctx, "hybrid_search"); err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("Install error = %v, want the context deadline", err)
	}
	if err := s.Install(context.Background(), "nope"); err == nil {
		t.Error("Install of an unknown app succeeded")
	}
}

func TestEnabledJudgedOnlyByErrorField(t *testing.T) {
	tests := []struct {
		name, answer string
		status       int
		wantErr      bool
	}{
		{"500 without error", `{"error":""}`, http.StatusInternalServerError, false},
		{"not json", `oops`, http.StatusOK, false},
		{"error field", `{"error":"nope"}`, http.StatusOK, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := aaServer(t)
			f := aaNewFakeApp(t, func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
				if r.URL.Path == "/enabled" {
					w.WriteHeader(tt.status)
					_, _ = io.WriteString(w, tt.answer)
					return true
				}
				return false
			})
			aaRegister(t, s, f)
			err := s.Enable(context.Background(), "hybrid_search")
			if (err != nil) != tt.wantErr {
				t.Fatalf("Enable error = %v, want error %v", err, tt.wantErr)
			}
			if got := s.AppStatus("hybrid_search").Enabled; got == tt.wantErr {
				t.Errorf("enabled = %v after Enable error %v", got, err)
			}
		})
	}
}

func TestDisable(t *testing.T) {
	s, _ := aaServer(t)
	var answer atomic.Value
	answer.Store(`{"error":""}`)
	f := aaNewFakeApp(t, func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		if r.URL.Path == "/enabled" {
			_, _ = io.WriteString(w, answer.Load().(string))
			return true
		}
		return false
	})
	aaRegister(t, s, f)
	aaEnable(t, s, "hybrid_search")
	if err := s.Disable(context.Background(), "hybrid_search"); err != nil {
		t.Fatalf("Disable: %v", err)
	}
	calls := f.Calls("/enabled")
	if len(calls) != 1 || calls[0].Method != http.MethodPut || calls[0].Query != "enabled=0" {
		t.Errorf("/enabled calls = %+v, want PUT enabled=0", calls)
	}
	if s.AppStatus("hybrid_search").Enabled {
		t.Error("app still enabled")
	}
	aaEnable(t, s, "hybrid_search")
	answer.Store(`{"error":"busy"}`)
	if err := s.Disable(context.Background(), "hybrid_search"); err == nil || !strings.Contains(err.Error(), "busy") {
		t.Errorf("Disable error = %v, want busy", err)
	}
	if s.AppStatus("hybrid_search").Enabled {
		t.Error("app still enabled after a failed disable")
	}
}

func TestStatusEndpoints(t *testing.T) {
	s, ts := aaServer(t)
	f := aaNewFakeApp(t, nil)
	env := aaRegister(t, s, f)
	h := aaAppHeader(env, "")
	state := func(v string) aaOCS {
		return aaDo(t, http.MethodGet, ts.URL+"/ocs/"+v+".php/apps/app_api/ex-app/state", h, nil)
	}
	// The state works while the app is disabled; other endpoints do not.
	if got := state("v1"); got.HTTPStatus != 200 || string(got.Data) != "0" {
		t.Errorf("state while disabled = %d %s, want data 0", got.HTTPStatus, got.Data)
	}
	if got := aaDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/apps/app_api/api/v1/users", h, nil); got.HTTPStatus != 401 || got.StatusCode != 997 {
		t.Errorf("users while disabled = %d/%d, want 401/997", got.HTTPStatus, got.StatusCode)
	}
	// Status reports are accepted while installing.
	if got := aaReportProgress(t, ts.URL, env, map[string]any{"progress": 20}); got.StatusCode != 100 {
		t.Errorf("progress while installing = %+v", got)
	}
	if got := aaDo(t, http.MethodPut, ts.URL+"/ocs/v2.php/apps/app_api/ex-app/status", h, map[string]any{"progress": 150}); got.HTTPStatus != 500 || got.StatusCode != 996 {
		t.Errorf("progress 150 = %d/%d, want 500/996 (AppAPI throws)", got.HTTPStatus, got.StatusCode)
	}
	// The deprecated form is not exempt from the enabled check; AppAPI marks
	// the app enabled before /init anyway.
	deprecated := ts.URL + "/ocs/v1.php/apps/app_api/apps/status/hybrid_search"
	if got := aaDo(t, http.MethodPut, deprecated, h, map[string]any{"progress": 30}); got.HTTPStatus != 401 {
		t.Errorf("deprecated status while disabled = %+v, want 401", got)
	}
	aaEnable(t, s, "hybrid_search")
	if got := aaDo(t, http.MethodPut, deprecated, h, map[string]any{"progress": 100}); got.StatusCode != 100 {
		t.Errorf("deprecated status = %+v", got)
	}
	if st := s.AppStatus("hybrid_search"); !st.Enabled || st.Progress != 100 {
		t.Fatalf("after progress 100: %+v", st)
	}
	if got := state("v2"); string(got.Data) != "1" {
		t.Errorf("state = %s, want 1", got.Data)
	}
	// Once at 100, non-zero progress is ignored.
	aaReportProgress(t, ts.URL, env, map[string]any{"progress": 40})
	if st := s.AppStatus("hybrid_search"); st.Progress != 100 {
		t.Errorf("progress after a late 40 = %d, want 100", st.Progress)
	}
	if n := len(f.Calls("/enabled")); n != 1 {
		t.Errorf("/enabled calls = %d, want 1", n)
	}
}

func TestRegisterExAppEnv(t *testing.T) {
	s, ts := aaServer(t)
	env, err := s.RegisterExApp(ExAppRegistration{
		ID: "hybrid_search", Name: "Hybrid Search", Version: "1.2.3", URL: "http://127.0.0.1:23456",
		EnvVars: []EnvVarDecl{
			{Name: "OLLAMA_URL", Default: "http://ollama:11434"},
			{Name: "EMPTY"},
			{Name: "MODEL", Default: "a"},
		},
		EnvOverrides: map[string]string{"MODEL": "b", "UNDECLARED": "x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range env {
		names = append(names, v.Name)
	}
	want := "AA_VERSION APP_SECRET APP_ID APP_DISPLAY_NAME APP_VERSION APP_HOST APP_PORT APP_PERSISTENT_STORAGE NEXTCLOUD_URL COMPUTE_DEVICE OLLAMA_URL MODEL"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("env names = %s\nwant %s", got, want)
	}
	checks := map[string]string{
		"AA_VERSION": "34.0.0", "APP_ID": "hybrid_search", "APP_DISPLAY_NAME": "Hybrid Search", "APP_VERSION": "1.2.3",
		"APP_HOST": "127.0.0.1", "APP_PORT": "23456", "APP_PERSISTENT_STORAGE": "/nc_app_hybrid_search_data",
		"NEXTCLOUD_URL": ts.URL, "COMPUTE_DEVICE": "CPU", "MODEL": "b",
	}
	for k, want := range checks {
		if got := env.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	secret := env.Get("APP_SECRET")
	if len(secret) != 128 || strings.Trim(secret, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") != "" {
		t.Errorf("APP_SECRET %q is not 128 chars of [A-Za-z0-9+/]", secret)
	}
	if l := env.List(); len(l) != len(env) || l[2] != "APP_ID=hybrid_search" {
		t.Errorf("List() = %v", l)
	}
	if _, ok := env.Lookup("EMPTY"); ok {
		t.Error("an empty declared variable was kept")
	}

	// Without a URL or port, the first free port in 23000-23999 is used.
	for i, want := range []string{"23000", "23001"} {
		e, err := s.RegisterExApp(ExAppRegistration{ID: "app" + string(rune('a'+i)), Name: "A", Version: "1"})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Get("APP_PORT"); got != want {
			t.Errorf("APP_PORT = %s, want %s", got, want)
		}
	}

	bad := []ExAppRegistration{
		{ID: "hybrid_search", Name: "dup", Version: "1"},
		{ID: "", Name: "x", Version: "1"},
		{ID: "Bad Id", Name: "x", Version: "1"},
		{ID: "r1", Name: "x", Version: "1", Routes: []Route{{URL: "", Verb: "GET"}}},
		{ID: "r2", Name: "x", Version: "1", Routes: []Route{{URL: ".*", Verb: "GET", AccessLevel: 3}}},
		{ID: "r3", Name: "x", Version: "1", URL: "ftp://x"},
	}
	for _, reg := range bad {
		if _, err := s.RegisterExApp(reg); err == nil {
			t.Errorf("RegisterExApp(%+v) succeeded", reg)
		}
	}
}
