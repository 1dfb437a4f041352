package ncsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const notesURL = "/index.php/apps/notes/api/v1/notes"

// noteJSON decodes a note or a list of notes.
func noteJSON[T any](t *testing.T, body string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("decode %q: %v", body, err)
	}
	return v
}

func TestNotesCreateEvents(t *testing.T) {
	f := newFixture(t, "alice")
	w := f.do("POST", notesURL, "alice", `{"title":"Shopping","category":"Home/Lists","content":"milk","modified":1600000000,"favorite":true}`,
		"Content-Type", "application/json")
	mustStatus(t, w, http.StatusOK)
	n := noteJSON[map[string]any](t, w.Body.String())
	id := int64(n["id"].(float64))
	for k, want := range map[string]any{
		"title": "Shopping", "category": "Home/Lists", "content": "milk", "modified": float64(1600000000),
		"favorite": true, "readonly": false, "internalPath": "/Notes/Home/Lists/Shopping.md", "isShared": false,
		"error": false, "errorType": "",
	} {
		if fmt.Sprint(n[k]) != fmt.Sprint(want) {
			t.Errorf("note %s = %v, want %v", k, n[k], want)
		}
	}
	if etag, _ := n["etag"].(string); len(etag) != 32 {
		t.Errorf("note etag = %q, want an md5", n["etag"])
	}
	if w.Header().Get("X-Notes-API-Versions") == "" {
		t.Errorf("missing X-Notes-API-Versions")
	}
	if fi, _ := f.s.Stat("alice", "/Notes/Home/Lists/Shopping.md"); fi.ID != id || fi.ETag == n["etag"] {
		t.Errorf("note id %d vs file %+v; the Notes etag must differ from the file etag", id, fi)
	}
	var want []string
	for _, dir := range []string{"/Notes", "/Notes/Home", "/Notes/Home/Lists"} {
		did := f.id("alice", dir)
		want = append(want,
			"BeforeNodeCreatedEvent /alice/files"+dir+" by alice",
			"BeforeNodeWrittenEvent /alice/files"+dir+" by alice",
			fmt.Sprintf("NodeCreatedEvent /alice/files%s#%d by alice", dir, did),
			fmt.Sprintf("NodeWrittenEvent /alice/files%s#%d by alice", dir, did))
	}
	p := "/alice/files/Notes/Home/Lists/Shopping.md"
	want = append(want,
		"BeforeNodeTouchedEvent "+p+" by alice",
		"BeforeNodeCreatedEvent "+p+" by alice",
		"BeforeNodeWrittenEvent "+p+" by alice",
		fmt.Sprintf("NodeTouchedEvent %s#%d by alice", p, id),
		fmt.Sprintf("NodeCreatedEvent %s#%d by alice", p, id),
		fmt.Sprintf("NodeWrittenEvent %s#%d by alice", p, id),
		fmt.Sprintf("BeforeNodeWrittenEvent %s#%d by alice", p, id),
		fmt.Sprintf("NodeWrittenEvent %s#%d by alice", p, id),
		fmt.Sprintf("BeforeNodeTouchedEvent %s#%d by alice", p, id),
		fmt.Sprintf("NodeTouchedEvent %s#%d by alice", p, id),
	)
	sameStrings(t, "events", f.eventsSince(0), want)
}

