package ncsim

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

const fullPropfind = `<?xml version="1.0"?>
<d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">
 <d:prop><d:getlastmodified/><d:getetag/><d:getcontenttype/><d:resourcetype/>
  <d:getcontentlength/><oc:fileid/><oc:id/><oc:size/><oc:permissions/><nc:has-preview/>
  <oc:share-types/><oc:owner-id/><oc:owner-display-name/><x:unknown xmlns:x="urn:x"/></d:prop>
</d:propfind>`

func TestPropfindShapes(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	mustStatus(t, f.do("MKCOL", davURL("alice", "/My Docs"), "alice", ""), http.StatusCreated)
	f.tick(5)
	mustStatus(t, f.do("PUT", davURL("alice", "/My Docs/Plan (v2).md"), "alice", "# Plan"), http.StatusCreated)
	f.s.Share("alice", "/My Docs/Plan (v2).md", "bob")
	file, _ := f.s.Stat("alice", "/My Docs/Plan (v2).md")
	dir, _ := f.s.Stat("alice", "/My Docs")

	rs := parseMultistatus(t, f.do("PROPFIND", davURL("alice", "/My Docs"), "alice", fullPropfind, "Depth", "1"))
	sameStrings(t, "hrefs", hrefs(rs), []string{
		"/remote.php/dav/files/alice/My%20Docs/",
		"/remote.php/dav/files/alice/My%20Docs/Plan%20(v2).md",
	})
	d, fl := rs[0], rs[1]
	wantDir := map[string]string{
		"{DAV:}getlastmodified":                      time.Unix(t0+5, 0).UTC().Format(http.TimeFormat),
		"{DAV:}getetag":                              `"` + dir.ETag + `"`,
		"{DAV:}resourcetype":                         `<d:collection/>`,
		"{http://owncloud.org/ns}fileid":             fmt.Sprint(dir.ID),
		"{http://owncloud.org/ns}id":                 fmt.Sprintf("%08d%s", dir.ID, "ocsim0000001"),
		"{http://owncloud.org/ns}size":               "6",
		"{http://owncloud.org/ns}permissions":        "RGDNVCK",
		"{http://nextcloud.org/ns}has-preview":       "false",
		"{http://owncloud.org/ns}share-types":        "",
		"{http://owncloud.org/ns}owner-id":           "alice",
		"{http://owncloud.org/ns}owner-display-name": "Alice",
	}
	if !reflect.DeepEqual(d.Props, wantDir) {
		t.Errorf("folder props:\n got  %v\n want %v", d.Props, wantDir)
	}
	sort.Strings(d.Missing)
	sameStrings(t, "folder 404 props", d.Missing, []string{"{DAV:}getcontentlength", "{DAV:}getcontenttype", "{urn:x}unknown"})

	wantFile := map[string]string{
		"{DAV:}getlastmodified":                      time.Unix(t0+5, 0).UTC().Format(http.TimeFormat),
		"{DAV:}getetag":                              `"` + file.ETag + `"`,
		"{DAV:}getcontenttype":                       "text/markdown",
		"{DAV:}resourcetype":                         "",
		"{DAV:}getcontentlength":                     "6",
		"{http://owncloud.org/ns}fileid":             fmt.Sprint(file.ID),
		"{http://owncloud.org/ns}id":                 fmt.Sprintf("%08d%s", file.ID, "ocsim0000001"),
		"{http://owncloud.org/ns}size":               "6",
		"{http://owncloud.org/ns}permissions":        "RGDNVW",
		"{http://nextcloud.org/ns}has-preview":       "true",
		"{http://owncloud.org/ns}share-types":        `<oc:share-type>0</oc:share-type>`,
		"{http://owncloud.org/ns}owner-id":           "alice",
		"{http://owncloud.org/ns}owner-display-name": "Alice",
	}
	if !reflect.DeepEqual(fl.Props, wantFile) {
		t.Errorf("file props:\n got  %v\n want %v", fl.Props, wantFile)
	}
	sameStrings(t, "file 404 props", fl.Missing, []string{"{urn:x}unknown"})

	// The recipient sees the same id, its own path and share permissions,
	// and no share-types (it did not share the file).
	rs = parseMultistatus(t, f.do("PROPFIND", davURL("bob", "/Plan (v2).md"), "bob", fullPropfind, "Depth", "0"))
	if len(rs) != 1 || rs[0].Href != "/remote.php/dav/files/bob/Plan%20(v2).md" {
		t.Fatalf("recipient hrefs = %v", hrefs(rs))
	}
	for prop, want := range map[string]string{
		"{http://owncloud.org/ns}fileid":      fmt.Sprint(file.ID),
		"{DAV:}getetag":                       `"` + file.ETag + `"`,
		"{http://owncloud.org/ns}permissions": "SRMGDNVW",
		"{http://owncloud.org/ns}share-types": "",
		"{http://owncloud.org/ns}owner-id":    "alice",
	} {
		if got := rs[0].Props[prop]; got != want {
			t.Errorf("recipient %s = %q, want %q", prop, got, want)
		}
	}
}

