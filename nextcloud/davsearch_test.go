package nextcloud_test

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

// TestFindByIDs: one SEARCH answers for a whole page of ids, as the user
// sees them: their own files, files shared with them at their own path,
// and nothing of others'.
func TestFindByIDs(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	var searches atomic.Int64
	sim.OnRequest = func(r *http.Request) {
		if r.Method == "SEARCH" {
			searches.Add(1)
		}
	}
	ctx := context.Background()
	own := sim.PutFile("alice", "/Notes/own.md", []byte("mine"))
	shared := sim.PutFile("bob", "/Secret/HR-X/review-X.md", []byte("for alice"))
	sim.Share("bob", "/Secret/HR-X/review-X.md", "alice")
	private := sim.PutFile("bob", "/Secret/private.md", []byte("bob only"))
	ids := []hs.FileID{hs.FileID(own.ID), hs.FileID(shared.ID), hs.FileID(private.ID), 987654}
	got, err := e.c.FindByIDs(ctx, "alice", ids)
	if err != nil {
		t.Fatalf("FindByIDs = %v", err)
	}
	if len(got) != 2 || got[hs.FileID(own.ID)].Path != "/Notes/own.md" || got[hs.FileID(shared.ID)].Path != "/review-X.md" {
		t.Errorf("FindByIDs(alice) = %+v, want her file and the shared one at her path /review-X.md", got)
	}
	if n := searches.Load(); n != 1 {
		t.Errorf("%d SEARCH requests for %d ids, want 1", n, len(ids))
	}

	// More ids than one request takes: several requests, one answer.
	var many []hs.FileID
	for i := range 2*nextcloud.MaxFindIDs + 3 {
		many = append(many, hs.FileID(sim.PutFile("alice", "/many/f"+strconv.Itoa(i)+".md", []byte("x")).ID))
	}
	searches.Store(0)
	got, err = e.c.FindByIDs(ctx, "alice", append(many, hs.FileID(private.ID)))
	if err != nil || len(got) != len(many) {
		t.Errorf("FindByIDs(%d ids) = %d found, %v", len(many)+1, len(got), err)
	}
	if n := searches.Load(); n != 3 {
		t.Errorf("%d SEARCH requests for %d ids, want 3", n, len(many)+1)
	}
	wantKind(t, "FindByIDs with a bad id", func() error { _, err := e.c.FindByIDs(ctx, "alice", []hs.FileID{0}); return err }(), hs.EINVALID)
	if got, err := e.c.FindByIDs(ctx, "alice", nil); err != nil || len(got) != 0 {
		t.Errorf("FindByIDs(no ids) = %v, %v", got, err)
	}
}
