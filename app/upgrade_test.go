package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/appinfo"
	"github.com/hybrid-search/hybridsearch/internal/syncbuf"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// upgradeBaseline is the build an upgrade starts from while the project
// has no release tag older than the current version: main as it was when
// release 0.1.0 was prepared (the commit before the release plumbing), so
// its data directory is what an install of that code leaves behind. Once
// a tag vX.Y.Z older than info.xml's version exists, the newest such tag is
// used instead.
const upgradeBaseline = "ffcad67e1e684df9126da4cccba491e232c7d983"

// previousRelease returns the git ref to upgrade from: the newest tag
// vX.Y.Z below this version, else upgradeBaseline.
func previousRelease(t *testing.T, repo string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", repo, "tag", "--list", "v[0-9]*.[0-9]*.[0-9]*").Output()
	if err != nil {
		t.Skipf("git: %v", err)
	}
	cur := versionParts(appinfo.Version())
	var older []string
	for _, tag := range strings.Fields(string(out)) {
		if p := versionParts(strings.TrimPrefix(tag, "v")); p != nil && lessVersion(p, cur) {
			older = append(older, tag)
		}
	}
	sort.Slice(older, func(i, j int) bool {
		return lessVersion(versionParts(older[i][1:]), versionParts(older[j][1:]))
	})
	if len(older) > 0 {
		return older[len(older)-1]
	}
	if exec.Command("git", "-C", repo, "cat-file", "-e", upgradeBaseline+"^{commit}").Run() != nil {
		t.Skipf("commit %s is not in this clone (shallow?); no release tag below %s either", upgradeBaseline, appinfo.Version())
	}
	return upgradeBaseline
}

func versionParts(v string) []int {
	f := strings.Split(v, ".")
	if len(f) != 3 {
		return nil
	}
	out := make([]int, 3)
	for i, s := range f {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil
		}
		out[i] = n
	}
	return out
}

