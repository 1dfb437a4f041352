package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// syncFolder runs Debian's nextcloudcmd once: dir to alice's files.
func syncFolder(t *testing.T, env *testEnv, dir, home string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "nextcloudcmd", "--non-interactive", "--max-sync-retries", "1",
		"-u", "alice", "-p", env.Alice.AppPassword, dir, env.Sim.BaseURL)
	// Files over 100 kB go up in chunks (the client's chunk size is 10 MB
	// by default; its environment variables lower it).
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"OWNCLOUD_CHUNK_SIZE=100000", "OWNCLOUD_MIN_CHUNK_SIZE=100000", "OWNCLOUD_MAX_CHUNK_SIZE=100000")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("nextcloudcmd: %v\n%s", err, tail(out.String(), 4000))
	}
	return out.String()
}

// TestDesktopClientSync syncs a folder into the simulator with the real
// Nextcloud desktop client (Debian's nextcloud-desktop-cmd, installed by
// scripts/install-deps), which uploads small files with bulk upload and big
// ones in chunks. Every file must arrive and become searchable; a local
// edit and a local delete must follow on the next sync.
func TestDesktopClientSync(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("nextcloudcmd"); err != nil {
		t.Skip("nextcloudcmd is not installed: scripts/install-deps installs Debian's nextcloud-desktop-cmd when run as root")
	}
	// Keyword search is enough to see that every file arrived; embedding
	// big.md's ~250 chunks with the race-instrumented fake only slows the
	// test down on a loaded machine.
	env := newTestEnv(t, envOptions{install: true, extra: map[string]string{"OLLAMA_HOST": "off"}})
	dir, home := t.TempDir(), t.TempDir()
	words := []string{"aardvark", "bison", "capybara", "dugong", "echidna", "fossa", "gharial", "hoatzin"}
	var names []string
	for i := 0; i < 30; i++ {
		name := fmt.Sprintf("notes/n%02d.md", i)
		if i%3 == 0 {
			name = fmt.Sprintf("top%02d.txt", i)
		}
		text := fmt.Sprintf("# Note %d\n\nThe %s report number %d is here.\n", i, words[i%len(words)], i)
		writeLocal(t, dir, name, text)
		names = append(names, name)
	}
	writeLocal(t, dir, "deep/er/still.md", "Deep down lives the quetzal.")
	names = append(names, "deep/er/still.md")
	big := strings.Repeat("Filler text for a file that goes up in chunks. ", 5000) + "\nThe marker word is xylophonist.\n"
	writeLocal(t, dir, "big.md", big) // about 240 kB: three upload chunks of 100 kB
	names = append(names, "big.md")

	out := syncFolder(t, env, dir, home)
	if !strings.Contains(out, "dav/bulk") || !strings.Contains(out, "dav/uploads/alice") {
		t.Errorf("the client used neither bulk nor chunked upload; output tail:\n%s", tail(out, 3000))
	}
	files := map[string]ncsim.FileInfo{}
	for _, n := range names {
		fi, ok := env.Sim.Stat("alice", "/"+n)
		if !ok {
			t.Errorf("%s did not arrive", n)
			continue
		}
		files[n] = fi
	}
	if t.Failed() {
		t.FailNow()
	}
	if got, _ := env.Sim.ReadFile("alice", "/big.md"); string(got) != big {
		t.Fatalf("big.md arrived with %d of %d bytes", len(got), len(big))
	}
	for _, n := range names {
		env.awaitFile(t, n+" indexed", files[n].ID, isIndexed(files[n].ETag))
	}
	for _, q := range []string{"capybara", "quetzal", "xylophonist"} {
		if resp, body := env.proxyGet(t, &env.Alice, "api/search?q="+q); resp.StatusCode != 200 || !strings.Contains(body, "file_id") {
			t.Errorf("search %q = %d %.300s", q, resp.StatusCode, body)
		}
	}

	// A local edit and a local delete follow on the next sync.
	writeLocal(t, dir, "top00.txt", "Rewritten locally: the narwhal memo.")
	if err := os.Remove(filepath.Join(dir, "notes", "n01.md")); err != nil {
		t.Fatal(err)
	}
	syncFolder(t, env, dir, home)
	edited, ok := env.Sim.Stat("alice", "/top00.txt")
	if !ok {
		t.Fatal("top00.txt vanished")
	}
	ix := env.awaitFile(t, "local edit indexed", edited.ID, isIndexed(edited.ETag))
	if !strings.Contains(text(ix.points), "narwhal") {
		t.Errorf("after the edit the index holds %q", text(ix.points))
	}
	if _, ok := env.Sim.Stat("alice", "/notes/n01.md"); ok {
		t.Error("notes/n01.md still exists after a local delete and sync")
	}
	env.awaitFile(t, "local delete removed", files["notes/n01.md"].ID, func(ix indexed) bool { return len(ix.points) == 0 })
}

func writeLocal(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
