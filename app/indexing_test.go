package app

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// withOllama runs the app against a fake Ollama.
func withOllama(t testing.TB) (*embeddingtest.Server, envOptions) {
	ollama := embeddingtest.NewServer(t)
	return ollama, envOptions{install: true, extra: map[string]string{"OLLAMA_HOST": ollama.URL, "EMBED_MODEL": "nomic-embed-text"}}
}

// indexed is what the index holds for one file.
type indexed struct {
	state  hs.FileState
	found  bool
	points []hs.Point
}

func (e *testEnv) lookup(t testing.TB, id int64) indexed {
	t.Helper()
	ctx := context.Background()
	st, _, err := e.Main.KV.States().Get(ctx, hs.FileID(id))
	if err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
		t.Fatalf("state %d: %v", id, err)
	}
	pts, err := e.Main.Engine().Store.FilePoints(ctx, hs.FileID(id), false)
	if err != nil {
		t.Fatalf("points %d: %v", id, err)
	}
	return indexed{state: st, found: err == nil && st.ID != 0, points: pts}
}

// awaitFile waits until cond holds for file id's index entry.
func (e *testEnv) awaitFile(t testing.TB, what string, id int64, cond func(ix indexed) bool) indexed {
	t.Helper()
	// A liveness bound, not a timing check: end-to-end tests run in
	// parallel, beside the browser tests, on two cores under -race.
	return e.awaitFileWithin(t, what, id, time.Minute, cond)
}

// awaitFileWithin is awaitFile with its own timeout (text recognition).
func (e *testEnv) awaitFileWithin(t testing.TB, what string, id int64, timeout time.Duration, cond func(ix indexed) bool) indexed {
	t.Helper()
	var ix indexed
	await(t, what, timeout, func() bool {
		ix = e.lookup(t, id)
		return cond(ix)
	})
	return ix
}

func text(pts []hs.Point) string {
	var b strings.Builder
	for _, p := range pts {
		b.WriteString(p.Chunk.Text)
		b.WriteString("\n")
	}
	return b.String()
}

func isIndexed(etag string) func(indexed) bool {
	return func(ix indexed) bool {
		return ix.state.Status == hs.StatusIndexed && ix.state.ETag == etag && len(ix.points) > 0
	}
}

