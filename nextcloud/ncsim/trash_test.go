package ncsim

import (
	"fmt"
	"net/http"
	"testing"
)

const trashPropfind = `<d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">
 <d:prop><nc:trashbin-filename/><nc:trashbin-original-location/><nc:trashbin-deletion-time/>
  <oc:fileid/><d:getcontentlength/><d:resourcetype/></d:prop></d:propfind>`

func TestTrashAndRestore(t *testing.T) {
	f := newFixture(t, "alice")
	a := f.s.SeedFile("alice", "/Docs/a.txt", []byte("abc"))
	f.s.SeedFile("alice", "/Docs/Sub/b.txt", []byte("b"))
	mustStatus(t, f.do("DELETE", davURL("alice", "/Docs/a.txt"), "alice", ""), http.StatusNoContent)
	f.tick(1)
	mustStatus(t, f.do("DELETE", davURL("alice", "/Docs/Sub"), "alice", ""), http.StatusNoContent)

	base := "/remote.php/dav/trashbin/alice/trash"
	rs := parseMultistatus(t, f.do("PROPFIND", base, "alice", trashPropfind, "Depth", "1"))
	itemA, itemSub := fmt.Sprintf("a.txt.d%d", t0), fmt.Sprintf("Sub.d%d", t0+1)
	sameStrings(t, "trash hrefs", hrefs(rs), []string{base + "/", base + "/" + itemSub + "/", base + "/" + itemA})
	wantA := map[string]string{
		"{http://nextcloud.org/ns}trashbin-filename":          "a.txt",
		"{http://nextcloud.org/ns}trashbin-original-location": "Docs/a.txt",
		"{http://nextcloud.org/ns}trashbin-deletion-time":     fmt.Sprint(t0),
		"{http://owncloud.org/ns}fileid":                      fmt.Sprint(a.ID),
		"{DAV:}getcontentlength":                              "3",
		"{DAV:}resourcetype":                                  "",
	}
	for k, want := range wantA {
		if got := rs[2].Props[k]; got != want {
			t.Errorf("trash item %s = %q, want %q", k, got, want)
		}
	}
	// Inside a trashed folder.
	rs = parseMultistatus(t, f.do("PROPFIND", base+"/"+itemSub, "alice", trashPropfind, "Depth", "1"))
	sameStrings(t, "trashed folder", hrefs(rs), []string{base + "/" + itemSub + "/", base + "/" + itemSub + "/b.txt"})
	if got := rs[1].Props["{http://nextcloud.org/ns}trashbin-original-location"]; got != "Docs/Sub/b.txt" {
		t.Errorf("nested original location = %q", got)
	}
	w := f.do("GET", base+"/"+itemA, "alice", "")
	if w.Code != http.StatusOK || w.Body.String() != "abc" {
		t.Errorf("GET trash item = %d %q", w.Code, w.Body.String())
	}

	// Something new took the name: the restore gets "(restored)".
	f.s.SeedFile("alice", "/Docs/a.txt", []byte("new"))
	mustStatus(t, f.do("MOVE", base+"/"+itemA, "alice", "", "Destination", "/remote.php/dav/trashbin/alice/restore/a.txt"), http.StatusCreated)
	got, ok := f.s.Stat("alice", "/Docs/a (restored).txt")
	if !ok || got.ID != a.ID {
		t.Errorf("restored file = %+v, %v; want id %d", got, ok, a.ID)
	}
	// The original folder is gone: the restore goes to the root.
	f.s.Remove("alice", "/Docs")
	mustStatus(t, f.do("MOVE", base+"/"+itemSub, "alice", "", "Destination", "/remote.php/dav/trashbin/alice/restore/Sub"), http.StatusCreated)
	if _, ok := f.s.Stat("alice", "/Sub/b.txt"); !ok {
		t.Errorf("folder restored without its content or not at the root: %v", f.s.Walk("alice"))
	}

	tests := []struct {
		name, method, url string
		header            []string
		want              int
	}{
		{"restore outside the restore folder", "MOVE", base + "/" + itemA, []string{"Destination", davURL("alice", "/x")}, 403},
		{"restore a missing item", "MOVE", base + "/missing.d1", []string{"Destination", "/remote.php/dav/trashbin/alice/restore/x"}, 404},
		{"trashbin root", "PROPFIND", "/remote.php/dav/trashbin/alice", nil, 207},
		{"restore folder", "PROPFIND", "/remote.php/dav/trashbin/alice/restore", nil, 207},
		{"unknown trash item", "PROPFIND", base + "/nope.d1", nil, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustStatus(t, f.do(tt.method, tt.url, "alice", "", tt.header...), tt.want)
		})
	}

	// Permanent deletion removes the item and its id.
	trashed := f.s.Trash("alice")
	if len(trashed) != 1 || trashed[0].OriginalName != "Docs" {
		t.Fatalf("Trash = %+v", trashed)
	}
	mustStatus(t, f.do("DELETE", base+"/"+trashed[0].Name, "alice", ""), http.StatusNoContent)
	mustStatus(t, f.do("DELETE", base+"/"+trashed[0].Name, "alice", ""), http.StatusNotFound)
	f.s.Remove("alice", "/Sub")
	mustStatus(t, f.do("DELETE", base, "alice", ""), http.StatusNoContent)
	if n := len(f.s.Trash("alice")); n != 0 {
		t.Errorf("trash has %d items after emptying", n)
	}
}

func TestTrashNameCollisions(t *testing.T) {
	f := newFixture(t, "alice")
	f.s.SeedFile("alice", "/a.txt", []byte("1"))
	f.s.Remove("alice", "/a.txt")
	f.s.SeedFile("alice", "/a.txt", []byte("2"))
	f.s.Remove("alice", "/a.txt") // same second: the timestamp is nudged
	var names []string
	for _, it := range f.s.Trash("alice") {
		names = append(names, it.Name)
	}
	sameStrings(t, "trash names", names, []string{fmt.Sprintf("a.txt.d%d", t0), fmt.Sprintf("a.txt.d%d", t0+1)})
}
