package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/queue/natstest"
	"github.com/hybrid-search/hybridsearch/store/qdrant"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
)

// The production shape: an external NATS (NATS_URL) and Qdrant
// (QDRANT_URL, against the in-process gRPC fake) behave like the embedded
// defaults.
func TestExternalNATSAndQdrant(t *testing.T) {
	t.Parallel()
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
	if _, ok := env.Main.Store.(*qdrant.Store); !ok {
		t.Fatalf("store is %T, want *qdrant.Store", env.Main.Store)
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
	if n := len(qd.RequestsFor(qc.Points_Upsert_FullMethodName)); n == 0 {
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

// A store outage: Qdrant refuses writes for a while; the file waits,
// status says why, and it is indexed once Qdrant answers again.
func TestStoreOutage(t *testing.T) {
	t.Parallel()
	qd := qdranttest.NewServer(t)
	ollama := embeddingtest.NewServer(t)
	env := newTestEnv(t, envOptions{install: true, extra: map[string]string{
		"QDRANT_URL": qd.URL(), "OLLAMA_HOST": ollama.URL, "EMBED_MODEL": "nomic-embed-text",
	}})
	for i := 0; i < 3; i++ {
		qd.FailNext(qc.Points_Upsert_FullMethodName, codes.Unavailable)
	}
	f := env.Sim.PutFile("alice", "/outage.md", []byte("Written while Qdrant refused writes: a dugong."))
	env.awaitFile(t, "pending with the reason", f.ID, func(ix indexed) bool {
		return ix.state.Status == hs.StatusPending && strings.Contains(ix.state.Error, "unavailable")
	})
	env.awaitFile(t, "indexed after the outage", f.ID, isIndexed(f.ETag))
}
