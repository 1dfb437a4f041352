package ncsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const sharesURL = "/ocs/v2.php/apps/files_sharing/api/v1/shares"

// ocsJSON decodes an OCS JSON envelope and returns meta and data.
func ocsJSON(t *testing.T, body string) (meta map[string]any, data json.RawMessage) {
	t.Helper()
	var env struct {
		OCS struct {
			Meta map[string]any  `json:"meta"`
			Data json.RawMessage `json:"data"`
		} `json:"ocs"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		t.Fatalf("decode OCS %q: %v", body, err)
	}
	return env.OCS.Meta, env.OCS.Data
}

func TestShareAPI(t *testing.T) {
	f := newFixture(t, "alice", "bob", "carol")
	report := f.s.SeedFile("alice", "/Docs/Report.pdf", []byte("%PDF"))
	docs, _ := f.s.Stat("alice", "/Docs")
	f.s.SeedFile("bob", "/Report.pdf", []byte("bob's own"))
	js := []string{"OCS-APIRequest", "true", "Accept", "application/json"}

	w := f.do("POST", sharesURL, "alice", `{"path":"/Docs/Report.pdf","shareType":0,"shareWith":"bob"}`,
		append(js, "Content-Type", "application/json")...)
	mustStatus(t, w, http.StatusOK)
	_, data := ocsJSON(t, w.Body.String())
	var sh map[string]any
	if err := json.Unmarshal(data, &sh); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"id": "1", "share_type": float64(0), "uid_owner": "alice", "displayname_owner": "Alice",
		"share_with": "bob", "share_with_displayname": "Bob", "uid_file_owner": "alice",
		"path": "/Docs/Report.pdf", "item_type": "file", "item_source": float64(report.ID),
		"file_source": float64(report.ID), "file_target": "/Report (2).pdf", "permissions": float64(19),
		"stime": float64(t0), "mimetype": "application/pdf", "item_mtime": float64(t0), "item_size": float64(4),
		"expiration": nil, "hide_download": float64(0), "attributes": nil, "file_parent": float64(docs.ID),
	}
	for k, v := range want {
		if got, ok := sh[k]; !ok || fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("share %s = %#v, want %#v", k, got, v)
		}
	}

	// The recipient sees the same node under its de-duplicated target.
	got, ok := f.s.Stat("bob", "/Report (2).pdf")
	if !ok || got.ID != report.ID || got.Permissions != "SRMGDNVW" || got.Owner != "alice" {
		t.Errorf("bob's view = %+v, %v", got, ok)
	}
	if own, _ := f.s.Stat("bob", "/Report.pdf"); own.ID == report.ID {
		t.Errorf("bob's own file was shadowed")
	}

	// A folder share exposes the subtree with the same ids.
	w = f.do("POST", sharesURL+"?format=json", "alice", "path=/Docs&shareType=0&shareWith=carol&permissions=1",
		"Content-Type", "application/x-www-form-urlencoded")
	mustStatus(t, w, http.StatusOK)
	if got, ok := f.s.Stat("carol", "/Docs/Report.pdf"); !ok || got.ID != report.ID || got.Permissions != "SMG" {
		t.Errorf("carol's view of the shared folder = %+v, %v", got, ok)
	}
	if got, _ := f.s.Stat("carol", "/Docs"); got.Permissions != "SMGDNV" {
		t.Errorf("carol's mount root permissions = %q", got.Permissions)
	}
	// Read-only: carol cannot write or create.
	mustStatus(t, f.do("PUT", davURL("carol", "/Docs/Report.pdf"), "carol", "x"), http.StatusForbidden)
	mustStatus(t, f.do("PUT", davURL("carol", "/Docs/new.txt"), "carol", "x"), http.StatusForbidden)

	// Lists.
	list := func(uid, query string) []string {
		w := f.do("GET", sharesURL+query, uid, "", js...)
		mustStatus(t, w, http.StatusOK)
		_, data := ocsJSON(t, w.Body.String())
		var shares []map[string]any
		if err := json.Unmarshal(data, &shares); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range shares {
			out = append(out, fmt.Sprintf("%s:%s:%s", s["id"], s["share_with"], s["path"]))
		}
		return out
	}
	sameStrings(t, "alice's shares", list("alice", ""), []string{"1:bob:/Docs/Report.pdf", "2:carol:/Docs"})
	sameStrings(t, "shares on a path", list("alice", "?path=/Docs/Report.pdf&reshares=true"), []string{"1:bob:/Docs/Report.pdf"})
	sameStrings(t, "subfiles", list("alice", "?path=/Docs&subfiles=true"), []string{"1:bob:/Docs/Report.pdf"})
	sameStrings(t, "shared with bob", list("bob", "?shared_with_me=true"), []string{"1:bob:/Report (2).pdf"})
	sameStrings(t, "bob shared nothing", list("bob", ""), nil)

	w = f.do("GET", sharesURL+"/1", "bob", "", js...)
	mustStatus(t, w, http.StatusOK)
	_, data = ocsJSON(t, w.Body.String())
	if !strings.HasPrefix(string(data), "[{") {
		t.Errorf("GET /shares/1 data is not a one-element list: %s", data)
	}
	mustStatus(t, f.do("GET", sharesURL+"/1", "carol", "", js...), http.StatusNotFound)

	// Unsharing removes the file from the recipient's tree.
	mustStatus(t, f.do("DELETE", sharesURL+"/1", "alice", "", js...), http.StatusOK)
	if _, ok := f.s.Stat("bob", "/Report (2).pdf"); ok {
		t.Errorf("unshared file still visible to bob")
	}
	mustStatus(t, f.do("PROPFIND", davURL("bob", "/Report (2).pdf"), "bob", ""), http.StatusNotFound)
	mustStatus(t, f.do("DELETE", sharesURL+"/1", "alice", "", js...), http.StatusNotFound)
}

func TestShareAPIErrors(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	f.s.SeedFile("alice", "/a.txt", []byte("a"))
	js := []string{"Accept", "application/json", "Content-Type", "application/json"}
	tests := []struct {
		name, uid, body string
		want, code      int
	}{
		{"anonymous", "", `{"path":"/a.txt","shareType":0,"shareWith":"bob"}`, 401, 997},
		{"no path", "alice", `{"shareType":0,"shareWith":"bob"}`, 404, 404},
		{"missing path", "alice", `{"path":"/nope","shareType":0,"shareWith":"bob"}`, 404, 404},
		{"link share", "alice", `{"path":"/a.txt","shareType":3}`, 400, 400},
		{"unknown user", "alice", `{"path":"/a.txt","shareType":0,"shareWith":"nobody"}`, 404, 404},
		{"with yourself", "alice", `{"path":"/a.txt","shareType":0,"shareWith":"alice"}`, 403, 403},
		{"the root", "alice", `{"path":"/","shareType":0,"shareWith":"bob"}`, 403, 403},
		{"first share", "alice", `{"path":"/a.txt","shareType":0,"shareWith":"bob"}`, 200, 200},
		{"twice", "alice", `{"path":"/a.txt","shareType":"0","shareWith":"bob"}`, 403, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := f.do("POST", sharesURL, tt.uid, tt.body, js...)
			mustStatus(t, w, tt.want)
			meta, _ := ocsJSON(t, w.Body.String())
			if meta["statuscode"] != float64(tt.code) {
				t.Errorf("statuscode = %v, want %d (%v)", meta["statuscode"], tt.code, meta["message"])
			}
		})
	}
	// OCS v1: HTTP 200 and status code 100.
	w := f.do("GET", "/ocs/v1.php/apps/files_sharing/api/v1/shares?format=json", "alice", "")
	mustStatus(t, w, http.StatusOK)
	if meta, _ := ocsJSON(t, w.Body.String()); meta["statuscode"] != float64(100) {
		t.Errorf("v1 meta = %v", meta)
	}
	mustStatus(t, f.do("GET", "/ocs/v2.php/apps/files_sharing/api/v1/sharees", "alice", ""), http.StatusNotImplemented)
}

func TestRecipientChanges(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	doc := f.s.SeedFile("alice", "/Team/plan.md", []byte("v1"))
	team, _ := f.s.Stat("alice", "/Team")
	f.s.Share("alice", "/Team", "bob")
	bobRoot, _ := f.s.Stat("bob", "/")

	m := f.mark()
	mustStatus(t, f.do("PUT", davURL("bob", "/Team/plan.md"), "bob", "v2"), http.StatusNoContent)
	sameStrings(t, "events of bob's edit", f.eventsSince(m), []string{
		fmt.Sprintf("BeforeNodeWrittenEvent /bob/files/Team/plan.md#%d by bob", doc.ID),
		fmt.Sprintf("NodeWrittenEvent /bob/files/Team/plan.md#%d by bob", doc.ID),
	})
	after, _ := f.s.Stat("alice", "/Team/plan.md")
	if after.ID != doc.ID || after.ETag == doc.ETag {
		t.Errorf("owner's node after recipient edit = %+v (before %+v)", after, doc)
	}
	if content, _ := f.s.ReadFile("alice", "/Team/plan.md"); string(content) != "v2" {
		t.Errorf("owner reads %q", content)
	}
	// Etags propagate to the owner's folder and the recipient's root.
	if t2, _ := f.s.Stat("alice", "/Team"); t2.ETag == team.ETag {
		t.Errorf("owner folder etag unchanged")
	}
	if r2, _ := f.s.Stat("bob", "/"); r2.ETag == bobRoot.ETag {
		t.Errorf("recipient root etag unchanged")
	}

	// New files created by the recipient belong to the owner.
	mustStatus(t, f.do("PUT", davURL("bob", "/Team/new.md"), "bob", "n"), http.StatusCreated)
	if fi, _ := f.s.Stat("alice", "/Team/new.md"); fi.Owner != "alice" {
		t.Errorf("new file owner = %q", fi.Owner)
	}
	// Moving the mount point is a rename of the share target.
	mustStatus(t, f.do("MKCOL", davURL("bob", "/Shared"), "bob", ""), http.StatusCreated)
	mustStatus(t, f.do("MOVE", davURL("bob", "/Team"), "bob", "", "Destination", davURL("bob", "/Shared/Team")), http.StatusCreated)
	if fi, ok := f.s.Stat("bob", "/Shared/Team/plan.md"); !ok || fi.ID != doc.ID {
		t.Errorf("moved mount = %+v, %v", fi, ok)
	}
	if sh := f.s.Shares(); len(sh) != 1 || sh[0].Target != "/Shared/Team" {
		t.Errorf("share target = %+v", sh)
	}
	// Renaming the folder holding the mount keeps it reachable.
	mustStatus(t, f.do("MOVE", davURL("bob", "/Shared"), "bob", "", "Destination", davURL("bob", "/In")), http.StatusCreated)
	if _, ok := f.s.Stat("bob", "/In/Team/plan.md"); !ok {
		t.Errorf("mount lost after renaming its parent: %v", f.s.Walk("bob"))
	}
	// A recipient deleting inside the share sends the file to the owner's trash.
	mustStatus(t, f.do("DELETE", davURL("bob", "/In/Team/new.md"), "bob", ""), http.StatusNoContent)
	if tr := f.s.Trash("alice"); len(tr) != 1 || tr[0].OriginalLocation != "/Team" || tr[0].DeletedBy != "bob" {
		t.Errorf("owner's trash = %+v", tr)
	}
	// Deleting the mount root unshares without events.
	m = f.mark()
	mustStatus(t, f.do("DELETE", davURL("bob", "/In/Team"), "bob", ""), http.StatusNoContent)
	sameStrings(t, "events of unsharing", f.eventsSince(m), nil)
	if len(f.s.Shares()) != 0 {
		t.Errorf("share survived the recipient's delete")
	}
	if _, ok := f.s.Stat("alice", "/Team/plan.md"); !ok {
		t.Errorf("owner lost the file")
	}
	// The owner's unshared files stay invisible to bob.
	for _, fi := range f.s.Walk("bob") {
		if fi.Owner != "bob" {
			t.Errorf("bob still sees %+v", fi)
		}
	}
}

func TestTrashedShareComesBack(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	doc := f.s.SeedFile("alice", "/a.md", []byte("a"))
	f.s.Share("alice", "/a.md", "bob")
	f.s.Remove("alice", "/a.md")
	if _, ok := f.s.Stat("bob", "/a.md"); ok {
		t.Errorf("trashed share still mounted")
	}
	f.s.Restore("alice", f.s.Trash("alice")[0].Name)
	if fi, ok := f.s.Stat("bob", "/a.md"); !ok || fi.ID != doc.ID {
		t.Errorf("restored share not mounted: %+v %v", fi, ok)
	}
}

func TestMoveIntoAnotherStorage(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	f.s.SeedFile("alice", "/Team/keep.md", []byte("k"))
	f.s.Share("alice", "/Team", "bob")
	mine := f.s.SeedFile("bob", "/draft.md", []byte("d"))
	m := f.mark()
	mustStatus(t, f.do("MOVE", davURL("bob", "/draft.md"), "bob", "", "Destination", davURL("bob", "/Team/draft.md")), http.StatusCreated)
	moved, ok := f.s.Stat("alice", "/Team/draft.md")
	if !ok || moved.ID == mine.ID || moved.Owner != "alice" {
		t.Fatalf("moved into alice's storage = %+v, %v (old id %d)", moved, ok, mine.ID)
	}
	sameStrings(t, "events", f.eventsSince(m), []string{
		fmt.Sprintf("BeforeNodeRenamedEvent /bob/files/draft.md#%d -> /bob/files/Team/draft.md by bob", mine.ID),
		fmt.Sprintf("NodeRenamedEvent /bob/files/draft.md -> /bob/files/Team/draft.md#%d by bob", moved.ID),
	})
	if _, ok := f.s.Stat("bob", "/draft.md"); ok {
		t.Errorf("source still there")
	}
	// Moving a share into another share is refused.
	f.s.SeedFile("bob", "/Other/x.md", []byte("x"))
	f.s.Share("bob", "/Other", "alice")
	mustStatus(t, f.do("MOVE", davURL("alice", "/Other"), "alice", "", "Destination", davURL("alice", "/Team/Other")), http.StatusForbidden)
}