func TestNotesCRUD(t *testing.T) {
	f := newFixture(t, "alice")
	a := f.s.CreateNote("alice", "Plan", "", "first")
	if a.Path != "/Notes/Plan.md" || a.Title != "Plan" || a.Content != "first" || len(a.ETag) != 32 {
		t.Fatalf("CreateNote = %+v", a)
	}
	dup := f.s.CreateNote("alice", "Plan", "", "second")
	if dup.Path != "/Notes/Plan (2).md" || dup.Title != "Plan (2)" {
		t.Errorf("duplicate title = %+v", dup)
	}
	f.s.SeedFile("alice", "/Notes/readme.pdf", []byte("not a note"))
	f.s.SeedFile("alice", "/Notes/Work/todo.txt", []byte("todo"))

	w := f.do("GET", notesURL, "alice", "")
	mustStatus(t, w, http.StatusOK)
	list := noteJSON[[]map[string]any](t, w.Body.String())
	var titles []string
	for _, n := range list {
		titles = append(titles, fmt.Sprintf("%v/%v", n["category"], n["title"]))
	}
	sameStrings(t, "notes", titles, []string{"/Plan", "/Plan (2)", "Work/todo"})
	etag := w.Header().Get("ETag")
	mustStatus(t, f.do("GET", notesURL, "alice", "", "If-None-Match", etag), http.StatusNotModified)
	w = f.do("GET", notesURL+"?category=Work&exclude=content", "alice", "")
	list = noteJSON[[]map[string]any](t, w.Body.String())
	if len(list) != 1 || list[0]["title"] != "todo" || list[0]["content"] != nil {
		t.Errorf("category filter with exclude = %v", list)
	}

	one := fmt.Sprintf("%s/%d", notesURL, a.ID)
	w = f.do("GET", one, "alice", "")
	mustStatus(t, w, http.StatusOK)
	if got := w.Header().Get("ETag"); got != `"`+a.ETag+`"` {
		t.Errorf("GET one ETag = %q, want %q", got, a.ETag)
	}

	// Content edit: only a write.
	m := f.mark()
	w = f.do("PUT", one, "alice", `{"content":"changed"}`, "Content-Type", "application/json", "If-Match", `"`+a.ETag+`"`)
	mustStatus(t, w, http.StatusOK)
	edited := noteJSON[map[string]any](t, w.Body.String())
	p := "/alice/files/Notes/Plan.md"
	sameStrings(t, "edit events", f.eventsSince(m), []string{
		fmt.Sprintf("BeforeNodeWrittenEvent %s#%d by alice", p, a.ID),
		fmt.Sprintf("NodeWrittenEvent %s#%d by alice", p, a.ID),
	})
	if edited["etag"] == a.ETag || edited["content"] != "changed" {
		t.Errorf("edited note = %v", edited)
	}
	// A stale If-Match: 412 with the current note.
	w = f.do("PUT", one, "alice", `{"content":"lost"}`, "Content-Type", "application/json", "If-Match", `"`+a.ETag+`"`)
	mustStatus(t, w, http.StatusPreconditionFailed)
	if cur := noteJSON[map[string]any](t, w.Body.String()); cur["content"] != "changed" || cur["etag"] != edited["etag"] {
		t.Errorf("412 body = %v", cur)
	}

	// Title change: a rename.
	m = f.mark()
	mustStatus(t, f.do("PUT", one, "alice", `{"title":"Roadmap"}`, "Content-Type", "application/json"), http.StatusOK)
	sameStrings(t, "rename events", f.eventsSince(m), []string{
		fmt.Sprintf("BeforeNodeRenamedEvent %s#%d -> /alice/files/Notes/Roadmap.md by alice", p, a.ID),
		fmt.Sprintf("NodeRenamedEvent %s -> /alice/files/Notes/Roadmap.md#%d by alice", p, a.ID),
	})
	// Category change: a move into a new folder.
	m = f.mark()
	mustStatus(t, f.do("PUT", one, "alice", `{"category":"Work"}`, "Content-Type", "application/json"), http.StatusOK)
	sameStrings(t, "move events", f.eventsSince(m), []string{
		fmt.Sprintf("BeforeNodeRenamedEvent /alice/files/Notes/Roadmap.md#%d -> /alice/files/Notes/Work/Roadmap.md by alice", a.ID),
		fmt.Sprintf("NodeRenamedEvent /alice/files/Notes/Roadmap.md -> /alice/files/Notes/Work/Roadmap.md#%d by alice", a.ID),
	})
	// Favorite toggle: no events.
	m = f.mark()
	w = f.do("PUT", one, "alice", `{"favorite":true}`, "Content-Type", "application/json")
	mustStatus(t, w, http.StatusOK)
	if n := noteJSON[map[string]any](t, w.Body.String()); n["favorite"] != true {
		t.Errorf("favorite = %v", n["favorite"])
	}
	sameStrings(t, "favorite events", f.eventsSince(m), nil)

	// Moving the last note out of a category deletes the empty folder.
	todo, _ := f.s.Stat("alice", "/Notes/Work/todo.txt")
	mustStatus(t, f.do("PUT", fmt.Sprintf("%s/%d", notesURL, todo.ID), "alice", `{"category":"Old"}`, "Content-Type", "application/json"), http.StatusOK)
	m = f.mark()
	mustStatus(t, f.do("PUT", one, "alice", `{"category":""}`, "Content-Type", "application/json"), http.StatusOK)
	work := f.s.Trash("alice")
	if len(work) != 1 || work[0].OriginalName != "Work" {
		t.Errorf("empty category folder not deleted: %+v", work)
	}
	got := f.eventsSince(m)
	if len(got) != 4 || !strings.HasPrefix(got[2], "BeforeNodeDeletedEvent /alice/files/Notes/Work#") {
		t.Errorf("events of leaving a category: %q", got)
	}

	// Delete: into the trash.
	m = f.mark()
	mustStatus(t, f.do("DELETE", one, "alice", ""), http.StatusOK)
	sameStrings(t, "delete events", f.eventsSince(m), []string{
		fmt.Sprintf("BeforeNodeDeletedEvent /alice/files/Notes/Roadmap.md#%d by alice", a.ID),
		fmt.Sprintf("NodeDeletedEvent /alice/files/Notes/Roadmap.md#%d by alice", a.ID),
	})
	w = f.do("GET", one, "alice", "")
	mustStatus(t, w, http.StatusNotFound)
	if !strings.Contains(w.Body.String(), `NoteDoesNotExistException`) {
		t.Errorf("404 body = %s", w.Body.String())
	}
	// A file outside the notes folder is not a note.
	other := f.s.SeedFile("alice", "/elsewhere.md", []byte("x"))
	mustStatus(t, f.do("GET", fmt.Sprintf("%s/%d", notesURL, other.ID), "alice", ""), http.StatusNotFound)
	mustStatus(t, f.do("DELETE", fmt.Sprintf("%s/%d", notesURL, other.ID), "alice", ""), http.StatusNotFound)
}