func TestPropfindAllprop(t *testing.T) {
	f := newFixture(t, "alice")
	f.s.SeedFile("alice", "/a.txt", []byte("abc"))
	rs := parseMultistatus(t, f.do("PROPFIND", davURL("alice", "/"), "alice", ""))
	if len(rs) != 2 {
		t.Fatalf("hrefs = %v", hrefs(rs))
	}
	var names []string
	for n := range rs[1].Props {
		names = append(names, n)
	}
	sort.Strings(names)
	sameStrings(t, "allprop on a file", names, []string{"{DAV:}getcontentlength", "{DAV:}getcontenttype", "{DAV:}getetag", "{DAV:}getlastmodified", "{DAV:}resourcetype"})
	if len(rs[0].Missing)+len(rs[1].Missing) != 0 {
		t.Errorf("allprop returned 404 propstats: %v %v", rs[0].Missing, rs[1].Missing)
	}
	if rs[0].Props["{DAV:}quota-available-bytes"] != "-3" || rs[0].Props["{DAV:}quota-used-bytes"] != "3" {
		t.Errorf("root quota props = %v", rs[0].Props)
	}
	mustStatus(t, f.do("PROPFIND", davURL("alice", "/"), "alice", "<not xml"), http.StatusBadRequest)
}

func TestPropfindDepth(t *testing.T) {
	f := newFixture(t, "alice")
	f.s.SeedFile("alice", "/a.txt", []byte("a"))
	f.s.SeedFile("alice", "/Docs/b.txt", []byte("b"))
	f.s.SeedFile("alice", "/Docs/Deep/c.txt", []byte("c"))
	base := "/remote.php/dav/files/alice"
	tests := []struct {
		name, url, depth string
		want             []string
	}{
		{"depth 0", base, "0", []string{base + "/"}},
		{"depth 1 with slash", base + "/", "1", []string{base + "/", base + "/Docs/", base + "/a.txt"}},
		{"missing depth is 1", base, "", []string{base + "/", base + "/Docs/", base + "/a.txt"}},
		{"depth infinity", base, "infinity", []string{base + "/", base + "/Docs/", base + "/Docs/Deep/", base + "/Docs/Deep/c.txt", base + "/Docs/b.txt", base + "/a.txt"}},
		{"file with depth 1", base + "/a.txt", "1", []string{base + "/a.txt"}},
		{"legacy endpoint", "/remote.php/webdav/Docs", "1", []string{"/remote.php/webdav/Docs/", "/remote.php/webdav/Docs/Deep/", "/remote.php/webdav/Docs/b.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h []string
			if tt.depth != "" {
				h = []string{"Depth", tt.depth}
			}
			got := hrefs(parseMultistatus(t, f.do("PROPFIND", tt.url, "alice", `<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>`, h...)))
			sameStrings(t, "hrefs", got, tt.want)
		})
	}
}

func TestGetMatchesPropfind(t *testing.T) {
	f := newFixture(t, "alice")
	f.s.SeedFile("alice", "/page.html", []byte("<p>hi</p>"))
	rs := parseMultistatus(t, f.do("PROPFIND", davURL("alice", "/page.html"), "alice", fullPropfind, "Depth", "0"))
	w := f.do("GET", davURL("alice", "/page.html"), "alice", "")
	mustStatus(t, w, http.StatusOK)
	if got, want := w.Header().Get("ETag"), rs[0].Props["{DAV:}getetag"]; got != want {
		t.Errorf("GET ETag %q != PROPFIND getetag %q", got, want)
	}
	if got, want := w.Header().Get("Last-Modified"), rs[0].Props["{DAV:}getlastmodified"]; got != want {
		t.Errorf("GET Last-Modified %q != PROPFIND %q", got, want)
	}
	if ct := w.Header().Get("Content-Type"); ct != "text/plain" {
		t.Errorf("GET Content-Type = %q, want the secure text/plain", ct)
	}
	if rs[0].Props["{DAV:}getcontenttype"] != "text/html" {
		t.Errorf("PROPFIND getcontenttype = %q", rs[0].Props["{DAV:}getcontenttype"])
	}
	if w.Body.String() != "<p>hi</p>" {
		t.Errorf("GET body = %q", w.Body.String())
	}
	h := f.do("HEAD", davURL("alice", "/page.html"), "alice", "")
	if h.Code != http.StatusOK || h.Body.Len() != 0 || h.Header().Get("ETag") != w.Header().Get("ETag") {
		t.Errorf("HEAD = %d %q %q", h.Code, h.Body.String(), h.Header().Get("ETag"))
	}
	nm := f.do("GET", davURL("alice", "/page.html"), "alice", "", "If-None-Match", w.Header().Get("ETag"))
	mustStatus(t, nm, http.StatusNotModified)
	rg := f.do("GET", davURL("alice", "/page.html"), "alice", "", "Range", "bytes=0-2")
	if rg.Code != http.StatusPartialContent || rg.Body.String() != "<p>" {
		t.Errorf("range GET = %d %q", rg.Code, rg.Body.String())
	}
}

