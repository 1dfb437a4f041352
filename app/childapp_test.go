package app

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strconv"
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
		addr := "127.0.0.1:" + strconv.Itoa(freePort(tb))
		fake := child("HYBRIDSEARCH_RUN_QDRANTFAKE=" + addr)
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
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "READY\n" {
			tb.Fatalf("fake Qdrant: %q, %v", line, err)
		}
		storeEnv = append(storeEnv, "QDRANT_URL=http://"+addr)
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
	reg.Port = freePort(tb)
	appEnv, err := a.Sim.RegisterExApp(reg)
	if err != nil {
		tb.Fatal(err)
	}
	a.Cmd = child(append(append(append(appEnv.List(), "HYBRIDSEARCH_RUN_MAIN=1", "APP_PERSISTENT_STORAGE="+tb.TempDir(),
		"OLLAMA_HOST="+ollama.URL, "SCAN_INTERVAL=0"), storeEnv...), env...)...)
	a.Cmd.Stderr = a.Logs
	if err := a.Cmd.Start(); err != nil {
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
