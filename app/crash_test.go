package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/appinfo"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/indexing/chunk"
	"github.com/hybrid-search/hybridsearch/indexing/extract"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// crashDoc is the content of file i: a few paragraphs, so files have one
// to three chunks.
func crashDoc(i int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Report %d\n\n", i)
	for p := 0; p < 1+i%4; p++ {
		fmt.Fprintf(&b, "Paragraph %d of report %d talks about topic-%d and item-%d. ", p, i, i%17, i*7+p)
		b.WriteString(strings.Repeat("Some filler words make the paragraph longer. ", 3+i%9))
		b.WriteString("\n\n")
	}
	return []byte(b.String())
}

func TestCrashSafety(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills and restarts the app")
	}
	const files = 300
	ollama := embeddingtest.NewServer(t)
	ollama.SetCost(3*time.Millisecond, true) // slow enough to kill mid-way
	sim := &ncsim.Server{HeartbeatInterval: 20 * time.Millisecond, WebhookInterval: 50 * time.Millisecond}
	if _, err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	alice := sim.AddUser("alice", "Alice", true)
	for i := 0; i < files; i++ {
		sim.SeedFile("alice", fmt.Sprintf("/reports/r%03d.md", i), crashDoc(i))
	}
	reg, err := ncsim.ParseInfoXML(appinfo.InfoXML)
	if err != nil {
		t.Fatal(err)
	}
	ln, port := listen(t)
	reg.Port = port
	appEnv, err := sim.RegisterExApp(reg)
	if err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	var logs bytes.Buffer
	start := func() *exec.Cmd {
		cmd := command(t, "serve")
		cmd.Env = append(cmd.Env, appEnv.List()...)
		cmd.Env = append(cmd.Env, "APP_PERSISTENT_STORAGE="+dataDir, "OLLAMA_HOST="+ollama.URL, "SCAN_INTERVAL=0", "LOG_LEVEL=info")
		cmd.Stderr = &logs
		var err error
		if ln != nil { // the first start serves on the registered port; a restart opens it itself
			err, ln = startOn(cmd, ln), nil
		} else {
			err = cmd.Start()
		}
		if err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	status := func() (indexed, pending int) {
		req, _ := http.NewRequest(http.MethodGet, sim.BaseURL+"/index.php/apps/app_api/proxy/hybrid_search/api/status", nil)
		req.SetBasicAuth("alice", alice.AppPassword)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, 0
		}
		defer resp.Body.Close()
		var st struct {
			Files struct{ Indexed, Pending int }
			Queue struct{ Pending int }
		}
		if json.NewDecoder(resp.Body).Decode(&st) != nil {
			return 0, 0
		}
		return st.Files.Indexed, st.Queue.Pending
	}

	child := start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := sim.Install(ctx, "hybrid_search"); err != nil {
		t.Fatalf("install: %v\n%s", err, logs.String())
	}
	await(t, "part of the files indexed", 60*time.Second, func() bool { n, _ := status(); return n >= 20 })
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	child = start()
	defer child.Process.Kill()
	deadline := time.Now().Add(90 * time.Second)
	for {
		n, q := status()
		if n == files && q == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart %d of %d files indexed, %d jobs queued; log:\n%s", n, files, q, tail(logs.String(), 3000))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := child.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := child.Wait(); err != nil {
		t.Fatalf("serve exited with %v after SIGTERM\n%s", err, logs.String())
	}

	// Check the store itself: each file holds exactly the chunks its text
	// gives, once, with vectors.
	st, err := local.Open(filepath.Join(dataDir, "index", "nomic-embed-text"), local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x := &extract.Extractor{}
	total := 0
	for _, f := range sim.Walk("alice") {
		if f.IsDir {
			continue
		}
		content, _ := sim.ReadFile("alice", f.Path)
		txt, err := x.Extract(context.Background(), filepath.Base(f.Path), f.MIME, bytes.NewReader(content))
		if err != nil {
			t.Fatal(err)
		}
		want := chunk.Chunker{}.Chunk(hs.FileID(f.ID), txt)
		got, err := st.FilePoints(context.Background(), hs.FileID(f.ID), true)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d chunks stored, want %d", f.Path, len(got), len(want))
			continue
		}
		seen := map[string]bool{}
		for i, p := range got {
			if p.Chunk.Text != want[i].Text || p.Chunk.No != i || seen[p.ID] || len(p.Dense) == 0 {
				t.Errorf("%s chunk %d: text %.20q no %d dense %d, want text %.20q", f.Path, i, p.Chunk.Text, p.Chunk.No, len(p.Dense), want[i].Text)
			}
			seen[p.ID] = true
		}
		total += len(got)
	}
	stats, err := st.Stats(context.Background())
	if err != nil || stats.Points != total || stats.Files != files {
		t.Errorf("store stats = %+v, %v; want %d points in %d files", stats, err, total, files)
	}
	if strings.Contains(logs.String(), "panic") {
		t.Errorf("a panic was logged:\n%s", logs.String())
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