func TestDAVStatuses(t *testing.T) {
	f := newFixture(t, "alice")
	u := func(p string) string { return davURL("alice", p) }
	tests := []struct {
		name, method, path, body string
		header                   []string
		want                     int
		exception                string
	}{
		{"PUT new", "PUT", "/a.txt", "one", nil, 201, ""},
		{"PUT overwrite", "PUT", "/a.txt", "two", nil, 204, ""},
		{"PUT into missing folder", "PUT", "/missing/a.txt", "x", nil, 409, exConflict},
		{"PUT below a file", "PUT", "/a.txt/b.txt", "x", nil, 409, exConflict},
		{"MKCOL", "MKCOL", "/Docs", "", nil, 201, ""},
		{"MKCOL existing", "MKCOL", "/Docs", "", nil, 405, exMethodNotAllowed},
		{"MKCOL missing parent", "MKCOL", "/x/y", "", nil, 409, exConflict},
		{"PUT onto a folder", "PUT", "/Docs", "x", nil, 409, exConflict},
		{"PUT If-Match stale", "PUT", "/a.txt", "x", []string{"If-Match", `"stale"`}, 412, exPrecondition},
		{"PUT If-None-Match star on existing", "PUT", "/a.txt", "x", []string{"If-None-Match", "*"}, 412, exPrecondition},
		{"invalid name", "MKCOL", `/a\b`, "", nil, 400, exInvalidPath},
		{"COPY", "COPY", "/a.txt", "", []string{"Destination", u("/Docs/a.txt")}, 201, ""},
		{"COPY overwrite F", "COPY", "/a.txt", "", []string{"Destination", u("/Docs/a.txt"), "Overwrite", "F"}, 412, exPrecondition},
		{"COPY overwrite T", "COPY", "/a.txt", "", []string{"Destination", u("/Docs/a.txt"), "Overwrite", "T"}, 204, ""},
		{"MOVE", "MOVE", "/a.txt", "", []string{"Destination", "http://example.org" + u("/b.txt")}, 201, ""},
		{"MOVE missing source", "MOVE", "/a.txt", "", []string{"Destination", u("/c.txt")}, 404, exNotFound},
		{"MOVE no destination", "MOVE", "/b.txt", "", nil, 400, exBadRequest},
		{"MOVE into missing folder", "MOVE", "/b.txt", "", []string{"Destination", u("/nope/b.txt")}, 409, exConflict},
		{"MOVE into itself", "MOVE", "/Docs", "", []string{"Destination", u("/Docs/sub")}, 409, exConflict},
		{"MOVE outside the tree", "MOVE", "/b.txt", "", []string{"Destination", "/remote.php/dav/files/bob/b.txt"}, 403, exForbidden},
		{"MOVE bad Overwrite", "MOVE", "/b.txt", "", []string{"Destination", u("/c.txt"), "Overwrite", "X"}, 400, exBadRequest},
		{"DELETE", "DELETE", "/b.txt", "", nil, 204, ""},
		{"DELETE missing", "DELETE", "/b.txt", "", nil, 404, exNotFound},
		{"GET missing", "GET", "/b.txt", "", nil, 404, exNotFound},
		{"GET folder", "GET", "/Docs", "", nil, 501, exNotImplemented},
		{"PROPFIND missing", "PROPFIND", "/nope", "", nil, 404, exNotFound},
		{"OPTIONS", "OPTIONS", "/", "", nil, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := f.do(tt.method, u(tt.path), "alice", tt.body, tt.header...)
			if w.Code != tt.want {
				t.Fatalf("%s %s = %d, want %d; body %s", tt.method, tt.path, w.Code, tt.want, w.Body.String())
			}
			if tt.exception != "" && !strings.Contains(w.Body.String(), "<s:exception>"+tt.exception+"</s:exception>") {
				t.Errorf("body lacks %s:\n%s", tt.exception, w.Body.String())
			}
		})
	}
	got, _ := f.s.ReadFile("alice", "/Docs/a.txt")
	if string(got) != "two" {
		t.Errorf("copied content = %q", got)
	}
}

