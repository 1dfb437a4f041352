package nextcloud_test

import (
	"context"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

func TestShares(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	seedFiles(t, sim)
	ctx := context.Background()
	report := simStat(t, sim, "bob", "/Shared/report.md")

	got, err := e.c.SharedWithMe(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("SharedWithMe(alice) = %+v, want one share", got)
	}
	s := got[0]
	if s.ID == "" || s.ShareType != nextcloud.ShareUser || s.ShareWith != "alice" || s.Owner != "bob" ||
		s.FileOwner != "bob" || s.FileID != report.ID || s.FileTarget != "/report.md" || s.ItemType != "file" ||
		s.Permissions == 0 || s.Created.IsZero() {
		t.Errorf("SharedWithMe(alice) = %+v", s)
	}

	of, err := e.c.SharesOf(ctx, "bob", "/Shared/report.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(of) != 1 || of[0].ID != s.ID || of[0].ShareWith != "alice" || of[0].FileID != report.ID || of[0].Path != "/Shared/report.md" {
		t.Errorf("SharesOf(bob, report) = %+v", of)
	}

	none, err := e.c.SharedWithMe(ctx, "carol")
	if err != nil || len(none) != 0 {
		t.Errorf("SharedWithMe(carol) = %+v, %v, want none", none, err)
	}
	none, err = e.c.SharesOf(ctx, "alice", "/top.txt")
	if err != nil || len(none) != 0 {
		t.Errorf("SharesOf(unshared) = %+v, %v, want none", none, err)
	}
	_, err = e.c.SharesOf(ctx, "bob", "/Shared/missing.md")
	wantKind(t, "SharesOf missing", err, hs.ENOTFOUND)
}

// TestSharedWithMeDiscovered runs against a real server too.
func TestSharedWithMeDiscovered(t *testing.T) {
	e := newEnv(t)
	shares, err := e.c.SharedWithMe(context.Background(), e.user)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shares {
		if s.FileID == 0 || s.FileTarget == "" {
			t.Errorf("share %+v: want a file id and a target", s)
		}
	}
}

// TestSharedAbove: the users who reach a file through shares of folders
// above it, asked as the owner and as a recipient with share rights.
func TestSharedAbove(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	ctx := context.Background()
	sim.AddUser("dave", "Dave", false)
	sim.SeedFile("alice", "/Team/Plans/q3.md", []byte("plan"))
	sim.SeedFile("alice", "/Team/top.md", []byte("top"))
	sim.SeedFile("alice", "/Private/own.md", []byte("own"))
	sim.Share("alice", "/Team", "bob")
	sim.Share("alice", "/Team/Plans", "carol")
	sim.Share("alice", "/Team/Plans/q3.md", "dave") // on the file itself: not above it

	users, folders, err := e.c.SharedAbove(ctx, "alice", "/Team/Plans/q3.md")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(users)
	if !slices.Equal(users, []hs.UserID{"alice", "bob", "carol"}) || len(folders) != 0 {
		t.Errorf("SharedAbove(alice, q3) = %v, %v; want alice, bob, carol", users, folders)
	}
	// Bob sees /Team at /Team and may reshare: he is told the same.
	users, _, err = e.c.SharedAbove(ctx, "bob", "/Team/Plans/q3.md")
	slices.Sort(users)
	if err != nil || !slices.Equal(users, []hs.UserID{"alice", "bob", "carol"}) {
		t.Errorf("SharedAbove(bob, q3) = %v, %v", users, err)
	}
	if users, folders, err := e.c.SharedAbove(ctx, "alice", "/Private/own.md"); err != nil || len(users)+len(folders) != 0 {
		t.Errorf("SharedAbove of a private file = %v, %v, %v; want none", users, folders, err)
	}
	_, _, err = e.c.SharedAbove(ctx, "alice", "/Team/missing.md")
	wantKind(t, "SharedAbove of a missing file", err, hs.ENOTFOUND)
}
