package main

import (
	"slices"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

// TestNewFileInSharedFolder: alice shares a folder with bob and carol;
// later alice, then bob, upload a new file into it. Nextcloud fires the
// webhook for the uploader's path only, and no scan runs, yet the other
// two find each file at their own path within 60 s.
func TestNewFileInSharedFolder(t *testing.T) {
	var carol ncsim.User
	env := newAccessEnv(t, time.Hour, func(sim *ncsim.Server) {
		carol = sim.AddUser("carol", "Carol", false)
		sim.SeedFile("alice", "/Work/Projects/old.md", []byte("An older note on the wombat project."))
	})
	ctx := t.Context()
	env.Sim.Share("alice", "/Work/Projects", "bob")
	env.Sim.Share("alice", "/Work/Projects", "carol")
	if err := env.Main.Scanner.ScanAll(ctx, nil); err != nil { // the shares as they stand: each user's baseline
		t.Fatal(err)
	}
	old := env.mustStat(t, "alice", "/Work/Projects/old.md")
	env.awaitFile(t, "the shared folder indexed for all three", old.ID, func(ix indexed) bool {
		return slices.Equal(ix.state.Readers, []hs.UserID{"alice", "bob", "carol"})
	})
	scans := env.Main.Scanner.Progress().Started

	finds := func(u *ncsim.User, query string, id int64) (string, bool) {
		res, _ := env.searchAs(t, u, query)
		for _, r := range res.Results {
			if r.FileID == hs.FileID(id) {
				return r.Path, true
			}
		}
		return "", false
	}
	for _, tt := range []struct {
		uploader string
		query    string
		body     string
	}{
		{"alice", "q=numbat", "Alice's new numbat plan, uploaded into the shared folder."},
		{"bob", "q=quokka", "Bob's quokka notes, uploaded into alice's shared folder."},
	} {
		upPath := "/Work/Projects/" + tt.uploader + "-new.md"
		if tt.uploader == "bob" {
			upPath = "/Projects/bob-new.md" // where bob sees alice's folder
		}
		f := env.Sim.PutFile(tt.uploader, upPath, []byte(tt.body))
		uploaded := time.Now()
		want := map[*ncsim.User]string{&env.Alice: "/Work/Projects/" + tt.uploader + "-new.md", &env.Bob: "/Projects/" + tt.uploader + "-new.md", &carol: "/Projects/" + tt.uploader + "-new.md"}
		for u, wantPath := range want {
			if u.UID == tt.uploader {
				continue
			}
			var got string
			await(t, u.UID+" finds "+tt.uploader+"'s new file", 60*time.Second, func() bool {
				p, ok := finds(u, tt.query, f.ID)
				got = p
				return ok
			})
			t.Logf("%s's upload into the shared folder found by %s %s after the upload", tt.uploader, u.UID, time.Since(uploaded).Round(time.Millisecond))
			if got != wantPath {
				t.Errorf("%s sees %s's new file at %q, want %q", u.UID, tt.uploader, got, wantPath)
			}
		}
	}
	if got := env.Main.Scanner.Progress().Started; !got.Equal(scans) {
		t.Errorf("a scan ran (started %v); new files must reach the recipients without one", got)
	}
}
