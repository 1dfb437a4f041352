package nextcloud_test

import (
	"context"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

func TestNotes(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	ctx := context.Background()
	shopping := sim.CreateNote("alice", "Shopping", "", "- milk\n- Brötchen")
	plan := sim.CreateNote("alice", "Plan 日本", "Work/2026", "# Plan\n")
	sim.CreateNote("bob", "Bob's", "", "not alice's")

	notes, err := e.c.ListNotes(ctx, "alice", nextcloud.ListNotesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[hs.FileID]nextcloud.Note{}
	for _, n := range notes {
		byID[n.ID] = n
	}
	if len(notes) != 2 {
		t.Fatalf("ListNotes = %+v, want 2 notes", notes)
	}
	for _, want := range []struct {
		id                       int64
		title, category, content string
	}{
		{shopping.ID, "Shopping", "", "- milk\n- Brötchen"},
		{plan.ID, "Plan 日本", "Work/2026", "# Plan\n"},
	} {
		n, ok := byID[hs.FileID(want.id)]
		if !ok || n.Title != want.title || n.Category != want.category || n.Content != want.content ||
			n.ETag == "" || n.Modified.IsZero() || n.ReadOnly || n.Favorite {
			t.Errorf("note %d = %+v, want %q in %q with %q", want.id, n, want.title, want.category, want.content)
		}
	}

	light, err := e.c.ListNotes(ctx, "alice", nextcloud.ListNotesOptions{ExcludeContent: true, Category: "Work/2026"})
	if err != nil {
		t.Fatal(err)
	}
	if len(light) != 1 || light[0].ID != hs.FileID(plan.ID) || light[0].Content != "" || light[0].Title != "Plan 日本" {
		t.Errorf("ListNotes(exclude content, category) = %+v", light)
	}

	got, err := e.c.GetNote(ctx, "alice", hs.FileID(shopping.ID))
	if err != nil {
		t.Fatal(err)
	}
	if got != byID[hs.FileID(shopping.ID)] {
		t.Errorf("GetNote = %+v, want %+v", got, byID[hs.FileID(shopping.ID)])
	}
	// A note's id is its file id.
	fi, err := e.c.FindByID(ctx, "alice", got.ID)
	if err != nil || fi.Path != shopping.Path {
		t.Errorf("FindByID(note id) = %+v, %v, want %s", fi, err, shopping.Path)
	}

	_, err = e.c.GetNote(ctx, "alice", 987654)
	wantKind(t, "GetNote missing", err, hs.ENOTFOUND)
	_, err = e.c.GetNote(ctx, "carol", hs.FileID(shopping.ID))
	wantKind(t, "GetNote of another user's note", err, hs.ENOTFOUND)

	settings, err := e.c.NotesSettings(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if settings.NotesPath != "Notes" || settings.FileSuffix != ".md" {
		t.Errorf("NotesSettings = %+v, want Notes and .md", settings)
	}
}

// TestNotesDiscovered runs against a real server too.
func TestNotesDiscovered(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	settings, err := e.c.NotesSettings(ctx, e.user)
	if e.sim == nil && hs.ErrorKind(err) == hs.ENOTFOUND {
		t.Skip("the Notes app is not installed")
	}
	if err != nil {
		t.Fatal(err)
	}
	if settings.NotesPath == "" || settings.FileSuffix == "" {
		t.Errorf("NotesSettings = %+v", settings)
	}
	notes, err := e.c.ListNotes(ctx, e.user, nextcloud.ListNotesOptions{ExcludeContent: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if n.ID == 0 || n.Content != "" {
			t.Errorf("note %+v: want an id and no content", n)
		}
	}
}
