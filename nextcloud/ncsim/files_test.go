package ncsim

import (
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fixture is a simulator with users and a controllable clock.
type fixture struct {
	t     *testing.T
	s     *Server
	clock atomic.Int64 // unix seconds
	users map[string]User
}

const t0 = 1_700_000_000

// newFixture simulates Nextcloud 33, whose file writes fire no
// NodeUpdatedEvent (see TestUpdateEventsFrom34 for 34).
func newFixture(t *testing.T, uids ...string) *fixture {
	t.Helper()
	return newFixtureOn(t, "33", uids...)
}

func newFixtureOn(t *testing.T, version string, uids ...string) *fixture {
	t.Helper()
	f := &fixture{t: t, users: map[string]User{}}
	f.clock.Store(t0)
	f.s = &Server{NextcloudVersion: version, Now: func() time.Time { return time.Unix(f.clock.Load(), 0) }}
	for _, uid := range uids {
		f.users[uid] = f.s.AddUser(uid, strings.ToUpper(uid[:1])+uid[1:], false)
	}
	return f
}

// tick advances the clock by sec seconds.
func (f *fixture) tick(sec int64) { f.clock.Add(sec) }

// req builds a request authenticated as uid ("" for anonymous) with
// header pairs "Name", "value", ...
func (f *fixture) req(method, target, uid, body string, header ...string) *http.Request {
	f.t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if uid != "" {
		u, ok := f.users[uid]
		if !ok {
			f.t.Fatalf("unknown fixture user %q", uid)
		}
		r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(uid+":"+u.AppPassword)))
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return r
}

// do serves a request and returns the recorded response.
func (f *fixture) do(method, target, uid, body string, header ...string) *httptest.ResponseRecorder {
	f.t.Helper()
	w := httptest.NewRecorder()
	f.s.ServeHTTP(w, f.req(method, target, uid, body, header...))
	return w
}

// mustStatus fails the test unless w has status want.
func mustStatus(t *testing.T, w *httptest.ResponseRecorder, want int) {
	t.Helper()
	if w.Code != want {
		t.Fatalf("status = %d, want %d; body:\n%s", w.Code, want, w.Body.String())
	}
}

// mark returns the number of events fired so far.
func (f *fixture) mark() int { return len(f.s.Events()) }

// eventsSince renders the events fired after mark, one string each:
// "NodeWrittenEvent /alice/files/a.txt#101 by alice" or, for two-node
// events, "NodeRenamedEvent /alice/files/a -> /alice/files/b#101 by alice".
func (f *fixture) eventsSince(mark int) []string {
	var out []string
	for _, ev := range f.s.Events()[mark:] {
		out = append(out, evString(ev))
	}
	return out
}

func evString(ev Event) string {
	class := ev.Class[strings.LastIndexByte(ev.Class, '\\')+1:]
	node := func(n *Node) string {
		if n.ID == 0 {
			return n.Path
		}
		return fmt.Sprintf("%s#%d", n.Path, n.ID)
	}
	if ev.Node != nil {
		return fmt.Sprintf("%s %s by %s", class, node(ev.Node), ev.User)
	}
	return fmt.Sprintf("%s %s -> %s by %s", class, node(ev.Source), node(ev.Target), ev.User)
}

// sameStrings fails unless got equals want.
func sameStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// msResponse is one parsed <d:response>.
type msResponse struct {
	Href    string
	Props   map[string]string // "{ns}local" -> inner XML, for the 200 propstat
	Missing []string          // "{ns}local" of the 404 propstat
}

type xmsMultistatus struct {
	Responses []struct {
		Href      string `xml:"DAV: href"`
		Propstats []struct {
			Prop struct {
				Any []struct {
					XMLName xml.Name
					Inner   string `xml:",innerxml"`
				} `xml:",any"`
			} `xml:"DAV: prop"`
			Status string `xml:"DAV: status"`
		} `xml:"DAV: propstat"`
	} `xml:"DAV: response"`
}

