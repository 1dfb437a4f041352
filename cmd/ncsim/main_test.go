package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/internal/syncbuf"
)

const testInfoXML = `<info><id>demo_app</id><name>Demo App</name><version>1.0.0</version>
<external-app><routes><route><url>.*</url><verb>GET</verb><access_level>USER</access_level></route></routes>
<environment-variables><variable><name>MODEL</name><default>small</default></variable></environment-variables>
</external-app></info>`

func TestRun(t *testing.T) {
	dir := t.TempDir()
	info := filepath.Join(dir, "info.xml")
	if err := os.WriteFile(info, []byte(testInfoXML), 0o600); err != nil {
		t.Fatal(err)
	}
	envFile := filepath.Join(dir, "app.env")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--user", "ann:admin", "--user", "ben",
			"--app-info", info, "--env-file", envFile}, &stdout, &stderr)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(stdout.String(), "Ctrl-C") {
		if time.Now().After(deadline) {
			t.Fatalf("no start message; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	out := stdout.String()
	for _, want := range []string{"ann (admin)  password ann  app password ", "ben  password ben", "APP_ID=demo_app",
		"MODEL=small", "APP_PORT=23000"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	base := regexp.MustCompile(`at (http://\S+) `).FindStringSubmatch(out)
	if base == nil {
		t.Fatalf("no base URL in:\n%s", out)
	}
	resp, err := http.Get(base[1] + "/status.php")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("status.php = %d", resp.StatusCode)
	}
	file, err := os.ReadFile(envFile)
	if err != nil || !strings.Contains(string(file), "APP_DISPLAY_NAME='Demo App'\n") {
		t.Errorf("env file = %q (%v)", file, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not stop")
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr bool
	}{
		{"defaults", nil, false},
		{"install without app", []string{"--install"}, true},
		{"stray argument", []string{"x"}, true},
		{"unknown flag", []string{"--nope"}, true},
		{"a simulated version", []string{"--nextcloud-version", "32"}, false},
		{"a patch release", []string{"--nextcloud-version", "33.0.3"}, false},
		{"an unsimulated version", []string{"--nextcloud-version", "31"}, true},
		{"not a version", []string{"--nextcloud-version", "latest"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseFlags(tt.args, &bytes.Buffer{})
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseFlags(%v) error = %v", tt.args, err)
			}
			if !tt.wantErr && (o.addr != "127.0.0.1:8585" || strings.Join(o.users, ",") != "alice:admin,bob") {
				t.Errorf("defaults = %+v", o)
			}
		})
	}
	var help bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &help); !errors.Is(err, flag.ErrHelp) || !strings.Contains(help.String(), "app-info") {
		t.Errorf("-h = %v\n%s", err, help.String())
	}
	if err := run(context.Background(), []string{"--addr", "127.0.0.1:0", "--user", "a:root"}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("bad role accepted")
	}
}