func TestLiveIndexingFiles(t *testing.T) {
	t.Parallel()
	_, o := withOllama(t)
	env := newTestEnv(t, o)
	sim := env.Sim

	// Create.
	f := sim.PutFile("alice", "/Docs/plan.md", []byte("# Plan\n\nThe zebracorn migration starts on Monday."))
	ix := env.awaitFile(t, "new file indexed", f.ID, isIndexed(f.ETag))
	if !strings.Contains(text(ix.points), "zebracorn") || ix.points[0].File.Path != "/Docs/plan.md" || !slices.Equal(ix.state.Readers, []hs.UserID{"alice"}) {
		t.Fatalf("after create: %+v", ix)
	}
	if len(ix.points[0].Dense) != 0 {
		t.Error("FilePoints without vectors returned vectors")
	}

	// Edit.
	f2 := sim.PutFile("alice", "/Docs/plan.md", []byte("# Plan\n\nThe quokka migration starts on Tuesday."))
	ix = env.awaitFile(t, "edit indexed", f.ID, isIndexed(f2.ETag))
	if got := text(ix.points); strings.Contains(got, "zebracorn") || !strings.Contains(got, "quokka") {
		t.Fatalf("after edit the text is %q", got)
	}

	// Rename, then move into a folder, then rename the folder: paths follow
	// without a download. The rename changes the title (it comes from the
	// name), so the one chunk is embedded again under it; the moves keep
	// the name and re-embed nothing.
	embedded := env.Main.Pipeline.Counters().Embedded
	sim.Move("alice", "/Docs/plan.md", "/Docs/plan-v2.md")
	env.awaitFile(t, "rename", f.ID, func(ix indexed) bool { return len(ix.points) > 0 && ix.points[0].File.Path == "/Docs/plan-v2.md" })
	if got := env.Main.Pipeline.Counters().Embedded; got != embedded+1 {
		t.Errorf("the rename sent %d chunks to the embedder, want 1 (its title changed)", got-embedded)
	}
	embedded = env.Main.Pipeline.Counters().Embedded
	sim.Mkdir("alice", "/Archive")
	sim.Move("alice", "/Docs/plan-v2.md", "/Archive/plan-v2.md")
	env.awaitFile(t, "move", f.ID, func(ix indexed) bool { return len(ix.points) > 0 && ix.points[0].File.Path == "/Archive/plan-v2.md" })
	sim.Move("alice", "/Archive", "/Old")
	ix = env.awaitFile(t, "folder rename", f.ID, func(ix indexed) bool { return len(ix.points) > 0 && ix.points[0].File.Path == "/Old/plan-v2.md" })
	if ix.points[0].File.Title != "plan-v2" {
		t.Errorf("title after rename = %q", ix.points[0].File.Title)
	}
	if got := env.Main.Pipeline.Counters().Embedded; got != embedded {
		t.Errorf("moves sent %d chunks to the embedder, want 0", got-embedded)
	}

	// Copies: vectors are reused where the text embedded is the same,
	// title (here the file name) included.
	same := sim.Copy("alice", "/Old/plan-v2.md", "/plan-v2.md")
	env.awaitFile(t, "copy indexed", same.ID, isIndexed(same.ETag))
	if got := env.Main.Pipeline.Counters().Embedded; got != embedded {
		t.Errorf("a copy under the same name sent %d chunks to the embedder, want 0 (same text and title)", got-embedded)
	}
	c := sim.Copy("alice", "/Old/plan-v2.md", "/copy.md")
	env.awaitFile(t, "copy indexed", c.ID, isIndexed(c.ETag))
	if got := env.Main.Pipeline.Counters().Embedded; got != embedded+1 {
		t.Errorf("a copy under another name sent %d chunks to the embedder, want 1 (its title differs)", got-embedded)
	}

	// Delete, then restore from the trash.
	sim.Remove("alice", "/copy.md")
	env.awaitFile(t, "delete removes chunks and state", c.ID, func(ix indexed) bool { return len(ix.points) == 0 && ix.state.ID == 0 })
	trash := sim.Trash("alice")
	if len(trash) != 1 {
		t.Fatalf("trash = %+v", trash)
	}
	r := sim.Restore("alice", trash[0].Name)
	env.awaitFile(t, "restore indexed", r.ID, func(ix indexed) bool {
		return ix.state.Status == hs.StatusIndexed && len(ix.points) > 0 && ix.points[0].File.Path == "/copy.md"
	})
}

func TestLiveIndexingNotes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true})
	sim := env.Sim
	n := sim.CreateNote("alice", "Groceries", "Home", "milk, eggs and saffron")
	ix := env.awaitFile(t, "note indexed", n.ID, func(ix indexed) bool { return ix.state.Status == hs.StatusIndexed && len(ix.points) > 0 })
	p := ix.points[0].File
	if p.Type != hs.DocNote || p.Title != "Groceries" || p.Path != "/Notes/Home/Groceries.md" {
		t.Fatalf("note meta = %+v", p)
	}

	notes := func(method, path, body string, hdr ...string) int {
		req, _ := http.NewRequest(method, sim.BaseURL+"/index.php/apps/notes/api/v1/notes"+path, strings.NewReader(body))
		req.SetBasicAuth("alice", env.Alice.AppPassword)
		req.Header.Set("Content-Type", "application/json")
		resp, _ := doReq(t, req)
		return resp.StatusCode
	}
	if code := notes(http.MethodPut, fmt.Sprintf("/%d", n.ID), `{"content":"milk, eggs and cardamom"}`); code != 200 {
		t.Fatalf("edit note = %d", code)
	}
	env.awaitFile(t, "note edit", n.ID, func(ix indexed) bool { return strings.Contains(text(ix.points), "cardamom") })
	if code := notes(http.MethodPut, fmt.Sprintf("/%d", n.ID), `{"title":"Shopping","category":"Errands"}`); code != 200 {
		t.Fatalf("rename note = %d", code)
	}
	env.awaitFile(t, "note rename", n.ID, func(ix indexed) bool {
		return len(ix.points) > 0 && ix.points[0].File.Path == "/Notes/Errands/Shopping.md" && ix.points[0].File.Title == "Shopping"
	})
	if code := notes(http.MethodDelete, fmt.Sprintf("/%d", n.ID), ""); code != 200 {
		t.Fatalf("delete note = %d", code)
	}
	env.awaitFile(t, "note delete", n.ID, func(ix indexed) bool { return len(ix.points) == 0 })
}