// parseMultistatus checks a 207 response and parses it.
func parseMultistatus(t *testing.T, w *httptest.ResponseRecorder) []msResponse {
	t.Helper()
	mustStatus(t, w, http.StatusMultiStatus)
	if ct := w.Header().Get("Content-Type"); ct != "application/xml; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	var ms xmsMultistatus
	if err := xml.Unmarshal(w.Body.Bytes(), &ms); err != nil {
		t.Fatalf("parse multistatus: %v\n%s", err, w.Body.String())
	}
	var out []msResponse
	for _, r := range ms.Responses {
		resp := msResponse{Href: r.Href, Props: map[string]string{}}
		for _, ps := range r.Propstats {
			for _, p := range ps.Prop.Any {
				name := "{" + p.XMLName.Space + "}" + p.XMLName.Local
				switch ps.Status {
				case "HTTP/1.1 200 OK":
					resp.Props[name] = p.Inner
				case "HTTP/1.1 404 Not Found":
					resp.Missing = append(resp.Missing, name)
				default:
					t.Errorf("unexpected propstat status %q", ps.Status)
				}
			}
		}
		out = append(out, resp)
	}
	return out
}

func hrefs(rs []msResponse) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Href)
	}
	return out
}

// davURL is the WebDAV URL of path in uid's tree.
func davURL(uid, path string) string { return "/remote.php/dav/files/" + uid + encodeDAVPath(path) }

// mustPanic fails unless fn panics.
func mustPanic(t *testing.T, name string, fn func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", name)
		}
	}()
	fn()
}

