package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/appinfo"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/internal/syncbuf"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// BenchmarkRSS measures the app's resident memory in a child process
// (built without the race detector), on the Qdrant fake (its own
// process) and on the embedded local store: idle after indexing the demo
// sample (goal ≤ 100 MB), the peak while 1,000 new files are indexed, and
// idle again after them. Run it with -benchtime 1x; HS_RSS_FILES changes
// the 1,000.
func BenchmarkRSS(b *testing.B) {
	if testing.Short() {
		b.Skip("builds the app and indexes 1,000 files in child processes")
	}
	files := 1000
	if n, err := strconv.Atoi(os.Getenv("HS_RSS_FILES")); err == nil && n > 0 {
		files = n
	}
	bin := buildTestBinary(b, b.TempDir())
	for _, kind := range []string{"qdrant", "local"} {
		b.Run("store="+kind, func(b *testing.B) {
			for range b.N {
				benchRSS(b, bin, kind, files)
			}
		})
	}
}

func benchRSS(b *testing.B, bin, kind string, files int) {
	child := func(env ...string) *exec.Cmd {
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		return cmd
	}
	var storeEnv []string
	if kind == "qdrant" {
		addr := "127.0.0.1:" + strconv.Itoa(freePort(b))
		fake := child("HYBRIDSEARCH_RUN_QDRANTFAKE=" + addr)
		stdin, err := fake.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		out, err := fake.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := fake.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { stdin.Close(); _ = fake.Wait() }()
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "READY\n" {
			b.Fatalf("fake Qdrant: %q, %v", line, err)
		}
		storeEnv = append(storeEnv, "QDRANT_URL=http://"+addr)
	}
	ollama := embeddingtest.NewServer(b)
	sim := &ncsim.Server{HeartbeatInterval: 20 * time.Millisecond, WebhookInterval: 50 * time.Millisecond}
	if _, err := sim.Start("127.0.0.1:0"); err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	alice := sim.AddUser("alice", "Alice", true)
	if err := loadSample(sim, "alice", ""); err != nil {
		b.Fatal(err)
	}
	reg, err := ncsim.ParseInfoXML(appinfo.InfoXML)
	if err != nil {
		b.Fatal(err)
	}
	reg.Port = freePort(b)
	appEnv, err := sim.RegisterExApp(reg)
	if err != nil {
		b.Fatal(err)
	}
	var logs syncbuf.Buffer // the child writes while a failure reads it
	cmd := child(append(append(appEnv.List(), "HYBRIDSEARCH_RUN_MAIN=1", "APP_PERSISTENT_STORAGE="+b.TempDir(),
		"OLLAMA_HOST="+ollama.URL, "SCAN_INTERVAL=0", "LOG_LEVEL=warn"), storeEnv...)...)
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := sim.Install(ctx, "hybrid_search"); err != nil {
		b.Fatalf("install: %v\n%s", err, logs.String())
	}
	type status struct {
		Files struct{ Indexed, Skipped, Failed, Pending int }
	}
	get := func() status {
		req, _ := http.NewRequest(http.MethodGet, sim.BaseURL+"/index.php/apps/app_api/proxy/hybrid_search/api/status", nil)
		req.SetBasicAuth("alice", alice.AppPassword)
		resp, err := http.DefaultClient.Do(req)
		var st status
		if err == nil {
			_ = json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
		}
		return st
	}
	pid := cmd.Process.Pid
	settle := func(what string, done func(status) bool) status {
		deadline := time.Now().Add(5 * time.Minute)
		for {
			st := get()
			if done(st) {
				return st
			}
			if time.Now().After(deadline) {
				b.Fatalf("%s: not done in 5 minutes: %+v\n%s", what, st, tail(logs.String(), 3000))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// The sample is in once the count stays for a second with nothing pending.
	last, since := -1, time.Now()
	sampled := settle("the demo sample", func(st status) bool {
		if st.Files.Indexed != last {
			last, since = st.Files.Indexed, time.Now()
		}
		return st.Files.Indexed > 0 && st.Files.Pending == 0 && time.Since(since) > time.Second
	})
	time.Sleep(2 * time.Second) // let the scan's garbage go
	idle := procStatus(b, pid, "VmRSS")
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) // reset VmHWM
	b.ResetTimer()
	for i := range files {
		sim.PutFile("alice", fmt.Sprintf("/rss/%04d.md", i), fmt.Appendf(nil, "# Note %d\n\n%s", i, strings.Repeat(fmt.Sprintf("Line %d of note %d about okapis and quokkas. ", i%37, i), 20)))
	}
	want := sampled.Files.Indexed + files
	settle("1,000 files", func(st status) bool { return st.Files.Indexed >= want && st.Files.Pending == 0 })
	b.StopTimer()
	peak := procStatus(b, pid, "VmHWM")
	time.Sleep(2 * time.Second)
	after := procStatus(b, pid, "VmRSS")
	b.ReportMetric(float64(idle)/(1<<20), "idle-sample-MB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-indexing-MB")
	b.ReportMetric(float64(after)/(1<<20), "idle-after-MB")
	b.ReportMetric(float64(sampled.Files.Indexed), "sample-files")
	b.ReportMetric(float64(files), "new-files")
}
