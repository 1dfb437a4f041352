package search_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/protobuf/proto"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/search"
	"github.com/hybrid-search/hybridsearch/store/qdranttest"
)

// isolationDocs mixes alice's and bob's documents on the same topics, so
// every query finds candidates of both, plus one file shared by both.
var isolationDocs = []doc{
	{ID: 11, Path: "/Private/Salary review.md", Readers: []hs.UserID{"alice"}, Text: "# Salary review\n\nAlice's salary review: kubernetes certification bonus, budget 2025, code ALICE-7731."},
	{ID: 12, Path: "/Notes/Alice diary.md", Type: hs.DocNote, Readers: []hs.UserID{"alice"}, Text: "# Diary\n\nThe kubernetes upgrade went fine; the budget meeting did not. ALICE-7731 again."},
	{ID: 21, Path: "/Private/Salary review.md", Readers: []hs.UserID{"bob"}, Text: "# Salary review\n\nBob's salary review: kubernetes on-call bonus, budget 2025, code BOB-4410."},
	{ID: 22, Path: "/Notes/Bob diary.md", Type: hs.DocNote, Readers: []hs.UserID{"bob"}, Text: "# Diary\n\nKubernetes upgrade postponed; budget meeting moved. BOB-4410 pending."},
	{ID: 30, Path: "/Shared/Kubernetes upgrade plan.md", Readers: []hs.UserID{"alice", "bob"}, Text: "# Kubernetes upgrade plan\n\nThe team upgrades the kubernetes cluster in March; the budget covers two extra nodes."},
}

// readable returns the documents user may read.
func readable(user hs.UserID) map[hs.FileID]bool {
	out := map[hs.FileID]bool{}
	for _, d := range isolationDocs {
		if slices.Contains(d.meta().Readers, user) {
			out[d.ID] = true
		}
	}
	return out
}

// TestIsolation checks that every algorithm, fusion, filter and the
// explain output show a user only documents they may read, on both stores,
// and that every Qdrant query carries the user's readers filter.
func TestIsolation(t *testing.T) {
	queries := []string{"kubernetes upgrade budget", "salary review bonus", "ALICE-7731", "BOB-4410", "kubernets", "diary"}
	requests := []hs.SearchRequest{
		{},
		{Fusion: hs.FusionLinear},
		{Fusion: hs.FusionAuto},
		{Algorithm: hs.AlgorithmSemantic},
		{Algorithm: hs.AlgorithmKeyword},
		{Algorithm: hs.AlgorithmFuzzy},
		{Filter: hs.Filter{Types: []hs.DocType{hs.DocNote}}},
		{Filter: hs.Filter{PathPrefix: "/Private"}},
		{Filter: hs.Filter{MIMEs: []string{"text/markdown"}, ModifiedAfter: baseTime.AddDate(-1, 0, 0)}},
		{TopK: 50},
	}
	for _, kind := range []string{"local", "qdrant"} {
		t.Run(kind, func(t *testing.T) {
			var st testStore
			var srv *qdranttest.Server
			if kind == "local" {
				st = openLocal(t)
			} else {
				st, srv = openQdrantServer(t)
			}
			mustIndex(t, st, isolationDocs...)
			svc := mustService(t, st)
			for _, user := range []hs.UserID{"alice", "bob", "carol"} {
				allowed := readable(user)
				found := map[hs.FileID]bool{}
				for _, q := range queries {
					for _, req := range requests {
						req.Query, req.Explain = q, true
						res := mustSearch(t, svc, user, req)
						for _, r := range res.Results {
							found[r.FileID] = true
							if !allowed[r.FileID] {
								t.Errorf("%s searching %q %+v got file %d", user, q, req, r.FileID)
							}
							for _, text := range append([]string{r.Excerpt.Text, r.Path, r.Title}, excerptTexts(r.More)...) {
								if other := otherCode(user); other != "" && strings.Contains(text, other) {
									t.Errorf("%s saw %s in %q", user, other, text)
								}
							}
						}
					}
				}
				if user != "carol" && !found[30] {
					t.Errorf("%s never found the shared file", user)
				}
				if user == "carol" && len(found) > 0 {
					t.Errorf("carol, who reads nothing, found %v", found)
				}
			}
			if srv != nil {
				checkReadersFilter(t, srv.RequestsFor(qdrant.Points_Query_FullMethodName))
			}
		})
	}
}

// otherCode is the secret code of the user's counterpart.
func otherCode(user hs.UserID) string {
	switch user {
	case "alice":
		return "BOB-4410"
	case "bob":
		return "ALICE-7731"
	}
	return ""
}

func excerptTexts(ex []hs.Excerpt) []string {
	var out []string
	for _, e := range ex {
		out = append(out, e.Text)
	}
	return out
}

// checkReadersFilter fails unless every query requires readers to contain
// a non-empty user.
func checkReadersFilter(t *testing.T, reqs []proto.Message) {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("no Qdrant queries recorded")
	}
	for _, m := range reqs {
		q := m.(*qdrant.QueryPoints)
		ok := false
		for _, c := range q.GetFilter().GetMust() {
			if fc := c.GetField(); fc.GetKey() == "readers" && fc.GetMatch().GetKeyword() != "" {
				ok = true
			}
		}
		if !ok {
			t.Errorf("Qdrant query without a readers filter: %v", q.GetFilter())
		}
	}
}

// TestUnshare: bob loses the shared file in Nextcloud before any scan
// notices; his next search drops it and queues it for re-indexing, while
// alice still finds it.
func TestUnshare(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			st := kind.open(t)
			mustIndex(t, st, isolationDocs...)
			access := &fakeAccess{}
			clock := &fakeClock{t: baseTime}
			var mu sync.Mutex
			var queued []hs.IndexJob
			svc := mustService(t, st, func(o *search.Options) {
				o.Access, o.Now = access, clock.now
				o.Requeue = func(_ context.Context, jobs ...hs.IndexJob) error {
					mu.Lock()
					defer mu.Unlock()
					queued = append(queued, jobs...)
					return nil
				}
			})
			req := hs.SearchRequest{Query: "kubernetes upgrade plan"}
			if got := ids(mustSearch(t, svc, "bob", req)); !slices.Contains(got, 30) {
				t.Fatalf("bob does not find the shared file before the unshare: %v", got)
			}
			// No answer is cached: the very next search asks Nextcloud.
			access.set("bob", 30, hs.Errorf(hs.ENOTFOUND, "find file 30 as bob: not visible"))
			res := mustSearch(t, svc, "bob", req)
			if slices.Contains(ids(res), 30) {
				t.Errorf("bob still finds the unshared file: %v", ids(res))
			}
			if res.Verification.Dropped != 1 || res.Verification.Checked != len(res.Results)+1 {
				t.Errorf("verification %+v with %d results", res.Verification, len(res.Results))
			}
			mu.Lock()
			got := slices.Clone(queued)
			mu.Unlock()
			if len(got) != 1 || got[0].FileID != 30 || got[0].User != "bob" || got[0].Reason != hs.ReasonVerify || got[0].Time.IsZero() {
				t.Errorf("queued %+v, want file 30 for bob, reason verify", got)
			}
			if got := ids(mustSearch(t, svc, "alice", req)); !slices.Contains(got, 30) {
				t.Errorf("alice lost the shared file too: %v", got)
			}
		})
	}
}