func TestEventSequences(t *testing.T) {
	tests := []struct {
		name string
		run  func(f *fixture) (want []string)
	}{
		{"PUT creates a file", func(f *fixture) []string {
			mustStatus(f.t, f.do("PUT", davURL("alice", "/a.txt"), "alice", "hi"), http.StatusCreated)
			id := f.id("alice", "/a.txt")
			return []string{
				"BeforeNodeCreatedEvent /alice/files/a.txt by alice",
				"BeforeNodeWrittenEvent /alice/files/a.txt by alice",
				fmt.Sprintf("NodeCreatedEvent /alice/files/a.txt#%d by alice", id),
				fmt.Sprintf("NodeWrittenEvent /alice/files/a.txt#%d by alice", id),
			}
		}},
		{"PUT overwrites a file", func(f *fixture) []string {
			id := f.s.SeedFile("alice", "/a.txt", []byte("old")).ID
			mustStatus(f.t, f.do("PUT", davURL("alice", "/a.txt"), "alice", "new"), http.StatusNoContent)
			return []string{
				fmt.Sprintf("BeforeNodeWrittenEvent /alice/files/a.txt#%d by alice", id),
				fmt.Sprintf("NodeWrittenEvent /alice/files/a.txt#%d by alice", id),
			}
		}},
		{"PUT with X-OC-Mtime touches", func(f *fixture) []string {
			mustStatus(f.t, f.do("PUT", davURL("alice", "/a.txt"), "alice", "hi", "X-OC-Mtime", "1600000000"), http.StatusCreated)
			id := f.id("alice", "/a.txt")
			return []string{
				"BeforeNodeCreatedEvent /alice/files/a.txt by alice",
				"BeforeNodeWrittenEvent /alice/files/a.txt by alice",
				fmt.Sprintf("BeforeNodeTouchedEvent /alice/files/a.txt#%d by alice", id),
				fmt.Sprintf("NodeTouchedEvent /alice/files/a.txt#%d by alice", id),
				fmt.Sprintf("NodeCreatedEvent /alice/files/a.txt#%d by alice", id),
				fmt.Sprintf("NodeWrittenEvent /alice/files/a.txt#%d by alice", id),
			}
		}},
		{"MKCOL creates a folder", func(f *fixture) []string {
			mustStatus(f.t, f.do("MKCOL", davURL("alice", "/Docs"), "alice", ""), http.StatusCreated)
			id := f.id("alice", "/Docs")
			return []string{
				"BeforeNodeCreatedEvent /alice/files/Docs by alice",
				"BeforeNodeWrittenEvent /alice/files/Docs by alice",
				fmt.Sprintf("NodeCreatedEvent /alice/files/Docs#%d by alice", id),
				fmt.Sprintf("NodeWrittenEvent /alice/files/Docs#%d by alice", id),
			}
		}},
		{"DELETE moves to the trash", func(f *fixture) []string {
			id := f.s.SeedFile("alice", "/Docs/a.txt", []byte("x")).ID
			mustStatus(f.t, f.do("DELETE", davURL("alice", "/Docs/a.txt"), "alice", ""), http.StatusNoContent)
			return []string{
				fmt.Sprintf("BeforeNodeDeletedEvent /alice/files/Docs/a.txt#%d by alice", id),
				fmt.Sprintf("NodeDeletedEvent /alice/files/Docs/a.txt#%d by alice", id),
			}
		}},
		{"MOVE renames", func(f *fixture) []string {
			id := f.s.SeedFile("alice", "/a.txt", []byte("x")).ID
			mustStatus(f.t, f.do("MOVE", davURL("alice", "/a.txt"), "alice", "", "Destination", "http://nc"+davURL("alice", "/b.txt")), http.StatusCreated)
			return []string{
				fmt.Sprintf("BeforeNodeRenamedEvent /alice/files/a.txt#%d -> /alice/files/b.txt by alice", id),
				fmt.Sprintf("NodeRenamedEvent /alice/files/a.txt -> /alice/files/b.txt#%d by alice", id),
			}
		}},
		{"MOVE over an existing file deletes it first", func(f *fixture) []string {
			a := f.s.SeedFile("alice", "/a.txt", []byte("a")).ID
			b := f.s.SeedFile("alice", "/Docs/b.txt", []byte("b")).ID
			mustStatus(f.t, f.do("MOVE", davURL("alice", "/a.txt"), "alice", "", "Destination", davURL("alice", "/Docs/b.txt")), http.StatusNoContent)
			return []string{
				fmt.Sprintf("BeforeNodeDeletedEvent /alice/files/Docs/b.txt#%d by alice", b),
				fmt.Sprintf("NodeDeletedEvent /alice/files/Docs/b.txt#%d by alice", b),
				fmt.Sprintf("BeforeNodeRenamedEvent /alice/files/a.txt#%d -> /alice/files/Docs/b.txt by alice", a),
				fmt.Sprintf("NodeRenamedEvent /alice/files/a.txt -> /alice/files/Docs/b.txt#%d by alice", a),
			}
		}},
		{"COPY copies with a new id", func(f *fixture) []string {
			src := f.s.SeedFile("alice", "/a.txt", []byte("x")).ID
			mustStatus(f.t, f.do("COPY", davURL("alice", "/a.txt"), "alice", "", "Destination", davURL("alice", "/c.txt")), http.StatusCreated)
			dst := f.id("alice", "/c.txt")
			if dst == src {
				f.t.Errorf("copy kept the id %d", src)
			}
			return []string{
				fmt.Sprintf("BeforeNodeCopiedEvent /alice/files/a.txt#%d -> /alice/files/c.txt by alice", src),
				"BeforeNodeCreatedEvent /alice/files/c.txt by alice",
				"BeforeNodeWrittenEvent /alice/files/c.txt by alice",
				fmt.Sprintf("NodeCopiedEvent /alice/files/a.txt#%d -> /alice/files/c.txt#%d by alice", src, dst),
				fmt.Sprintf("NodeCreatedEvent /alice/files/c.txt#%d by alice", dst),
				fmt.Sprintf("NodeWrittenEvent /alice/files/c.txt#%d by alice", dst),
			}
		}},
		{"restore from the trash", func(f *fixture) []string {
			id := f.s.SeedFile("alice", "/Docs/a.txt", []byte("x")).ID
			f.s.Remove("alice", "/Docs/a.txt")
			trash := fmt.Sprintf("a.txt.d%d", t0)
			mustStatus(f.t, f.do("MOVE", "/remote.php/dav/trashbin/alice/trash/"+trash, "alice", "",
				"Destination", "/remote.php/dav/trashbin/alice/restore/a.txt"), http.StatusCreated)
			return []string{
				fmt.Sprintf("BeforeNodeDeletedEvent /alice/files/Docs/a.txt#%d by alice", id),
				fmt.Sprintf("NodeDeletedEvent /alice/files/Docs/a.txt#%d by alice", id),
				"BeforeNodeRestoredEvent /alice/files_trashbin/files/" + trash + " -> /alice/files/Docs/a.txt by alice",
				fmt.Sprintf("BeforeNodeTouchedEvent /alice/files/Docs/a.txt#%d by alice", id),
				fmt.Sprintf("NodeTouchedEvent /alice/files/Docs/a.txt#%d by alice", id),
				fmt.Sprintf("NodeRestoredEvent /alice/files_trashbin/files/%s -> /alice/files/Docs/a.txt#%d by alice", trash, id),
			}
		}},
		{"sharing and unsharing fire nothing", func(f *fixture) []string {
			f.s.SeedFile("alice", "/a.txt", []byte("x"))
			sh := f.s.Share("alice", "/a.txt", "bob")
			f.s.Unshare(sh.ID)
			return nil
		}},
		{"setup PutFile creates parents like MKCOL", func(f *fixture) []string {
			fi := f.s.PutFile("alice", "/New/a.md", []byte("# A"))
			dir := f.id("alice", "/New")
			return []string{
				"BeforeNodeCreatedEvent /alice/files/New by alice",
				"BeforeNodeWrittenEvent /alice/files/New by alice",
				fmt.Sprintf("NodeCreatedEvent /alice/files/New#%d by alice", dir),
				fmt.Sprintf("NodeWrittenEvent /alice/files/New#%d by alice", dir),
				"BeforeNodeCreatedEvent /alice/files/New/a.md by alice",
				"BeforeNodeWrittenEvent /alice/files/New/a.md by alice",
				fmt.Sprintf("NodeCreatedEvent /alice/files/New/a.md#%d by alice", fi.ID),
				fmt.Sprintf("NodeWrittenEvent /alice/files/New/a.md#%d by alice", fi.ID),
			}
		}},
		{"seeding and loading fire nothing", func(f *fixture) []string {
			f.s.SeedFile("alice", "/x/y.txt", []byte("y"))
			dir := f.t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "z.txt"), []byte("z"), 0o644); err != nil {
				f.t.Fatal(err)
			}
			if _, err := f.s.LoadDir("alice", "/loaded", dir); err != nil {
				f.t.Fatal(err)
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "alice", "bob")
			want := tt.run(f)
			sameStrings(t, "events", f.eventsSince(0), want)
		})
	}
}