func TestNotesReadOnlyShare(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	shared := f.s.SeedFile("alice", "/Recipes/cake.md", []byte("flour"))
	w := f.do("POST", sharesURL+"?format=json", "alice", `{"path":"/Recipes","shareType":0,"shareWith":"bob","permissions":1}`,
		"Content-Type", "application/json")
	mustStatus(t, w, http.StatusOK)
	f.s.Mkdir("bob", "/Notes")
	f.s.Move("bob", "/Recipes", "/Notes/Recipes")

	w = f.do("GET", notesURL, "bob", "")
	mustStatus(t, w, http.StatusOK)
	list := noteJSON[[]map[string]any](t, w.Body.String())
	if len(list) != 1 || list[0]["readonly"] != true || list[0]["category"] != "Recipes" || list[0]["id"] != float64(shared.ID) {
		t.Fatalf("bob's notes = %v", list)
	}
	one := fmt.Sprintf("%s/%d", notesURL, shared.ID)
	for _, tt := range []struct{ method, body string }{
		{"PUT", `{"content":"sugar"}`},
		{"PUT", `{"title":"Pie"}`},
		{"DELETE", ""},
	} {
		w := f.do(tt.method, one, "bob", tt.body, "Content-Type", "application/json")
		mustStatus(t, w, http.StatusForbidden)
		if !strings.Contains(w.Body.String(), "NoteNotWritableException") {
			t.Errorf("403 body = %s", w.Body.String())
		}
	}
	// Favorites work on read-only notes.
	mustStatus(t, f.do("PUT", one, "bob", `{"favorite":true}`, "Content-Type", "application/json"), http.StatusOK)
}