func lessVersion(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// buildAt builds cmd/hybridsearch as it was at ref, and returns the binary
// and that tree's info.xml. Both are kept in the checkout's ignored
// .artifacts/upgrade/<ref>/ for the next run. The build shares the Go
// build cache with this checkout's (no -trimpath: the dependencies'
// compiled packages are reused, only the app's own packages compile).
func buildAt(t *testing.T, repo, ref string) (bin string, infoXML []byte) {
	t.Helper()
	dir := filepath.Join(repo, ".artifacts", "upgrade", ref+"-"+runtime.Version())
	bin = filepath.Join(dir, "hybridsearch")
	if b, err := os.ReadFile(filepath.Join(dir, "info.xml")); err == nil {
		if _, err := os.Stat(bin); err == nil {
			return bin, b
		}
	}
	src := filepath.Join(dir, "src")
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(src)
	tarball := filepath.Join(dir, "src.tar")
	defer os.Remove(tarball)
	if out, err := exec.Command("git", "-C", repo, "archive", "--format=tar", "-o", tarball, ref).CombinedOutput(); err != nil {
		t.Fatalf("git archive %s: %v %s", ref, err, out)
	}
	if out, err := exec.Command("tar", "-xf", tarball, "-C", src).CombinedOutput(); err != nil {
		t.Fatalf("tar -x: %v %s", err, out)
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/hybridsearch")
	build.Dir = src
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build at %s: %v\n%s", ref, err, out)
	}
	infoXML, err := os.ReadFile(filepath.Join(src, "appinfo", "info.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "info.xml"), infoXML, 0o644); err != nil {
		t.Fatal(err)
	}
	return bin, infoXML
}

// TestUpgradeFromPreviousRelease upgrades a running install as `occ
// app_api:app:update` does, in the simulator: the previous release's
// binary installs, indexes alice's note and serves it; AppAPI disables it
// and replaces the container (same volume, port and secret) with this
// build, registered from this info.xml; the new app reports ready (init
// 100, enabled), answers from the index it found in the data directory
// at once, and indexes a new file.
func TestUpgradeFromPreviousRelease(t *testing.T) {
	t.Parallel() // its build of the previous release overlaps the tests that wait
	if testing.Short() {
		t.Skip("builds the previous release")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	ref := previousRelease(t, repo)
	start := time.Now()
	oldBin, oldInfo := buildAt(t, repo, ref)
	t.Logf("the previous release (%s) built or found in %s", ref, time.Since(start).Round(time.Second))

	sim := &ncsim.Server{HeartbeatInterval: 20 * time.Millisecond, WebhookInterval: 50 * time.Millisecond}
	if _, err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	env := &testEnv{Sim: sim, Logs: &syncbuf.Buffer{}, Alice: sim.AddUser("alice", "Alice", true), Bob: sim.AddUser("bob", "Bob", false)}
	sim.PutFile("alice", "/Notes/tides.md", []byte("The quokkabarometer of Zanzibar measures tides.\n"))

	oldReg, err := ncsim.ParseInfoXML(oldInfo)
	if err != nil {
		t.Fatal(err)
	}
	oldReg.Port = freePort(t)
	appEnv, err := sim.RegisterExApp(oldReg)
	if err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	extra := map[string]string{"APP_PERSISTENT_STORAGE": dataDir, "OLLAMA_HOST": "off", "SCAN_INTERVAL": "0", "LOG_LEVEL": "warn"}
	var procEnv []string
	for _, v := range appEnv {
		if _, ok := extra[v.Name]; !ok {
			procEnv = append(procEnv, v.Name+"="+v.Value)
		}
	}
	for k, v := range extra {
		procEnv = append(procEnv, k+"="+v)
	}
	old := exec.Command(oldBin, "serve")
	old.Env = append(procEnv, "PATH="+os.Getenv("PATH"))
	var oldLogs syncbuf.Buffer
	old.Stdout, old.Stderr = &oldLogs, &oldLogs
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	oldDone := make(chan error, 1)
	go func() { oldDone <- old.Wait() }()
	t.Cleanup(func() {
		_ = old.Process.Kill()
		<-oldDone
		if t.Failed() {
			t.Logf("previous release's output:\n%s", oldLogs.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := sim.Install(ctx, "hybrid_search"); err != nil {
		t.Fatalf("install the previous release: %v", err)
	}
	finds := func(q, path string) bool {
		resp, body := env.proxyGet(t, &env.Alice, "api/search?q="+q)
		return resp.StatusCode == 200 && strings.Contains(body, path)
	}
	await(t, "the previous release to index alice's note", time.Minute, func() bool { return finds("quokkabarometer", "/Notes/tides.md") })

	// occ app_api:app:update: disable, replace the container, register the
	// new version's info.xml (the secret and port stay), then heartbeat,
	// init and enable.
	if err := sim.Disable(ctx, "hybrid_search"); err != nil {
		t.Fatalf("disable the previous release: %v", err)
	}
	_ = old.Process.Signal(syscall.SIGTERM)
	select {
	case <-oldDone:
		oldDone <- nil // for the cleanup
	case <-time.After(30 * time.Second):
		t.Fatal("the previous release did not stop within 30 s of SIGTERM")
	}
	sim.UnregisterExApp("hybrid_search")
	newReg, err := ncsim.ParseInfoXML(appinfo.InfoXML)
	if err != nil {
		t.Fatal(err)
	}
	newReg.Port, newReg.Secret = oldReg.Port, appEnv.Get("APP_SECRET")
	newEnv, err := sim.RegisterExApp(newReg)
	if err != nil {
		t.Fatal(err)
	}
	env.quiet = true
	env.getenv = func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		return newEnv.Get(k)
	}
	start = time.Now()
	env.start(t)
	if err := sim.Install(ctx, "hybrid_search"); err != nil {
		t.Fatalf("install the upgrade: %v", err)
	}
	ready := time.Since(start)
	if !finds("quokkabarometer", "/Notes/tides.md") {
		t.Error("right after the upgrade the note indexed by the previous release is not found")
	}
	t.Logf("upgrade from %s: ready (init 100, enabled) %s after the new build started; the old index answered at once", ref, ready.Round(time.Millisecond))
	if st := sim.AppStatus("hybrid_search"); !st.Enabled {
		t.Errorf("after the upgrade the app is not enabled: %+v", st)
	}

	sim.PutFile("alice", "/Notes/new.md", []byte("Wombatometer readings after the upgrade.\n"))
	// Scans are off: the webhook the upgrade registered again delivers it.
	await(t, "a file written after the upgrade to be found", time.Minute, func() bool { return finds("wombatometer", "/Notes/new.md") })
}