func TestSharesArriveByScan(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true})
	sim := env.Sim
	ctx := context.Background()
	f := sim.PutFile("alice", "/Shared/report.md", []byte("Quarterly numbers for the narwhal project."))
	env.awaitFile(t, "indexed", f.ID, isIndexed(f.ETag))
	ls := env.Main.Store.(*local.Store)
	files := func(u hs.UserID) []hs.FileID {
		metas, err := ls.Files(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		var ids []hs.FileID
		for _, m := range metas {
			ids = append(ids, m.ID)
		}
		return ids
	}
	if slices.Contains(files("bob"), hs.FileID(f.ID)) {
		t.Fatal("bob reads alice's file before any share")
	}
	sh := sim.Share("alice", "/Shared/report.md", "bob")
	if err := env.Main.Scanner.ScanUser(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	env.awaitFile(t, "bob added as reader", f.ID, func(ix indexed) bool { return slices.Equal(ix.state.Readers, []hs.UserID{"alice", "bob"}) })
	await(t, "bob reads the shared file", 10*time.Second, func() bool { return slices.Contains(files("bob"), hs.FileID(f.ID)) })
	if got := env.lookup(t, f.ID).state.Paths["bob"]; got != "/report.md" {
		t.Errorf("bob's path = %q, want /report.md", got)
	}

	sim.Unshare(sh.ID)
	if err := env.Main.Scanner.ScanUser(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	env.awaitFile(t, "bob removed", f.ID, func(ix indexed) bool { return slices.Equal(ix.state.Readers, []hs.UserID{"alice"}) })
	await(t, "bob no longer reads it", 10*time.Second, func() bool { return !slices.Contains(files("bob"), hs.FileID(f.ID)) })
	if !slices.Contains(files("alice"), hs.FileID(f.ID)) {
		t.Error("alice lost her own file")
	}
}

func TestLostAndDuplicateWebhooks(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true})
	sim := env.Sim
	ctx := context.Background()

	// Lost: the webhook never arrives; the scan catches the change.
	sim.PauseWebhooks()
	lost := sim.PutFile("alice", "/lost.md", []byte("A file whose events were lost: capybara."))
	sim.DropNextWebhooks(sim.QueuedWebhooks())
	sim.ResumeWebhooks()
	if err := sim.FlushWebhooks(ctx); err != nil {
		t.Fatal(err)
	}
	if ix := env.lookup(t, lost.ID); len(ix.points) != 0 {
		t.Fatal("indexed although every webhook was dropped")
	}
	if err := env.Main.Scanner.ScanAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	env.awaitFile(t, "scan catches the lost file", lost.ID, isIndexed(lost.ETag))

	// Twice and out of order: a stale delete event for a file that exists,
	// and the same write event twice, leave the index matching Nextcloud.
	f := sim.PutFile("alice", "/dup.md", []byte("Duplicate deliveries: axolotl."))
	env.awaitFile(t, "indexed", f.ID, isIndexed(f.ETag))
	post := func(body string) {
		req, _ := http.NewRequest(http.MethodPost, env.appURL()+"/webhook", strings.NewReader(body))
		req.Header.Set("EX-APP-ID", "hybrid_search")
		req.Header.Set("EX-APP-VERSION", "0.1.0")
		req.Header.Set("AUTHORIZATION-APP-API", base64.StdEncoding.EncodeToString([]byte(":"+env.Main.Config.AppSecret)))
		if resp, b := doReq(t, req); resp.StatusCode != 200 {
			t.Fatalf("webhook = %d %s", resp.StatusCode, b)
		}
	}
	written := fmt.Sprintf(`{"event":{"class":"OCP\\Files\\Events\\Node\\NodeWrittenEvent","node":{"id":%d,"path":"/alice/files/dup.md"}},"user":{"uid":"alice"},"time":%d}`, f.ID, time.Now().Unix())
	deleted := fmt.Sprintf(`{"event":{"class":"OCP\\Files\\Events\\Node\\NodeDeletedEvent","node":{"id":%d,"path":"/alice/files/dup.md"}},"user":{"uid":"alice"},"time":%d}`, f.ID, time.Now().Unix()-60)
	f2 := sim.PutFile("alice", "/dup.md", []byte("Duplicate deliveries: axolotl and okapi."))
	post(written)
	post(written)
	post(deleted)
	env.awaitFile(t, "converged to the latest content", f.ID, func(ix indexed) bool {
		return isIndexed(f2.ETag)(ix) && strings.Contains(text(ix.points), "okapi")
	})
	// Nothing else is queued that could undo it.
	await(t, "queue drained", 10*time.Second, func() bool { n, _ := env.Main.Queue.Pending(ctx); return n == 0 })
	if ix := env.lookup(t, f.ID); !isIndexed(f2.ETag)(ix) {
		t.Errorf("after draining: %+v", ix.state)
	}
}

