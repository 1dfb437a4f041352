package ncsim

import (
	"net/http"
	"strings"
	"testing"
)

func TestAppAPIAuthFailures(t *testing.T) {
	s, ts := aaServer(t)
	f := aaNewFakeApp(t, nil)
	env := aaRegister(t, s, f)
	aaEnable(t, s, "hybrid_search")
	if _, err := s.RegisterExApp(ExAppRegistration{ID: "other_app", Name: "Other", Version: "1", URL: f.srv.URL}); err != nil {
		t.Fatal(err)
	}
	otherEnv := s.ExAppEnv("other_app") // registered, never enabled
	users := ts.URL + "/ocs/v2.php/apps/app_api/api/v1/users"
	valid := func() http.Header { return aaAppHeader(env, "") }
	tests := []struct {
		name   string
		header http.Header
		url    string
	}{
		{"no headers", http.Header{}, users},
		{"missing EX-APP-ID", func() http.Header { h := valid(); h.Del("EX-APP-ID"); return h }(), users},
		{"unknown app", func() http.Header { h := valid(); h.Set("EX-APP-ID", "nope"); return h }(), users},
		{"wrong secret", func() http.Header { h := valid(); h.Set("AUTHORIZATION-APP-API", b64(":wrong")); return h }(), users},
		{"not base64", func() http.Header { h := valid(); h.Set("AUTHORIZATION-APP-API", "%%%"); return h }(), users},
		{"empty EX-APP-VERSION", func() http.Header { h := valid(); h.Set("EX-APP-VERSION", ""); return h }(), users},
		{"unknown user", aaAppHeader(env, "mallory"), users},
		{"disabled app", aaAppHeader(otherEnv, ""), users},
		{"basic auth on an AppAPI endpoint", aaBasic("alice", "alice"), users},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := aaDo(t, http.MethodGet, tt.url, tt.header, nil)
			if got.HTTPStatus != 401 || got.StatusCode != 997 || got.Message != "AppAPI authentication failed" {
				t.Errorf("got %d/%d %q, want 401/997 AppAPI authentication failed", got.HTTPStatus, got.StatusCode, got.Message)
			}
		})
	}

	// The disabled app may still read its state.
	state := aaDo(t, http.MethodGet, ts.URL+"/ocs/v1.php/apps/app_api/ex-app/state", aaAppHeader(otherEnv, ""), nil)
	if state.HTTPStatus != 200 || string(state.Data) != "0" {
		t.Errorf("state of a disabled app = %d %s", state.HTTPStatus, state.Data)
	}
	// Valid signatures, with and without a user.
	for _, uid := range []string{"", "bob"} {
		got := aaDo(t, http.MethodGet, users, aaAppHeader(env, uid), nil)
		if got.HTTPStatus != 200 || string(got.Data) != `["alice","bob"]` {
			t.Errorf("users as %q = %d %s", uid, got.HTTPStatus, got.Data)
		}
	}
	// Other OCS endpoints treat a bad signature as "not logged in".
	bad := valid()
	bad.Set("AUTHORIZATION-APP-API", b64(":wrong"))
	got := aaDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/cloud/user", bad, nil)
	if got.HTTPStatus != 401 || got.StatusCode != 997 || got.Message != "Current user is not logged in" {
		t.Errorf("cloud/user with a bad signature = %d/%d %q", got.HTTPStatus, got.StatusCode, got.Message)
	}
	got = aaDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/cloud/user", aaAppHeader(env, "bob"), nil)
	if got.HTTPStatus != 200 || !strings.Contains(string(got.Data), `"id":"bob"`) {
		t.Errorf("cloud/user impersonating bob = %d %s", got.HTTPStatus, got.Data)
	}
	// A newer EX-APP-VERSION updates the stored version.
	h := valid()
	h.Set("EX-APP-VERSION", "1.1.0")
	aaDo(t, http.MethodGet, users, h, nil)
	if v := s.ExAppEnv("hybrid_search"); v.Get("APP_VERSION") != "1.0.0" {
		t.Errorf("env changed: %s", v.Get("APP_VERSION"))
	}
	s.mu.Lock()
	stored := s.apps["hybrid_search"].version
	s.mu.Unlock()
	if stored != "1.1.0" {
		t.Errorf("stored version = %s, want 1.1.0", stored)
	}
}

