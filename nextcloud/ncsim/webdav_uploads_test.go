package ncsim

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// bulkPart is one part of a bulk upload body.
type bulkPart struct {
	path, content string
	mtime         string // X-File-Mtime, "" for none
	badMD5        bool
}

func bulkBody(boundary string, parts ...bulkPart) string {
	var b strings.Builder
	for _, p := range parts {
		sum := md5.Sum([]byte(p.content))
		h := hex.EncodeToString(sum[:])
		if p.badMD5 {
			h = strings.Repeat("0", 32)
		}
		fmt.Fprintf(&b, "--%s\r\nX-File-Path: %s\r\nX-File-MD5: %s\r\nContent-Length: %d\r\n", boundary, p.path, h, len(p.content))
		if p.mtime != "" {
			fmt.Fprintf(&b, "X-File-Mtime: %s\r\n", p.mtime)
		}
		fmt.Fprintf(&b, "\r\n%s\r\n", p.content)
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return b.String()
}

// TestBulkUpload: POST /remote.php/dav/bulk writes each part with
// Folder::newFile and touches it, answering a JSON object per path; a part
// whose MD5 is wrong ends the request with 400 and what was written.
func TestBulkUpload(t *testing.T) {
	f := newFixture(t, "alice")
	old := f.s.SeedFile("alice", "/old.txt", []byte("old"))
	mark := f.mark()
	ct := "multipart/related; boundary=boundary_x1"
	body := bulkBody("boundary_x1",
		bulkPart{path: "/new.txt", content: "new file", mtime: "1600000000"},
		bulkPart{path: "/old.txt", content: "overwritten"},
		bulkPart{path: "/missing/dir.txt", content: "x"},
	)
	w := f.do(http.MethodPost, "/remote.php/dav/bulk", "alice", body, "Content-Type", ct)
	mustStatus(t, w, http.StatusOK)
	var got map[string]struct {
		Error       bool   `json:"error"`
		Message     string `json:"message"`
		ETag        string `json:"etag"`
		FileID      string `json:"fileid"`
		Permissions string `json:"permissions"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatalf("answer %s: %v", w.Body.String(), err)
	}
	nf, _ := f.s.Stat("alice", "/new.txt")
	if r := got["/new.txt"]; r.Error || r.ETag != nf.ETag || r.FileID != davFileID(nf.ID, f.s.InstanceID) || r.Permissions != "RGDNVW" {
		t.Errorf("/new.txt answer %+v, file %+v", r, nf)
	}
	if nf.Modified.Unix() != 1600000000 {
		t.Errorf("mtime = %d, want X-File-Mtime", nf.Modified.Unix())
	}
	if r := got["/missing/dir.txt"]; !r.Error || !strings.Contains(r.Message, "Could not create path") {
		t.Errorf("missing parent answer %+v", r)
	}
	if c, _ := f.s.ReadFile("alice", "/old.txt"); string(c) != "overwritten" {
		t.Errorf("old.txt = %q", c)
	}
	want := []string{
		"BeforeNodeCreatedEvent /alice/files/new.txt by alice",
		"BeforeNodeWrittenEvent /alice/files/new.txt by alice",
		fmt.Sprintf("NodeCreatedEvent /alice/files/new.txt#%d by alice", nf.ID),
		fmt.Sprintf("NodeWrittenEvent /alice/files/new.txt#%d by alice", nf.ID),
		fmt.Sprintf("BeforeNodeTouchedEvent /alice/files/new.txt#%d by alice", nf.ID),
		fmt.Sprintf("NodeTouchedEvent /alice/files/new.txt#%d by alice", nf.ID),
		fmt.Sprintf("BeforeNodeWrittenEvent /alice/files/old.txt#%d by alice", old.ID),
		fmt.Sprintf("NodeWrittenEvent /alice/files/old.txt#%d by alice", old.ID),
		fmt.Sprintf("BeforeNodeTouchedEvent /alice/files/old.txt#%d by alice", old.ID),
		fmt.Sprintf("NodeTouchedEvent /alice/files/old.txt#%d by alice", old.ID),
	}
	if ev := f.eventsSince(mark); fmt.Sprint(ev) != fmt.Sprint(want) {
		t.Errorf("events:\n got %v\nwant %v", ev, want)
	}

	// A corrupt part stops the request; what came before stays written.
	body = bulkBody("b2", bulkPart{path: "/first.txt", content: "1"}, bulkPart{path: "/second.txt", content: "2", badMD5: true},
		bulkPart{path: "/third.txt", content: "3"})
	w = f.do(http.MethodPost, "/remote.php/dav/bulk", "alice", body, "Content-Type", `multipart/related; boundary="b2"`)
	mustStatus(t, w, http.StatusBadRequest)
	if !strings.Contains(w.Body.String(), `"\/first.txt"`) || strings.Contains(w.Body.String(), "third") {
		t.Errorf("answer after a corrupt part: %s", w.Body.String())
	}
	if _, ok := f.s.Stat("alice", "/third.txt"); ok {
		t.Error("a part after the corrupt one was written")
	}
	for _, ct := range []string{"", "multipart/form-data; boundary=x", "multipart/related"} {
		w := f.do(http.MethodPost, "/remote.php/dav/bulk", "alice", body, "Content-Type", ct)
		mustStatus(t, w, http.StatusBadRequest)
	}
	mustStatus(t, f.do(http.MethodPost, "/remote.php/dav/bulk", "", body, "Content-Type", ct), http.StatusUnauthorized)
}

// TestChunkedUploadV2: MKCOL with Destination, numbered parts, MOVE .file.
func TestChunkedUploadV2(t *testing.T) {
	f := newFixtureOn(t, "34", "alice", "bob")
	dest := "http://nc.test/remote.php/dav/files/alice/Docs/big.bin"
	f.s.Mkdir("alice", "/Docs")
	up := "/remote.php/dav/uploads/alice/web-file-upload-1"
	mustStatus(t, f.do("MKCOL", up, "alice", "", "Destination", dest), http.StatusCreated)
	mustStatus(t, f.do("MKCOL", up, "alice", "", "Destination", dest), http.StatusMethodNotAllowed)
	mustStatus(t, f.do(http.MethodPut, up+"/0", "alice", "x", "Destination", dest), http.StatusBadRequest)
	mustStatus(t, f.do(http.MethodPut, up+"/2", "alice", "world", "Destination", dest), http.StatusCreated)
	mustStatus(t, f.do(http.MethodPut, up+"/1", "alice", "hello ", "Destination", dest), http.StatusCreated)
	mustStatus(t, f.do(http.MethodGet, up+"/1", "alice", ""), http.StatusMethodNotAllowed)
	mustStatus(t, f.do("PROPFIND", up, "bob", "", "Depth", "1"), http.StatusNotFound)
	if w := f.do("PROPFIND", up, "alice", "", "Depth", "1"); w.Code != 207 || !strings.Contains(w.Body.String(), up+"/2") {
		t.Errorf("PROPFIND upload = %d %s", w.Code, w.Body.String())
	}
	mark := f.mark()
	w := f.do("MOVE", up+"/.file", "alice", "", "Destination", dest, "X-OC-Mtime", "1500000000", "OC-Total-Length", "11")
	mustStatus(t, w, http.StatusCreated)
	fi, _ := f.s.Stat("alice", "/Docs/big.bin")
	if c, _ := f.s.ReadFile("alice", "/Docs/big.bin"); string(c) != "hello world" || fi.Modified.Unix() != 1500000000 {
		t.Errorf("assembled %q, mtime %d", c, fi.Modified.Unix())
	}
	if w.Header().Get("OC-FileId") != davFileID(fi.ID, f.s.InstanceID) || w.Header().Get("OC-ETag") != `"`+fi.ETag+`"` ||
		w.Header().Get("X-OC-MTime") != "accepted" {
		t.Errorf("MOVE headers %v", w.Header())
	}
	want := []string{
		"BeforeNodeCreatedEvent /alice/files/Docs/big.bin by alice",
		"BeforeNodeWrittenEvent /alice/files/Docs/big.bin by alice",
		fmt.Sprintf("NodeCreatedEvent /alice/files/Docs/big.bin#%d by alice", fi.ID),
		fmt.Sprintf("NodeWrittenEvent /alice/files/Docs/big.bin#%d by alice", fi.ID),
	}
	if ev := f.eventsSince(mark); fmt.Sprint(ev) != fmt.Sprint(want) {
		t.Errorf("events:\n got %v\nwant %v", ev, want)
	}
	mustStatus(t, f.do("PROPFIND", up, "alice", "", "Depth", "0"), http.StatusNotFound)

	// Overwriting: 204, and on 34 the update events.
	mustStatus(t, f.do("MKCOL", up, "alice", "", "Destination", dest), http.StatusCreated)
	mustStatus(t, f.do(http.MethodPut, up+"/1", "alice", "again", "Destination", dest), http.StatusCreated)
	mark = f.mark()
	mustStatus(t, f.do("MOVE", up+"/.file", "alice", "", "Destination", dest), http.StatusNoContent)
	if ev := f.eventsSince(mark); len(ev) != 4 || !strings.HasPrefix(ev[0], "BeforeNodeUpdatedEvent") || !strings.HasPrefix(ev[3], "NodeWrittenEvent") {
		t.Errorf("overwrite events %v", ev)
	}
}

// TestChunkedUploadV1: what nextcloudcmd 3.7 does: MKCOL without
// Destination, parts named 0000000000000000..., MOVE .file with
// OC-Total-Length and X-OC-Mtime, which touches the file (File::put).
func TestChunkedUploadV1(t *testing.T) {
	f := newFixture(t, "alice")
	up := "/remote.php/dav/uploads/alice/1234"
	dest := "http://nc.test" + davURL("alice", "/big.bin")
	mustStatus(t, f.do("MKCOL", up, "alice", ""), http.StatusCreated)
	mustStatus(t, f.do(http.MethodPut, up+"/0000000000000001", "alice", "-b"), http.StatusCreated)
	mustStatus(t, f.do(http.MethodPut, up+"/0000000000000000", "alice", "a"), http.StatusCreated)
	mustStatus(t, f.do("MOVE", up+"/.file", "alice", "", "Destination", dest, "OC-Total-Length", "9"), http.StatusBadRequest)
	mark := f.mark()
	w := f.do("MOVE", up+"/.file", "alice", "", "Destination", dest, "OC-Total-Length", "3", "X-OC-Mtime", "1500000000")
	mustStatus(t, w, http.StatusCreated)
	if c, _ := f.s.ReadFile("alice", "/big.bin"); string(c) != "a-b" {
		t.Errorf("assembled %q", c)
	}
	ev := f.eventsSince(mark)
	if len(ev) != 6 || !strings.Contains(fmt.Sprint(ev), "NodeTouchedEvent") || !strings.Contains(fmt.Sprint(ev), "NodeCreatedEvent") {
		t.Errorf("events %v", ev)
	}
	mustStatus(t, f.do(http.MethodPut, "/remote.php/dav/uploads/alice/nope/1", "alice", "x"), http.StatusConflict)
}