func TestStatusThroughProxy(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true, setup: func(sim *ncsim.Server) {
		sim.SeedFile("alice", "/a.md", []byte("alpha"))
		sim.SeedFile("alice", "/b.txt", []byte("bravo"))
		sim.SeedFile("alice", "/clip.mp4", []byte("\x00\x00\x00\x18ftypmp42 binary"))
		sim.SeedFile("bob", "/c.md", []byte("charlie"))
	}})
	await(t, "initial index", 20*time.Second, func() bool {
		n, _ := env.Main.Queue.Pending(context.Background())
		return n == 0 && env.lookup(t, env.mustStat(t, "alice", "/a.md").ID).state.Status == hs.StatusIndexed &&
			env.lookup(t, env.mustStat(t, "alice", "/clip.mp4").ID).state.Status == hs.StatusSkipped
	})
	resp, body := env.proxyGet(t, &env.Alice, "api/status")
	if resp.StatusCode != 200 || !strings.Contains(body, `"indexed":2`) || !strings.Contains(body, `"skipped":1`) || !strings.Contains(body, "unsupported file type") {
		t.Errorf("alice's status = %d %s", resp.StatusCode, body)
	}
	resp, body = env.proxyGet(t, &env.Bob, "api/status")
	if resp.StatusCode != 200 || !strings.Contains(body, `"indexed":1`) || strings.Contains(body, "clip.mp4") {
		t.Errorf("bob's status = %d %s", resp.StatusCode, body)
	}
	// Every user's counts: admins only (alice is an admin, bob is not).
	resp, body = env.proxyGet(t, &env.Alice, "api/status?all=1")
	if resp.StatusCode != 200 || !strings.Contains(body, `"per_user"`) || !strings.Contains(body, `"bob"`) {
		t.Errorf("admin status = %d %s", resp.StatusCode, body)
	}
	resp, _ = env.proxyGet(t, &env.Bob, "api/status?all=1")
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("all-users status for bob = %d, want 403", resp.StatusCode)
	}
}

func (e *testEnv) mustStat(t *testing.T, uid, path string) ncsim.FileInfo {
	t.Helper()
	f, ok := e.Sim.Stat(uid, path)
	if !ok {
		t.Fatalf("no %s in %s's files", path, uid)
	}
	return f
}

// Two writes within one second carry identical webhook envelopes (the
// time is in whole seconds); the second must not be dropped as a duplicate.
func TestTwoWritesInOneSecond(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true})
	f := env.Sim.PutFile("alice", "/fast.md", []byte("first version: ibis"))
	env.awaitFile(t, "first version", f.ID, isIndexed(f.ETag))
	g := env.Sim.PutFile("alice", "/fast.md", []byte("second version: heron"))
	h := env.Sim.PutFile("alice", "/fast.md", []byte("third version: stork"))
	_ = g
	env.awaitFile(t, "last version", f.ID, func(ix indexed) bool {
		return isIndexed(h.ETag)(ix) && strings.Contains(text(ix.points), "stork")
	})
}

// Turning semantic search on (a new embedding model) starts a new index:
// files recorded for the old one are indexed again, with vectors.
func TestModelChangeReindexes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, envOptions{install: true})
	f := env.Sim.PutFile("alice", "/m.md", []byte("# Model\n\nIndexed before Ollama was configured: a gecko."))
	env.awaitFile(t, "indexed without vectors", f.ID, isIndexed(f.ETag))
	if err := env.Main.Close(); err != nil {
		t.Fatal(err)
	}
	ollama := embeddingtest.NewServer(t)
	old := env.getenv
	env.getenv = func(k string) string {
		switch k {
		case "OLLAMA_HOST":
			return ollama.URL
		case "EMBED_MODEL":
			return "nomic-embed-text"
		}
		return old(k)
	}
	env.start(t)
	if err := env.Main.Scanner.ScanAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	await(t, "re-indexed with vectors", 20*time.Second, func() bool {
		pts, err := env.Main.Store.FilePoints(context.Background(), hs.FileID(f.ID), true)
		return err == nil && len(pts) > 0 && len(pts[0].Dense) == 768
	})
}
