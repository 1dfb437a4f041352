package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/appinfo"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/internal/syncbuf"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// childApp is the app run as "serve" in a child process (built without
// the race detector, so its memory is the product's), installed in a
// simulator with one user, alice, a fake Ollama and, for the "qdrant"
// store, the Qdrant fake in a process of its own. The big-file test and
// BenchmarkRSS measure it.
type childApp struct {
	Sim   *ncsim.Server
	Alice ncsim.User
	Cmd   *exec.Cmd
	Logs  *syncbuf.Buffer // the child's stderr
}

// childStatus is the part of GET api/status the measurements read.
type childStatus struct {
	Files    struct{ Indexed, Skipped, Failed, Pending, Chunks int }
	Problems []struct{ Path, Status, Error string }
}

// startChildApp starts bin (from buildTestBinary) on store "qdrant" or
// "local"; setup, if non-nil, fills the simulator before the install, env
// is added to the app's environment. Everything stops at tb's cleanup.
func startChildApp(tb testing.TB, bin, store string, setup func(sim *ncsim.Server) error, env ...string) *childApp {
	tb.Helper()
	child := func(env ...string) *exec.Cmd {
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlives the test
		return cmd
	}
	var storeEnv []string
	if store == "qdrant" {
		fake := child("HYBRIDSEARCH_RUN_QDRANTFAKE=127.0.0.1:0")
		stdin, err := fake.StdinPipe()
		if err != nil {
			tb.Fatal(err)
		}
		out, err := fake.StdoutPipe()
		if err != nil {
			tb.Fatal(err)
		}
		fake.Stderr = os.Stderr
		if err := fake.Start(); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { stdin.Close(); _ = fake.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		url, ok := strings.CutPrefix(strings.TrimSpace(line), "READY ")
		if err != nil || !ok {
			tb.Fatalf("fake Qdrant: %q, %v", line, err)
		}
		storeEnv = append(storeEnv, "QDRANT_URL="+url)
	}
	ollama := embeddingtest.NewServer(tb)
	a := &childApp{Sim: &ncsim.Server{HeartbeatInterval: 20 * time.Millisecond, WebhookInterval: 50 * time.Millisecond}, Logs: &syncbuf.Buffer{}}
	if _, err := a.Sim.Start("127.0.0.1:0"); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Sim.Close() })
	a.Alice = a.Sim.AddUser("alice", "Alice", true)
	if setup != nil {
		if err := setup(a.Sim); err != nil {
			tb.Fatal(err)
		}
	}
	reg, err := ncsim.ParseInfoXML(appinfo.InfoXML)
	if err != nil {
		tb.Fatal(err)
	}
	ln, port := listen(tb)
	reg.Port = port
	appEnv, err := a.Sim.RegisterExApp(reg)
	if err != nil {
		tb.Fatal(err)
	}
	a.Cmd = child(append(append(append(appEnv.List(), "HYBRIDSEARCH_RUN_MAIN=1", "APP_PERSISTENT_STORAGE="+tb.TempDir(),
		"OLLAMA_HOST="+ollama.URL, "SCAN_INTERVAL=0"), storeEnv...), env...)...)
	a.Cmd.Stderr = a.Logs
	if err := startOn(a.Cmd, ln); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = a.Cmd.Process.Signal(syscall.SIGTERM)
		_ = a.Cmd.Wait()
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := a.Sim.Install(ctx, "hybrid_search"); err != nil {
		tb.Fatalf("install: %v\n%s", err, a.Logs.String())
	}
	return a
}

// status asks the app for alice's indexing status through the proxy; the
// zero value when it does not answer.
func (a *childApp) status() childStatus {
	req, _ := http.NewRequest(http.MethodGet, a.Sim.BaseURL+"/index.php/apps/app_api/proxy/hybrid_search/api/status", nil)
	req.SetBasicAuth("alice", a.Alice.AppPassword)
	resp, err := http.DefaultClient.Do(req)
	var st childStatus
	if err == nil {
		_ = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
	}
	return st
}

// listenerFDEnv tells a child started by the test binary (TestMain) that
// fd 3 is the listener to serve on (App.Listener).
const listenerFDEnv = "HYBRIDSEARCH_TEST_LISTENER_FD"

// startOn starts cmd, the test binary as a child, serving on ln (fd 3):
// the port the test registered, with no gap for another process to take
// it. ln is closed here: the child holds the socket from then on, and a
// restart after the child stops can bind the port again.
func startOn(cmd *exec.Cmd, ln net.Listener) error {
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		return err
	}
	defer f.Close()
	defer ln.Close()
	cmd.ExtraFiles = []*os.File{f}
	cmd.Env = append(cmd.Env, listenerFDEnv+"=3")
	return cmd.Start()
}

// inheritedListener is the listener startOn gave this process, or nil.
func inheritedListener() (net.Listener, error) {
	if os.Getenv(listenerFDEnv) != "3" {
		return nil, nil
	}
	f := os.NewFile(3, "listener")
	defer f.Close()
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("the listener on fd 3: %w", err)
	}
	return ln, nil
}