func TestUserAuthMethods(t *testing.T) {
	s, ts := aaServer(t)
	alice := s.AddUser("carol", "Carol", false)
	me := ts.URL + "/ocs/v1.php/cloud/user"
	bearer := http.Header{"Authorization": {"Bearer " + alice.AppPassword}}
	tests := []struct {
		name   string
		header http.Header
		wantOK bool
	}{
		{"login password", aaBasic("carol", "carol"), true},
		{"app password", aaBasic("carol", alice.AppPassword), true},
		{"bearer app password", bearer, true},
		{"wrong password", aaBasic("carol", "nope"), false},
		{"anonymous", http.Header{}, false},
		{"session cookie", http.Header{"Cookie": {s.NewSession("carol").String()}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := aaDo(t, http.MethodGet, me, tt.header, nil)
			if tt.wantOK != (got.HTTPStatus == 200 && got.StatusCode == 100) {
				t.Errorf("got %d/%d %q", got.HTTPStatus, got.StatusCode, got.Message)
			}
			if !tt.wantOK && (got.HTTPStatus != 401 || got.StatusCode != 997) {
				t.Errorf("v1 failure = %d/%d, want 401/997", got.HTTPStatus, got.StatusCode)
			}
		})
	}
}

func TestBruteForceThrottle(t *testing.T) {
	s, ts := aaServer(t, func(s *Server) { s.ThrottleMaxAttempts = 3 })
	f := aaNewFakeApp(t, nil)
	env := aaRegister(t, s, f)
	aaEnable(t, s, "hybrid_search")
	users := ts.URL + "/ocs/v2.php/apps/app_api/api/v1/users"
	bad := aaAppHeader(env, "")
	bad.Set("AUTHORIZATION-APP-API", b64(":wrong"))

	// Failures count; a success resets the counter.
	for i := 0; i < 2; i++ {
		aaDo(t, http.MethodGet, users, bad, nil)
	}
	if n := s.attempts("127.0.0.1", throttleAppAPI); n != 2 {
		t.Fatalf("attempts = %d, want 2", n)
	}
	aaDo(t, http.MethodGet, users, aaAppHeader(env, ""), nil)
	if n := s.attempts("127.0.0.1", throttleAppAPI); n != 0 {
		t.Fatalf("attempts after success = %d, want 0", n)
	}
	// More than ThrottleMaxAttempts failures: 429, even with a good signature.
	for i := 0; i < 4; i++ {
		if got := aaDo(t, http.MethodGet, users, bad, nil); got.HTTPStatus != 401 {
			t.Fatalf("failure %d = %d, want 401", i, got.HTTPStatus)
		}
	}
	got := aaDo(t, http.MethodGet, users, aaAppHeader(env, ""), nil)
	if got.HTTPStatus != http.StatusTooManyRequests || got.StatusCode != 429 {
		t.Errorf("after 4 failures = %d/%d, want 429", got.HTTPStatus, got.StatusCode)
	}
	// Login failures are counted apart.
	if got := aaDo(t, http.MethodGet, ts.URL+"/ocs/v2.php/cloud/user", aaBasic("alice", "alice"), nil); got.HTTPStatus != 200 {
		t.Errorf("basic login = %d, want 200 (separate bucket)", got.HTTPStatus)
	}
	if d := s.throttleDelay(2); d != 4*s.throttleBaseDelay() {
		t.Errorf("throttleDelay(2) = %v", d)
	}
	if d := s.throttleDelay(40); d != s.throttleMaxDelay() {
		t.Errorf("throttleDelay(40) = %v, want the cap", d)
	}
}
