package app

import (
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
)

// TestKeepAliveSetting: the app sends no keep_alive unless
// EMBED_KEEP_ALIVE (or its admin field) sets one, so Ollama keeps the
// model as its own setting says; the admin's value applies within seconds,
// to the same index (nothing is indexed again).
func TestKeepAliveSetting(t *testing.T) {
	t.Parallel()
	ollama := embeddingtest.NewServer(t)
	env := settingsEnv(t, envOptions{extra: map[string]string{"OLLAMA_HOST": ollama.URL, "EMBED_MODEL": "nomic-embed-text"}})
	f := env.Sim.PutFile("alice", "/a.md", []byte("The okapi enclosure."))
	env.awaitFile(t, "indexed", f.ID, isIndexed(f.ETag))
	env.searchAs(t, &env.Alice, "q=okapi")
	reqs := ollama.EmbedRequests()
	if len(reqs) < 2 {
		t.Fatalf("%d embed requests, want the file's and the query's", len(reqs))
	}
	for _, r := range reqs {
		if r.KeepAlive != nil {
			t.Errorf("keep_alive %s sent with no EMBED_KEEP_ALIVE; want none (Ollama's own setting)", *r.KeepAlive)
		}
	}
	index := env.Main.Engine().IndexID
	env.setAdmin(t, "embed_keep_alive", "2m")
	await(t, "the keep-alive applied", 10*time.Second, func() bool {
		ka := env.Main.Engine().Config.EmbedKeepAlive
		return ka != nil && *ka == 2*time.Minute
	})
	if e := env.Main.Engine(); e.IndexID != index || env.Main.Serving() != e {
		t.Errorf("a keep-alive change opened index %q (was %q) or left the engine not serving", e.IndexID, index)
	}
	ollama.ResetRequests()
	env.searchAs(t, &env.Alice, "q=enclosure")
	reqs = ollama.EmbedRequests()
	if len(reqs) == 0 || reqs[0].KeepAlive == nil || *reqs[0].KeepAlive != 2*time.Minute {
		t.Errorf("after the admin set 2m: %+v", reqs)
	}
}