func TestNotesChunks(t *testing.T) {
	f := newFixture(t, "alice")
	var ids []int64
	for i := 0; i < 5; i++ {
		ids = append(ids, f.s.CreateNote("alice", fmt.Sprintf("n%d", i), "", "x").ID)
	}
	var got []string
	cursor := ""
	for round := 0; round < 10; round++ {
		url := notesURL + "?chunkSize=2&exclude=content"
		if cursor != "" {
			url += "&chunkCursor=" + cursor
		}
		w := f.do("GET", url, "alice", "")
		mustStatus(t, w, http.StatusOK)
		var parts []string
		for _, n := range noteJSON[[]map[string]any](t, w.Body.String()) {
			full := "full"
			if _, ok := n["title"]; !ok {
				full = "id"
			}
			parts = append(parts, fmt.Sprintf("%v:%s", n["id"], full))
		}
		got = append(got, strings.Join(parts, ","))
		cursor = w.Header().Get("X-Notes-Chunk-Cursor")
		if cursor == "" {
			break
		}
		if w.Header().Get("X-Notes-Chunk-Pending") == "" {
			t.Errorf("cursor without X-Notes-Chunk-Pending")
		}
	}
	sameStrings(t, "chunks", got, []string{
		fmt.Sprintf("%d:full,%d:full", ids[0], ids[1]),
		fmt.Sprintf("%d:full,%d:full", ids[2], ids[3]),
		fmt.Sprintf("%d:full,%d:id,%d:id,%d:id,%d:id", ids[4], ids[0], ids[1], ids[2], ids[3]),
	})
	// pruneBefore reduces unchanged notes to their id.
	w := f.do("GET", fmt.Sprintf("%s?pruneBefore=%d", notesURL, t0+1), "alice", "")
	for _, n := range noteJSON[[]map[string]any](t, w.Body.String()) {
		if _, ok := n["title"]; ok {
			t.Errorf("pruned note has data: %v", n)
		}
	}
}

func TestNotesAuthAndSettings(t *testing.T) {
	f := newFixture(t, "alice")
	w := f.do("GET", notesURL, "", "")
	mustStatus(t, w, http.StatusUnauthorized)
	if !strings.Contains(w.Body.String(), "Current user is not logged in") {
		t.Errorf("401 body = %s", w.Body.String())
	}
	settings := "/index.php/apps/notes/api/v1/settings"
	w = f.do("GET", settings, "alice", "")
	mustStatus(t, w, http.StatusOK)
	if got := noteJSON[map[string]string](t, w.Body.String()); got["notesPath"] != "Notes" || got["fileSuffix"] != ".md" {
		t.Errorf("settings = %v", got)
	}
	w = f.do("PUT", settings, "alice", `{"notesPath":"/My Notes/","fileSuffix":".txt"}`, "Content-Type", "application/json")
	if got := noteJSON[map[string]string](t, w.Body.String()); got["notesPath"] != "My Notes" || got["fileSuffix"] != ".txt" {
		t.Errorf("updated settings = %v", got)
	}
	if n := f.s.CreateNote("alice", "x", "", ""); n.Path != "/My Notes/x.txt" {
		t.Errorf("note path after settings change = %q", n.Path)
	}
	mustStatus(t, f.do("GET", notesURL+"/abc", "alice", ""), http.StatusNotImplemented)
	mustStatus(t, f.do("GET", "/index.php/apps/notes/api/v0.2/notes", "alice", ""), http.StatusNotImplemented)
}
