package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/internal/e2etest"
)

// TestMain lets tests run the real command in a child process: with
// HYBRIDSEARCH_RUN_MAIN=1 the test binary behaves like hybridsearch-demo.
func TestMain(m *testing.M) {
	if os.Getenv(e2etest.RunMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// demoProcess is hybridsearch-demo running in a child process.
type demoProcess struct {
	cmd    *exec.Cmd
	ready  readyInfo
	lines  chan string // stdout lines after the READY line
	stderr *strings.Builder
}

// startDemo starts the demo with extra environment variables and waits
// for its READY line; the process is killed at the end of the test.
func startDemo(t *testing.T, env ...string) *demoProcess {
	t.Helper()
	return startDemoIn(t, t.TempDir(), env...)
}

// startDemoIn is startDemo with the data directory data.
func startDemoIn(t *testing.T, data string, env ...string) *demoProcess {
	t.Helper()
	return startDemoArgs(t, []string{"--data", data}, env...)
}

// startDemoArgs is startDemo with demo flags args.
func startDemoArgs(t *testing.T, args []string, env ...string) *demoProcess {
	t.Helper()
	cmd := command(t, append([]string{"--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d := &demoProcess{cmd: cmd, lines: make(chan string, 16), stderr: &strings.Builder{}}
	cmd.Stderr = d.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		close(d.lines)
	}()
	select {
	case line := <-d.lines:
		if !strings.HasPrefix(line, "READY ") {
			t.Fatalf("first stdout line = %q, want READY {...}", line)
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "READY ")), &d.ready); err != nil {
			t.Fatalf("READY line is not JSON: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("no READY line within 60 s")
	}
	return d
}

func TestDemo(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the whole demo")
	}
	data := t.TempDir()
	// An app.env left world-readable (by an older version, or a umask) is
	// made private again: it holds the app secret.
	envFile := filepath.Join(data, "app.env")
	if err := os.WriteFile(envFile, []byte("OLD=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startDemoIn(t, data)
	cmd, ready, lines, stderr := d.cmd, d.ready, d.lines, d.stderr
	readyLines := 1
	if ready.NextcloudURL == "" || ready.PanelURL == "" || ready.MCPURL == "" || len(ready.Users) != 2 {
		t.Fatalf("READY info incomplete: %+v", ready)
	}
	if st, err := os.Stat(envFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("app.env = %v (%v), want mode 0600", st.Mode(), err)
	}
	alice := ready.Users[0]
	if alice.UID != "alice" || alice.AppPassword == "" || alice.MCPToken == "" || ready.MCPDirectURL == "" {
		t.Fatalf("users = %+v", ready.Users)
	}

	// The simulated Nextcloud answers, the panel page needs a login and the
	// app answers through the proxy with alice's app password.
	get := func(url string, user *demoUser) int {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if user != nil {
			req.SetBasicAuth(user.UID, user.AppPassword)
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(ready.NextcloudURL+"/status.php", nil); code != 200 {
		t.Errorf("status.php = %d", code)
	}
	if code := get(ready.PanelURL, nil); code != http.StatusSeeOther && code != http.StatusFound {
		t.Errorf("panel without login = %d, want a redirect to the login page", code)
	}
	if code := get(ready.PanelURL, &alice); code != 200 {
		t.Errorf("panel as alice = %d", code)
	}
	statusURL := strings.TrimSuffix(ready.MCPURL, "mcp") + "api/status"
	if code := get(statusURL, &alice); code != 200 {
		t.Errorf("status through the proxy = %d", code)
	}

	// SIGTERM ends it cleanly.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("demo exited with %v after SIGTERM; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("demo did not exit within 30 s of SIGTERM")
	}
	for line := range lines {
		if strings.HasPrefix(line, "READY") {
			readyLines++
		}
	}
	if readyLines != 1 {
		t.Errorf("READY printed %d times, want exactly once", readyLines)
	}
}

func TestCommandLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		env      []string
		wantCode int
		wantOut  string
	}{
		{"demo help", []string{"-h"}, nil, 0, "--addr"},
		{"demo bad flag", []string{"--nope"}, nil, 1, "flag provided but not defined: -nope (see \"hybridsearch-demo -h\")"},
		{"demo stray argument", []string{"demo"}, nil, 1, "unexpected argument \"demo\""},
		{"demo unsimulated version", []string{"--nextcloud-version", "30"}, nil, 1, "only 32, 33, 34 and 35 are simulated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := command(t, tt.args...)
			cmd.Env = append(cmd.Env, tt.env...)
			code, out := e2etest.ExitCode(t, cmd)
			if code != tt.wantCode || !strings.Contains(out, tt.wantOut) {
				t.Errorf("hybridsearch-demo %v: exit %d, output:\n%s\nwant exit %d containing %q", tt.args, code, out, tt.wantCode, tt.wantOut)
			}
			if n := strings.Count(strings.TrimSpace(out), "\n"); tt.wantCode == 1 && n > 0 {
				t.Errorf("config error should be one line, got %d lines", n+1)
			}
		})
	}
}