// id returns the file id of path in uid's view, failing if it is missing.
func (f *fixture) id(uid, path string) int64 {
	f.t.Helper()
	fi, ok := f.s.Stat(uid, path)
	if !ok {
		f.t.Fatalf("%s does not see %s", uid, path)
	}
	return fi.ID
}

func TestSetupAPI(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	s := f.s
	a := s.PutFile("alice", "/Docs/Report.pdf", []byte("%PDF-1.4"))
	if a.Path != "/Docs/Report.pdf" || a.MIME != "application/pdf" || a.Size != 8 || a.IsDir || a.Owner != "alice" {
		t.Errorf("PutFile = %+v", a)
	}
	if len(a.ETag) != 13 {
		t.Errorf("etag %q is not 13 hex digits", a.ETag)
	}
	if !a.Modified.Equal(time.Unix(t0, 0)) || a.Permissions != "RGDNVW" {
		t.Errorf("PutFile modified/permissions = %v %q", a.Modified, a.Permissions)
	}
	got, ok := s.ReadFile("alice", "/Docs/Report.pdf")
	if !ok || string(got) != "%PDF-1.4" {
		t.Errorf("ReadFile = %q, %v", got, ok)
	}
	if _, ok := s.ReadFile("alice", "/Docs"); ok {
		t.Errorf("ReadFile of a folder succeeded")
	}
	docs, _ := s.Stat("alice", "/Docs")
	if !docs.IsDir || docs.MIME != "httpd/unix-directory" || docs.Size != 8 || docs.Permissions != "RGDNVCK" {
		t.Errorf("Stat(/Docs) = %+v", docs)
	}

	f.tick(10)
	b := s.PutFile("alice", "/Docs/Report.pdf", []byte("%PDF-1.5 longer"))
	if b.ID != a.ID || b.ETag == a.ETag || !b.Modified.Equal(time.Unix(t0+10, 0)) {
		t.Errorf("overwrite = %+v, before %+v", b, a)
	}
	docs2, _ := s.Stat("alice", "/Docs")
	root2, _ := s.Stat("alice", "/")
	if docs2.ETag == docs.ETag || docs2.Size != 15 || root2.Size != 15 {
		t.Errorf("folder etag/size did not propagate: %+v", docs2)
	}

	sh := s.Share("alice", "/Docs", "bob")
	if sh.Target != "/Docs" || sh.Permissions != 31 || !sh.IsDir || sh.Path != "/Docs" {
		t.Errorf("Share = %+v", sh)
	}
	var walked []string
	for _, fi := range s.Walk("bob") {
		walked = append(walked, fmt.Sprintf("%s#%d %s", fi.Path, fi.ID, fi.Permissions))
	}
	sameStrings(t, "Walk(bob)", walked, []string{
		fmt.Sprintf("/Docs#%d SRMGDNVCK", docs.ID),
		fmt.Sprintf("/Docs/Report.pdf#%d SRMGDNVW", a.ID),
	})

	moved := s.Move("alice", "/Docs/Report.pdf", "/Report.pdf")
	copied := s.Copy("alice", "/Report.pdf", "/Docs/Copy.pdf")
	if moved.ID != a.ID || copied.ID == a.ID || copied.Path != "/Docs/Copy.pdf" {
		t.Errorf("Move/Copy = %+v / %+v", moved, copied)
	}
	s.Remove("alice", "/Report.pdf")
	if _, ok := s.Stat("alice", "/Report.pdf"); ok {
		t.Errorf("removed file is still visible")
	}
	trash := s.Trash("alice")
	if len(trash) != 1 || trash[0].OriginalName != "Report.pdf" || trash[0].OriginalLocation != "/" || trash[0].ID != a.ID {
		t.Fatalf("Trash = %+v", trash)
	}
	restored := s.Restore("alice", trash[0].Name)
	if restored.ID != a.ID || restored.Path != "/Report.pdf" {
		t.Errorf("Restore = %+v", restored)
	}

	mustPanic(t, "PutFile unknown user", func() { s.PutFile("nobody", "/a", nil) })
	mustPanic(t, "Mkdir missing parent", func() { s.Mkdir("alice", "/no/such") })
	mustPanic(t, "Remove missing", func() { s.Remove("alice", "/missing") })
	mustPanic(t, "Move onto existing", func() { s.Move("alice", "/Report.pdf", "/Docs/Copy.pdf") })
	mustPanic(t, "Restore missing", func() { s.Restore("alice", "x.d1") })
	mustPanic(t, "Share with unknown", func() { s.Share("alice", "/Docs", "nobody") })
	mustPanic(t, "Unshare unknown", func() { s.Unshare("999") })
	mustPanic(t, "PutFile onto a folder", func() { s.PutFile("alice", "/Docs", nil) })
}

