package main

import (
	"os"
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/internal/e2etest"
)

// TestMain lets tests run the real command in a child process: with
// HYBRIDSEARCH_RUN_MAIN=1 the test binary behaves like hybridsearch.
func TestMain(m *testing.M) {
	if os.Getenv(e2etest.RunMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestCommandLine(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      []string
		wantCode int
		wantOut  string
	}{
		{"version", []string{"version"}, nil, 0, "hybridsearch "},
		{"help", []string{"help"}, nil, 0, "hybridsearch-demo"},
		{"no args", nil, nil, 2, "Usage:"},
		{"unknown", []string{"frobnicate"}, nil, 2, `unknown command "frobnicate"`},
		{"serve without config", []string{"serve"}, []string{"APP_ID="}, 1, "APP_ID is not set"},
		{"serve with bad port", []string{"serve"}, []string{"APP_ID=hybrid_search", "APP_SECRET=x", "APP_VERSION=1", "APP_PORT=abc", "NEXTCLOUD_URL=http://nc"}, 1, `APP_PORT="abc"`},
		{"demo moved", []string{"demo", "--addr", "127.0.0.1:0"}, nil, 2, "go run ./cmd/hybridsearch-demo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := e2etest.Command(t, tt.args...)
			cmd.Env = append(cmd.Env, tt.env...)
			code, out := e2etest.ExitCode(t, cmd)
			if code != tt.wantCode || !strings.Contains(out, tt.wantOut) {
				t.Errorf("hybridsearch %v: exit %d, output:\n%s\nwant exit %d containing %q", tt.args, code, out, tt.wantCode, tt.wantOut)
			}
			if n := strings.Count(strings.TrimSpace(out), "\n"); tt.wantCode == 1 && strings.Contains(tt.wantOut, "APP_") && n > 0 {
				t.Errorf("config error should be one line, got %d lines", n+1)
			}
		})
	}
}

// TestUsageErrorsAreOneLine: wrong arguments get one line saying what is
// wrong, not the whole help.
func TestUsageErrorsAreOneLine(t *testing.T) {
	for _, tt := range []struct {
		args     []string
		wantCode int
		want     string
	}{
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"demo"}, 2, "go run ./cmd/hybridsearch-demo"},
		{[]string{"serve", "--bogus"}, 1, "flag provided but not defined: -bogus"},
		{[]string{"worker", "extra"}, 1, `unexpected argument "extra"`},
		{[]string{"search", "kubernetes"}, 1, "--user and a query are required"},
		{[]string{"status"}, 1, "--user is required"},
		{[]string{"retry", "--bogus"}, 1, "flag provided but not defined: -bogus"},
		{[]string{"token", "list"}, 1, "--user is required"},
	} {
		var out, errb strings.Builder
		code := run(tt.args, func(string) string { return "" }, &out, &errb)
		if code != tt.wantCode || !strings.Contains(errb.String(), tt.want) || strings.Count(errb.String(), "\n") != 1 || out.Len() > 0 {
			t.Errorf("hybridsearch %q: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", tt.args, code, out.String(), errb.String(), tt.wantCode, tt.want)
		}
	}
}
