package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

// unembeddable is a Markdown file whose second section sits under a
// heading of non-ASCII words: with a model whose vocabulary is ASCII only
// and whose context is 24 tokens, Ollama cannot truncate any input that
// carries that heading (its [UNK] pieces encode longer again), however
// the chunk is split.
const unembeddable = "# Plan\n\nThe wombat budget meeting is on Monday.\n\n" +
	"## Übergrößen für Öfen, Äpfel, Bäume, Flüsse, Brücken, Straßen, Gebäude, Türme, Wände, Räder, Bürger, Hände, Füße, Köpfe, Länder, Städte, Dörfer, Wälder, Täler, Höhen, Tücher, Grüße\n\n" +
	"Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich."

// TestUnembeddableChunkKeepsFileSearchable: one chunk Ollama cannot embed
// no longer keeps the whole file out of the index. The file is found by
// keyword now; the missing vector is a problem with its reason in
// /api/status, the CLI and nc_index_status; it is tried again with the
// queue's backoff a bounded number of times, and nothing becomes a dead
// letter.
func TestUnembeddableChunkKeepsFileSearchable(t *testing.T) {
	t.Parallel()
	ollama := embeddingtest.NewServer(t)
	m := embeddingtest.KnownModel("all-minilm")
	m.ContextLength, m.ASCIIVocab = 24, true
	ollama.SetModels(m)
	env := newTestEnv(t, envOptions{install: true, extra: map[string]string{"OLLAMA_HOST": ollama.URL, "EMBED_MODEL": "all-minilm"}})
	f := env.Sim.PutFile("alice", "/Docs/plan.md", []byte(unembeddable))

	ix := env.awaitFile(t, "indexed without one vector", f.ID, func(ix indexed) bool {
		return ix.state.Status == hs.StatusIndexed && ix.state.NoVectors == 1 && len(ix.points) >= 2
	})
	if !strings.Contains(ix.state.Error, "have no vector") || !strings.Contains(ix.state.Error, "the input length exceeds the context length") {
		t.Errorf("recorded reason = %q", ix.state.Error)
	}
	for _, q := range []string{"wombat", "Boxkämpfer"} {
		res, body := env.searchAs(t, &env.Alice, "q="+q+"&algorithm=keyword")
		if len(res.Results) == 0 || res.Results[0].FileID != hs.FileID(f.ID) {
			t.Errorf("keyword search for %s does not find the file:\n%s", q, body)
		}
	}
	if res, body := env.searchAs(t, &env.Alice, "q=wombat+budget&algorithm=semantic"); len(res.Results) == 0 {
		t.Errorf("semantic search does not find the chunks that have vectors:\n%s", body)
	}

	_, body := env.proxyGet(t, &env.Alice, "api/status")
	var rep hs.IndexStatus
	if err := json.Unmarshal([]byte(body), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Status != hs.ProblemPartial || rep.Problems[0].Path != "/Docs/plan.md" ||
		!strings.Contains(rep.Problems[0].Error, "exceeds the context length") || rep.Files.Indexed != 1 {
		t.Errorf("status = %s", body)
	}
	text := toolText(env.mcpCall(t, &env.Alice, "nc_index_status", map[string]any{}))
	if !strings.Contains(text, "/Docs/plan.md (partial): 1 of ") {
		t.Errorf("nc_index_status does not list the missing vector:\n%s", text)
	}
	var out strings.Builder
	if err := runStatus(context.Background(), []string{"--user", "alice"}, env.getenv, &out, &out); err != nil || !strings.Contains(out.String(), "partial  /Docs/plan.md: 1 of") {
		t.Errorf("hybridsearch status = %v\n%s", err, out.String())
	}

	// Retried with backoff (200 ms, 500 ms, then 1 s in tests) until the
	// pipeline's 6 tries are made; then left alone, indexed, not failed.
	ix = env.awaitFile(t, "the tries made", f.ID, func(ix indexed) bool { return ix.state.Attempts >= 6 })
	sent := len(ollama.EmbedRequests())
	time.Sleep(1500 * time.Millisecond) // past the longest backoff: no seventh try may come
	ix = env.lookup(t, f.ID)
	if ix.state.Status != hs.StatusIndexed || ix.state.Attempts != 6 || ix.state.NoVectors != 1 {
		t.Errorf("state after the tries = %+v", ix.state)
	}
	if n := len(ollama.EmbedRequests()); n != sent {
		t.Errorf("%d more embed requests after the last try", n-sent)
	}
	if dead, err := env.Main.Queue.DeadLetters(context.Background()); err != nil || len(dead) != 0 {
		t.Errorf("dead letters = %+v, %v", dead, err)
	}
}

// TestOllamaHostsInStatus: /api/status names each Ollama host's health, so
// a dead one of two shows; with none answering the queue reads "paused"
// (API, CLI, MCP); indexing goes on when one is back. No request forces
// num_ctx (the model's default fits the chunks), so the model is loaded
// once.
func TestOllamaHostsInStatus(t *testing.T) {
	t.Parallel()
	a, b := embeddingtest.NewServer(t), embeddingtest.NewServer(t)
	env := newTestEnv(t, envOptions{install: true, extra: map[string]string{"OLLAMA_HOST": a.URL + "," + b.URL, "EMBED_MODEL": "nomic-embed-text"}})
	status := func() (hs.IndexStatus, string) {
		t.Helper()
		_, body := env.proxyGet(t, &env.Alice, "api/status") // alice is an admin
		var rep hs.IndexStatus
		if err := json.Unmarshal([]byte(body), &rep); err != nil {
			t.Fatalf("status: %v\n%s", err, body)
		}
		return rep, body
	}

	b.Down()
	rep, body := status()
	if len(rep.Embedders) != 2 || !rep.Embedders[0].OK || rep.Embedders[1].OK || rep.Embedders[1].Host != b.URL ||
		!strings.Contains(rep.Embedders[1].Error, "unreachable") || !rep.Components["embedder"].OK {
		t.Errorf("status with one of two hosts down:\n%s", body)
	}
	_, bobBody := env.proxyGet(t, &env.Bob, "api/status")
	if strings.Contains(bobBody, `"embedders"`) || strings.Contains(bobBody, a.URL) {
		t.Errorf("a user who is not an admin sees the hosts:\n%s", bobBody)
	}

	a.Down()
	f := env.Sim.PutFile("alice", "/while-down.md", []byte("Written while no Ollama answers: numbat."))
	env.awaitFile(t, "pending", f.ID, func(ix indexed) bool { return ix.state.Status == hs.StatusPending })
	await(t, "the queue paused", 10*time.Second, func() bool { rep, _ = status(); return rep.Queue.Paused })
	if rep.Queue.PausedReason != "no embedding host answers" || rep.Queue.ETASeconds != 0 || rep.Components["embedder"].OK {
		t.Errorf("paused queue = %+v, embedder %+v", rep.Queue, rep.Components["embedder"])
	}
	var out strings.Builder
	if err := runStatus(context.Background(), []string{"--user", "alice"}, env.getenv, &out, &out); err != nil ||
		!strings.Contains(out.String(), "ETA paused (no embedding host answers)") || !strings.Contains(out.String(), "ollama "+b.URL) {
		t.Errorf("hybridsearch status = %v\n%s", err, out.String())
	}
	text := toolText(env.mcpCall(t, &env.Alice, "nc_index_status", map[string]any{}))
	if !strings.Contains(text, "paused: no embedding host answers") || !strings.Contains(text, "Embedding host "+a.URL+" is unavailable") {
		t.Errorf("nc_index_status while no host answers:\n%s", text)
	}
	_, bobBody = env.proxyGet(t, &env.Bob, "api/status")
	if strings.Contains(bobBody, a.URL) || strings.Contains(bobBody, "127.0.0.1") {
		t.Errorf("a user who is not an admin sees an internal address:\n%s", bobBody)
	}

	a.Up()
	env.awaitFile(t, "indexed once a host is back", f.ID, isIndexed(f.ETag))
	await(t, "the queue running again", 10*time.Second, func() bool { rep, _ = status(); return !rep.Queue.Paused })

	for _, s := range []*embeddingtest.Server{a, b} {
		for _, r := range s.EmbedRequests() {
			if n, ok := r.Options["num_ctx"]; ok {
				t.Fatalf("an embed request forces num_ctx %v", n)
			}
		}
	}
	if n := a.Loads("nomic-embed-text"); n != 1 {
		t.Errorf("the model was loaded %d times on %s, want 1", n, a.URL)
	}
}
