package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/qdrant/go-client/qdrant"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/queue/natstest"
	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
)

// The production shape: an external NATS (NATS_URL) and Qdrant
// (QDRANT_URL, against the in-process gRPC fake) behave like the embedded
// defaults.
func TestExternalNATSAndQdrant(t *testing.T) {
	ns := natstest.Run(t)
	qd := qdranttest.NewServer(t)
	ollama := embeddingtest.NewServer(t)
	env := newTestEnv(t, envOptions{install: true, extra: map[string]string{
		"NATS_URL":    ns.ClientURL(),
		"QDRANT_URL":  qd.URL(),
		"OLLAMA_HOST": ollama.URL,
		"EMBED_MODEL": "nomic-embed-text",
	}})
	if env.Main.NATSServer != nil {
		t.Fatal("an embedded NATS server started although NATS_URL is set")
	}
	if _, ok := env.Main.Store.(*store.Qdrant); !ok {
		t.Fatalf("store is %T, want *store.Qdrant", env.Main.Store)
	}
	f := env.Sim.PutFile("alice", "/q.md", []byte("# Qdrant\n\nStored in Qdrant: the okapi."))
	ix := env.awaitFile(t, "indexed into qdrant", f.ID, isIndexed(f.ETag))
	if !strings.Contains(text(ix.points), "okapi") || !slices.Equal(ix.points[0].File.Readers, []hs.UserID{"alice"}) {
		t.Fatalf("points = %+v", ix.points)
	}
	pts, err := env.Main.Store.FilePoints(context.Background(), hs.FileID(f.ID), true)
	if err != nil || len(pts[0].Dense) != 768 {
		t.Fatalf("dense vector missing in qdrant: %v", err)
	}
	if n := len(qd.RequestsFor(qdrant.Points_Upsert_FullMethodName)); n == 0 {
		t.Error("no upsert reached qdrant")
	}
	// The job went through the external server's stream.
	nc := natstest.Connect(t, ns)
	js, err := nc.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	info, err := js.StreamInfo("HYBRIDSEARCH_JOBS")
	if err != nil || info.State.LastSeq == 0 {
		t.Errorf("external stream = %+v, %v; want jobs published there", info, err)
	}
}