func TestLoadDir(t *testing.T) {
	f := newFixture(t, "alice")
	dir := t.TempDir()
	mtime := time.Unix(1_600_000_000, 0)
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "# A")
	write("sub/b.txt", "b")
	if err := os.Symlink(filepath.Join(dir, "a.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	n, err := f.s.LoadDir("alice", "/corpus", dir)
	if err != nil || n != 2 {
		t.Fatalf("LoadDir = %d, %v; want 2 files", n, err)
	}
	var got []string
	for _, fi := range f.s.Walk("alice") {
		got = append(got, fi.Path)
	}
	sameStrings(t, "tree", got, []string{"/corpus", "/corpus/a.md", "/corpus/sub", "/corpus/sub/b.txt"})
	fi, _ := f.s.Stat("alice", "/corpus/a.md")
	if !fi.Modified.Equal(mtime) || fi.MIME != "text/markdown" {
		t.Errorf("loaded file = %+v", fi)
	}
	if _, err := f.s.LoadDir("alice", "/x", filepath.Join(dir, "missing")); err == nil {
		t.Errorf("LoadDir of a missing folder succeeded")
	}
	if len(f.s.Events()) != 0 {
		t.Errorf("LoadDir fired %d events", len(f.s.Events()))
	}
}

func TestMIME(t *testing.T) {
	tests := []struct {
		name, mime, secure string
		preview            bool
	}{
		{"a.md", "text/markdown", "text/markdown", true},
		{"A.TXT", "text/plain", "text/plain", true},
		{"r.pdf", "application/pdf", "application/pdf", false},
		{"d.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", false},
		{"p.html", "text/html", "text/plain", false},
		{"m.eml", "message/rfc822", "message/rfc822", false},
		{"x.json", "application/json", "text/plain", false},
		{"photo.jpg", "image/jpeg", "image/jpeg", true},
		{".hidden", "application/octet-stream", "application/octet-stream", false},
		{"noext", "application/octet-stream", "application/octet-stream", false},
	}
	for _, tt := range tests {
		if got := mimeFor(tt.name); got != tt.mime {
			t.Errorf("mimeFor(%q) = %q, want %q", tt.name, got, tt.mime)
		}
		if got := secureMIMEFor(tt.name); got != tt.secure {
			t.Errorf("secureMIMEFor(%q) = %q, want %q", tt.name, got, tt.secure)
		}
		if got := hasPreview(mimeFor(tt.name)); got != tt.preview {
			t.Errorf("hasPreview(%q) = %v, want %v", tt.name, got, tt.preview)
		}
	}
}

func TestAppAPIImpersonation(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	f.s.SeedFile("alice", "/a.md", []byte("a"))
	env, err := f.s.RegisterExApp(ExAppRegistration{ID: "hybrid_search", Name: "Hybrid Search", Version: "1.0.0", URL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	aaEnable(t, f.s, "hybrid_search")
	tests := []struct {
		name, method, url, as string
		want                  int
	}{
		{"PROPFIND as alice", "PROPFIND", davURL("alice", "/"), "alice", 207},
		{"GET as alice", "GET", davURL("alice", "/a.md"), "alice", 200},
		{"SEARCH as alice", "SEARCH", "/remote.php/dav/", "alice", 400}, // empty body
		{"PROPFIND without a user", "PROPFIND", davURL("alice", "/"), "", 401},
		{"alice's file as bob", "GET", davURL("alice", "/a.md"), "bob", 404},
		{"notes as alice", "GET", notesURL, "alice", 200},
		{"notes without a user", "GET", notesURL, "", 401},
		{"shares as alice", "GET", sharesURL + "?format=json", "alice", 200},
		{"shares without a user", "GET", sharesURL + "?format=json", "", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.req(tt.method, tt.url, "", "")
			for k, v := range aaAppHeader(env, tt.as) {
				r.Header[k] = v
			}
			mustStatus(t, serve(f, r), tt.want)
		})
	}
	// A wrong secret is no login at all.
	r := f.req("PROPFIND", davURL("alice", "/"), "", "")
	for k, v := range aaAppHeader(env, "alice") {
		r.Header[k] = v
	}
	r.Header.Set("AUTHORIZATION-APP-API", b64("alice:wrong"))
	mustStatus(t, serve(f, r), http.StatusUnauthorized)
}

// TestGoneNodeIDs: the simulator plays every form in which Nextcloud sends
// a node that no longer exists (GoneIDs): a delete and a rename's source,
// with or without the id.
func TestGoneNodeIDs(t *testing.T) {
	for _, tt := range []struct {
		mode          GoneIDs
		deleted, from bool // whether each carries the id
	}{{GoneIDsMixed, true, false}, {GoneIDsNone, false, false}, {GoneIDsAll, true, true}} {
		f := newFixture(t, "alice")
		f.s.GoneNodeIDs = tt.mode
		a := f.s.SeedFile("alice", "/a.txt", []byte("a")).ID
		b := f.s.SeedFile("alice", "/b.txt", []byte("b")).ID
		mustStatus(t, f.do("DELETE", davURL("alice", "/a.txt"), "alice", ""), http.StatusNoContent)
		mustStatus(t, f.do("MOVE", davURL("alice", "/b.txt"), "alice", "", "Destination", davURL("alice", "/c.txt")), http.StatusCreated)
		del, ren := "NodeDeletedEvent /alice/files/a.txt by alice", fmt.Sprintf("NodeRenamedEvent /alice/files/b.txt -> /alice/files/c.txt#%d by alice", b)
		if tt.deleted {
			del = fmt.Sprintf("NodeDeletedEvent /alice/files/a.txt#%d by alice", a)
		}
		if tt.from {
			ren = fmt.Sprintf("NodeRenamedEvent /alice/files/b.txt#%d -> /alice/files/c.txt#%d by alice", b, b)
		}
		sameStrings(t, fmt.Sprintf("events of mode %d", tt.mode), f.eventsSince(0), []string{
			fmt.Sprintf("BeforeNodeDeletedEvent /alice/files/a.txt#%d by alice", a), del,
			fmt.Sprintf("BeforeNodeRenamedEvent /alice/files/b.txt#%d -> /alice/files/c.txt by alice", b), ren,
		})
	}
}
