package app

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/qdrant/go-client/qdrant"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/embedding/embeddingtest"
	"github.com/hybrid-search/hybridsearch/kv"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
	"github.com/hybrid-search/hybridsearch/queue"
	"github.com/hybrid-search/hybridsearch/queue/natstest"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
)

// clusterDoc is file i's text: every sentence names the file, so no two
// files share a chunk and each embed input tells whose it is.
func clusterDoc(i int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Ledger %d\n\n", i)
	for s := 0; s < 2+i%5; s++ {
		fmt.Fprintf(&b, "Entry %d of ledger%d records shipment-%d to depot-%d. ", s, i, i*11+s, i%23)
	}
	return []byte(b.String())
}

var ledgerRE = regexp.MustCompile(`ledger(\d+)`)

// poll is await at a slower pace, for conditions that cost something to
// check on a loaded machine; state, if given, says what was seen last.
func poll(t testing.TB, what string, timeout time.Duration, cond func() bool, state ...func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			last := ""
			for _, s := range state {
				last = ": " + s()
			}
			// Where everything waits, for the post-mortem.
			if os.MkdirAll("../.artifacts", 0o755) == nil {
				if f, err := os.Create("../.artifacts/" + t.Name() + "-goroutines.txt"); err == nil {
					_ = pprof.Lookup("goroutine").WriteTo(f, 2)
					f.Close()
				}
			}
			t.Fatalf("timed out after %s waiting for %s%s", timeout, what, last)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// The queue on a real 3-node NATS cluster (streams and buckets with three
// replicas): a node dies while 500 files index — once the one the app is
// connected to, once another — and nothing is lost, no chunk is embedded
// twice, the workers go on; each node restarted catches up.
func TestNATSClusterNodeLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 3-node NATS cluster and indexes 500 files")
	}
	const files = 500
	start := time.Now()
	cluster := natstest.RunCluster(t, 3)
	qd := qdranttest.NewServer(t)
	ollama := embeddingtest.NewServer(t)
	env := newTestEnv(t, envOptions{
		install: true,
		extra: map[string]string{
			"NATS_URL": cluster.URLs(), "NATS_REPLICAS": "3",
			"QDRANT_URL": qd.URL(), "OLLAMA_HOST": ollama.URL, "EMBED_MODEL": "nomic-embed-text",
			"WORKERS": "8", "LOG_LEVEL": "warn",
		},
		// A job whose acknowledgement died with a node comes back soon.
		adjust: func(c *Config) { c.AckWait = 5 * time.Second },
		setup: func(sim *ncsim.Server) {
			for i := 0; i < files; i++ {
				sim.SeedFile("alice", fmt.Sprintf("/ledgers/l%03d.md", i), clusterDoc(i))
			}
		},
	})
	t.Logf("cluster up, app installed: %s", time.Since(start).Round(time.Millisecond))
	ctx := context.Background()

	// written counts the upserts that carried each file's points.
	written := func() map[int64]int {
		n := map[int64]int{}
		for _, m := range qd.RequestsFor(qdrant.Points_Upsert_FullMethodName) {
			seen := map[int64]bool{}
			for _, p := range m.(*qdrant.UpsertPoints).GetPoints() {
				seen[p.GetPayload()["file_id"].GetIntegerValue()] = true
			}
			for id := range seen {
				n[id]++
			}
		}
		return n
	}
	awaitWritten := func(what string, atLeast int) {
		t.Helper()
		poll(t, what, 60*time.Second, func() bool { return len(written()) >= atLeast })
	}
	// The streams of the queue and its per-file state on the cluster.
	streams := []string{queue.DefaultStream, queue.DefaultStream + "_RETRY", "KV_" + kv.FilesBucket, "KV_" + kv.LeasesBucket}
	checkReplicas := func() {
		t.Helper()
		js, err := jetstream.New(env.Main.NATS)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range streams {
			s, err := js.Stream(ctx, name)
			if err != nil {
				t.Fatalf("stream %s: %v", name, err)
			}
			if r := s.CachedInfo().Config.Replicas; r != 3 {
				t.Errorf("stream %s has %d replicas, want 3", name, r)
			}
		}
	}
	checkReplicas()

	kill := func(i int, why string) {
		t.Helper()
		before := len(written())
		cluster.Shutdown(i)
		t.Logf("node %d (%s) shut down at %d/%d files written, %s", i, why, before, files, time.Since(start).Round(time.Millisecond))
		// The workers go on without the node.
		awaitWritten(fmt.Sprintf("indexing to go on without node %d", i), min(files, before+60))
		t.Logf("indexing went on to %d files without node %d", len(written()), i)
		cluster.Restart(i)
		// The restarted node catches up: it is current on every stream.
		poll(t, fmt.Sprintf("node %d to catch up", i), 60*time.Second, func() bool {
			n := cluster.Node(i)
			for _, name := range streams {
				if !n.JetStreamIsStreamCurrent("$G", name) {
					return false
				}
			}
			return true
		})
		t.Logf("node %d restarted and current, %s", i, time.Since(start).Round(time.Millisecond))
	}

	// First the node the app is connected to.
	awaitWritten("indexing to start", 60)
	connected := cluster.Index(env.Main.NATS.ConnectedUrl())
	if connected < 0 {
		t.Fatalf("connected to %q, not a cluster node", env.Main.NATS.ConnectedUrl())
	}
	kill(connected, "the app's")
	now := cluster.Index(env.Main.NATS.ConnectedUrl())
	if now == connected || now < 0 {
		t.Fatalf("app connected to node %d after node %d went away", now, connected)
	}
	// Then one the app is not connected to.
	other := 3 - connected - now
	kill(other, "another")

	// Nothing lost: every file indexed, no job left, no dead letter.
	poll(t, "every file written", 120*time.Second, func() bool { return len(written()) >= files })
	var pending int
	var perr error
	poll(t, "the queue to drain", 60*time.Second, func() bool {
		pending, perr = env.Main.Queue.Pending(ctx)
		return perr == nil && pending == 0
	}, func() string { return fmt.Sprintf("pending %d, %v; %s", pending, perr, queueInfo(t, env)) })
	indexed := 0
	for id := range written() {
		st, _, err := env.Main.KV.States().Get(ctx, hs.FileID(id))
		if err == nil && st.Status == hs.StatusIndexed {
			indexed++
		}
	}
	if indexed != files {
		t.Errorf("%d of %d files indexed", indexed, files)
	}
	if dead, err := env.Main.Queue.DeadLetters(ctx); err != nil || len(dead) > 0 {
		t.Errorf("dead letters = %v, %v; want none", dead, err)
	}
	checkReplicas()

	// Nothing indexed twice: no chunk went to the embedder twice. A file
	// whose points were written but whose state write was cut by the loss
	// of a node is written again with its vectors reused (the write is
	// idempotent: same point ids).
	embeds := map[string]int{}
	for _, r := range ollama.Requests() {
		if r.Path != "/api/embed" || r.Status != 200 {
			continue
		}
		for _, in := range r.Inputs {
			if ledgerRE.MatchString(in) {
				embeds[in]++
			}
		}
	}
	twice, perFile := 0, map[int]bool{}
	for in, n := range embeds {
		if n > 1 {
			twice++
		}
		i, _ := strconv.Atoi(ledgerRE.FindStringSubmatch(in)[1])
		perFile[i] = true
	}
	if twice > 0 || len(perFile) != files {
		t.Errorf("%d chunks embedded more than once; chunks of %d files embedded, want %d", twice, len(perFile), files)
	}
	rewritten := 0
	for _, n := range written() {
		if n > 1 {
			rewritten++
		}
	}
	t.Logf("outcome: %d/%d files indexed, %d chunks embedded (%d twice), %d files' points written more than once, 0 dead letters, %s",
		indexed, files, len(embeds), twice, rewritten, time.Since(start).Round(time.Millisecond))
}

// queueInfo describes the queue's consumers and streams, for failures.
func queueInfo(t testing.TB, env *testEnv) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	js, err := jetstream.New(env.Main.NATS)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, sc := range [][2]string{{queue.DefaultStream, queue.ConsumerName}, {queue.DefaultStream + "_RETRY", queue.RetryConsumer}} {
		s, err := js.Stream(ctx, sc[0])
		if err != nil {
			fmt.Fprintf(&b, "stream %s: %v; ", sc[0], err)
			continue
		}
		si := s.CachedInfo()
		fmt.Fprintf(&b, "stream %s: msgs %d first %d last %d; ", sc[0], si.State.Msgs, si.State.FirstSeq, si.State.LastSeq)
		c, err := s.Consumer(ctx, sc[1])
		if err != nil {
			fmt.Fprintf(&b, "consumer %s: %v; ", sc[1], err)
			continue
		}
		ci := c.CachedInfo()
		fmt.Fprintf(&b, "consumer %s: pending %d ack-pending %d redelivered %d waiting %d delivered %d acked %d; ",
			sc[1], ci.NumPending, ci.NumAckPending, ci.NumRedelivered, ci.NumWaiting, ci.Delivered.Stream, ci.AckFloor.Stream)
	}
	return b.String()
}
