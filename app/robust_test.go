package app

import (
	"archive/zip"
	"bytes"
	"context"
	"math/rand"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// zipBomb is a DOCX whose document.xml inflates 50 MiB of zeros.
func zipBomb(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("[Content_Types].xml")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(`<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`))
	w, _ = zw.Create("word/document.xml")
	zeros := make([]byte, 1<<20)
	for i := 0; i < 50; i++ {
		w.Write(zeros)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPoisonFilesAreRecordedAndOthersFlow(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true})
	sim := env.Sim
	garbage := make([]byte, 64<<10)
	rand.New(rand.NewSource(1)).Read(garbage)
	huge := make([]byte, 200<<20)
	files := []struct {
		path    string
		content []byte
		status  string
		reason  string // substring of the recorded error
	}{
		{"/poison/corrupt.pdf", []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage without xref"), hs.StatusFailed, "pdf"},
		{"/poison/bomb.docx", zipBomb(t), hs.StatusFailed, "zip bomb"},
		{"/poison/garbage.txt", garbage, hs.StatusFailed, "not text"},
		{"/poison/nested.html", []byte("<html><body>" + strings.Repeat("<div>", 600) + "deep</body></html>"), hs.StatusFailed, "nested deeper than 512"},
		{"/poison/empty.md", nil, hs.StatusSkipped, "no text"},
		{"/poison/huge.txt", huge, hs.StatusSkipped, "larger than"},
		{"/poison/photo.png", []byte("\x89PNG\r\n\x1a\nxxxx"), hs.StatusFailed, "image"}, // corrupt (or OCR unavailable)
		{"/poison/clip.mp4", []byte("\x00\x00\x00\x18ftypmp42xxxx"), hs.StatusSkipped, "unsupported file type"},
		{"/poison/latin1.txt", []byte("caf\xe9 cr\xe8me br\xfbl\xe9e \xff\xfe ok"), hs.StatusIndexed, ""},
		{"/fine.md", []byte("# Fine\n\nThis ordinary file is indexed: pangolin."), hs.StatusIndexed, ""},
	}
	ids := map[string]int64{}
	for _, f := range files {
		ids[f.path] = sim.PutFile("alice", f.path, f.content).ID
	}
	huge = nil
	for _, f := range files {
		ix := env.awaitFile(t, f.path+" recorded", ids[f.path], func(ix indexed) bool { return ix.state.Status == f.status })
		if !strings.Contains(strings.ToLower(ix.state.Error), f.reason) {
			t.Errorf("%s: error %q, want it to mention %q", f.path, ix.state.Error, f.reason)
		}
		if f.status != hs.StatusIndexed && len(ix.points) != 0 {
			t.Errorf("%s: %d chunks stored for a %s file", f.path, len(ix.points), f.status)
		}
	}
	ix := env.lookup(t, ids["/poison/latin1.txt"])
	if got := text(ix.points); !strings.Contains(got, "café") {
		t.Errorf("latin-1 text = %q, want it decoded", got)
	}
	dead, err := env.Main.Queue.DeadLetters(context.Background())
	if err != nil || len(dead) != 0 {
		t.Errorf("dead letters = %+v, %v; poison files are final, not retried", dead, err)
	}
	_, body := env.proxyGet(t, &env.Alice, "api/status")
	for _, want := range []string{"zip bomb", "corrupt.pdf", `"failed":5`} {
		if !strings.Contains(body, want) {
			t.Errorf("status does not show %q:\n%s", want, body)
		}
	}
}

func TestEmbedderOutage(t *testing.T) {
	t.Parallel()
	ollama, o := withOllama(t)
	env := newTestEnv(t, o)
	ollama.Down()
	f := env.Sim.PutFile("alice", "/during-outage.md", []byte("Written while Ollama was down: wombat."))
	ix := env.awaitFile(t, "pending with the reason", f.ID, func(ix indexed) bool {
		return ix.state.Status == hs.StatusPending && ix.state.Error != ""
	})
	if len(ix.points) != 0 {
		t.Fatal("chunks stored without vectors while the embedder is down")
	}
	_, body := env.proxyGet(t, &env.Alice, "api/status")
	if !strings.Contains(body, `"embedder":{"ok":false`) || !strings.Contains(body, "during-outage.md") {
		t.Errorf("status during the outage does not say why:\n%s", body)
	}
	// Other files keep their place in the queue; nothing is lost.
	g := env.Sim.PutFile("alice", "/also.md", []byte("Another file: quoll."))
	time.Sleep(300 * time.Millisecond) // let a retry or two fail
	ollama.Up()
	env.awaitFile(t, "indexed after the outage", f.ID, isIndexed(f.ETag))
	env.awaitFile(t, "the other file too", g.ID, isIndexed(g.ETag))
	ix = env.lookup(t, f.ID)
	if ix.state.Error != "" || ix.state.Attempts != 0 {
		t.Errorf("state after recovery = %+v", ix.state)
	}
	pts, _ := env.Main.Store.FilePoints(context.Background(), hs.FileID(f.ID), true)
	if len(pts) == 0 || len(pts[0].Dense) == 0 {
		t.Error("no dense vector after recovery")
	}
}

func TestNextcloudOutage(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true})
	env.Sim.PauseWebhooks()
	f := env.Sim.PutFile("alice", "/flaky.md", []byte("Indexed after Nextcloud came back: tapir."))
	for i := 0; i < 3; i++ {
		env.Sim.FailNext("", "/remote.php/dav", 503)
	}
	env.Sim.ResumeWebhooks()
	env.awaitFile(t, "indexed after WebDAV errors", f.ID, isIndexed(f.ETag))
}