func TestPutHeaders(t *testing.T) {
	f := newFixture(t, "alice")
	w := f.do("PUT", davURL("alice", "/a.txt"), "alice", "x", "X-OC-Mtime", "1600000000")
	mustStatus(t, w, http.StatusCreated)
	fi, _ := f.s.Stat("alice", "/a.txt")
	for h, want := range map[string]string{
		"ETag":       `"` + fi.ETag + `"`,
		"OC-ETag":    `"` + fi.ETag + `"`,
		"OC-FileId":  fmt.Sprintf("%08docsim0000001", fi.ID),
		"X-OC-MTime": "accepted",
	} {
		if got := w.Header().Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if !fi.Modified.Equal(time.Unix(1_600_000_000, 0)) {
		t.Errorf("mtime = %v", fi.Modified)
	}
}

func TestDAVAuth(t *testing.T) {
	f := newFixture(t, "alice")
	tests := []struct {
		name string
		req  *http.Request
	}{
		{"anonymous", f.req("PROPFIND", davURL("alice", "/"), "", "")},
		{"wrong password", func() *http.Request {
			r := f.req("PROPFIND", davURL("alice", "/"), "", "")
			r.SetBasicAuth("alice", "wrong")
			return r
		}()},
		{"anonymous search", f.req("SEARCH", "/remote.php/dav/", "", "")},
		{"anonymous trash", f.req("PROPFIND", "/remote.php/dav/trashbin/alice/trash", "", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(f, tt.req)
			mustStatus(t, w, http.StatusUnauthorized)
			if got := w.Header().Get("WWW-Authenticate"); got != `Basic realm="Nextcloud", charset="UTF-8"` {
				t.Errorf("WWW-Authenticate = %q", got)
			}
			if !strings.Contains(w.Body.String(), `<s:exception>Sabre\DAV\Exception\NotAuthenticated</s:exception>`) {
				t.Errorf("body = %s", w.Body.String())
			}
		})
	}
	r := f.req("PROPFIND", davURL("alice", "/"), "", "")
	r.SetBasicAuth("alice", "alice") // the login password works too
	mustStatus(t, serve(f, r), http.StatusMultiStatus)
}

func TestOtherUsersTree(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	f.s.SeedFile("bob", "/secret.txt", []byte("s"))
	rs := parseMultistatus(t, f.do("PROPFIND", davURL("bob", ""), "alice", fullPropfind, "Depth", "1"))
	if len(rs) != 1 || rs[0].Href != "/remote.php/dav/files/bob/" || rs[0].Props["{DAV:}resourcetype"] != "<d:collection/>" {
		t.Errorf("placeholder collection = %+v", rs)
	}
	tests := []struct {
		name, method, url string
		want              int
	}{
		{"PROPFIND a file of bob", "PROPFIND", davURL("bob", "/secret.txt"), 404},
		{"GET a file of bob", "GET", davURL("bob", "/secret.txt"), 404},
		{"GET bob's root", "GET", davURL("bob", "/"), 501},
		{"PUT into bob's root", "PUT", davURL("bob", "/x.txt"), 403},
		{"unknown user", "PROPFIND", davURL("nobody", "/"), 404},
		{"bob's trash", "PROPFIND", "/remote.php/dav/trashbin/bob/trash", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustStatus(t, f.do(tt.method, tt.url, "alice", ""), tt.want)
		})
	}
}

func TestUnknownDAVRoutes(t *testing.T) {
	f := newFixture(t, "alice")
	for _, tt := range []struct{ method, url string }{
		{"LOCK", davURL("alice", "/")},
		{"LOCK", "/remote.php/dav/uploads/alice/123/1"},
		{"GET", "/remote.php/status.php"},
	} {
		mustStatus(t, f.do(tt.method, tt.url, "alice", ""), http.StatusNotImplemented)
	}
	if got := f.s.Unhandled(); len(got) != 3 {
		t.Errorf("Unhandled = %q", got)
	}
}

// serve serves a prepared request.
func serve(f *fixture, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	f.s.ServeHTTP(w, r)
	return w
}
