package ncsim

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// searchBody builds a SEARCH request body.
func searchBody(scope, where, orderby, limit string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<d:searchrequest xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">
 <d:basicsearch>
  <d:select><d:prop><oc:fileid/><d:getetag/><d:getlastmodified/><d:getcontenttype/><oc:size/></d:prop></d:select>
  <d:from><d:scope><d:href>` + scope + `</d:href><d:depth>infinity</d:depth></d:scope></d:from>
  <d:where>` + where + `</d:where>
  <d:orderby>` + orderby + `</d:orderby>` + limit + `
 </d:basicsearch>
</d:searchrequest>`
}

func TestSearch(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	f.s.SeedFile("alice", "/old.md", []byte("old"))
	f.tick(100)
	mid := f.s.SeedFile("alice", "/Docs/mid.pdf", []byte("mid-size"))
	f.tick(100)
	recent := f.s.SeedFile("alice", "/Docs/Recent Notes.txt", []byte("r"))
	theirs := f.s.SeedFile("bob", "/shared.md", []byte("from bob"))
	f.s.SeedFile("bob", "/private.md", []byte("private"))
	f.s.Share("bob", "/shared.md", "alice")

	h := func(p string) string { return "/remote.php/dav/files/alice" + encodeDAVPath(p) }
	prop := func(p string) string { return "<d:prop>" + p + "</d:prop>" }
	tests := []struct {
		name, scope, where, orderby, limit string
		want                               []string
	}{
		{"by fileid", "/files/alice", `<d:eq>` + prop("<oc:fileid/>") + fmt.Sprintf("<d:literal>%d</d:literal></d:eq>", mid.ID), "", "",
			[]string{h("/Docs/mid.pdf")}},
		{"fileid of a received share", "/files/alice", `<d:eq>` + prop("<oc:fileid/>") + fmt.Sprintf("<d:literal>%d</d:literal></d:eq>", theirs.ID), "", "",
			[]string{h("/shared.md")}},
		{"modified after a unix time", "/files/alice", `<d:gt>` + prop("<d:getlastmodified/>") + fmt.Sprintf("<d:literal>%d</d:literal></d:gt>", t0+50), "", "",
			[]string{h("/Docs"), h("/Docs/mid.pdf"), h("/Docs/Recent Notes.txt"), h("/shared.md")}},
		{"modified after an ATOM date, files only", "/files/alice",
			`<d:and><d:gte>` + prop("<d:getlastmodified/>") + "<d:literal>" + time.Unix(t0+200, 0).UTC().Format(time.RFC3339) + `</d:literal></d:gte><d:not><d:is-collection/></d:not></d:and>`, "", "",
			[]string{h("/Docs/Recent Notes.txt"), h("/shared.md")}},
		{"like on the name, newest first", "/files/alice", `<d:like>` + prop("<d:displayname/>") + `<d:literal>%.m_</d:literal></d:like>`,
			`<d:order>` + prop("<d:getlastmodified/>") + `<d:descending/></d:order>`, "",
			[]string{h("/shared.md"), h("/old.md")}},
		{"mime like, limited", "/files/alice", `<d:like>` + prop("<d:getcontenttype/>") + `<d:literal>text/%</d:literal></d:like>`,
			`<d:order>` + prop("<oc:size/>") + `<d:ascending/></d:order>`, "<d:limit><d:nresults>2</d:nresults></d:limit>",
			[]string{h("/Docs/Recent Notes.txt"), h("/old.md")}},
		{"folders only", "/files/alice", `<d:is-collection/>`, "", "", []string{h("/Docs")}},
		{"scope folder", "/files/alice/Docs", `<d:or><d:lt>` + prop("<oc:size/>") + `<d:literal>2</d:literal></d:lt><d:eq>` + prop("<d:getcontenttype/>") + `<d:literal>application/pdf</d:literal></d:eq></d:or>`, "", "",
			[]string{h("/Docs/mid.pdf"), h("/Docs/Recent Notes.txt")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := parseMultistatus(t, f.do("SEARCH", "/remote.php/dav/", "alice", searchBody(tt.scope, tt.where, tt.orderby, tt.limit), "Content-Type", "text/xml"))
			sameStrings(t, "hrefs", hrefs(rs), tt.want)
		})
	}

	rs := parseMultistatus(t, f.do("SEARCH", "/remote.php/dav", "alice",
		searchBody("/files/alice", `<d:eq>`+prop("<oc:fileid/>")+fmt.Sprintf("<d:literal>%d</d:literal></d:eq>", recent.ID), "", "")))
	if len(rs) != 1 {
		t.Fatalf("hrefs = %v", hrefs(rs))
	}
	for k, want := range map[string]string{
		"{http://owncloud.org/ns}fileid": fmt.Sprint(recent.ID),
		"{DAV:}getetag":                  `"` + recent.ETag + `"`,
		"{DAV:}getcontenttype":           "text/plain",
		"{http://owncloud.org/ns}size":   "1",
		"{DAV:}getlastmodified":          time.Unix(t0+200, 0).UTC().Format(http.TimeFormat),
	} {
		if got := rs[0].Props[k]; got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}

	errs := []struct {
		name, body string
		want       int
	}{
		{"other user's scope", searchBody("/files/bob", "", "", ""), 400},
		{"unknown user's scope", searchBody("/files/nobody", "", "", ""), 404},
		{"missing scope folder", searchBody("/files/alice/nope", "", "", ""), 404},
		{"scope is a file", searchBody("/files/alice/old.md", "", "", ""), 400},
		{"unsupported property", searchBody("/files/alice", `<d:eq>`+prop("<oc:checksums/>")+`<d:literal>1</d:literal></d:eq>`, "", ""), 400},
		{"bad literal", searchBody("/files/alice", `<d:gt>`+prop("<oc:size/>")+`<d:literal>big</d:literal></d:gt>`, "", ""), 400},
		{"not a searchrequest", `<d:propfind xmlns:d="DAV:"/>`, 400},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			w := f.do("SEARCH", "/remote.php/dav/", "alice", tt.body)
			mustStatus(t, w, tt.want)
			if !strings.Contains(w.Body.String(), "<s:exception>") {
				t.Errorf("no Sabre error body: %s", w.Body.String())
			}
		})
	}
	// bob cannot find alice's files by id.
	rs = parseMultistatus(t, f.do("SEARCH", "/remote.php/dav/", "bob",
		searchBody("/files/bob", `<d:eq>`+prop("<oc:fileid/>")+fmt.Sprintf("<d:literal>%d</d:literal></d:eq>", mid.ID), "", "")))
	if len(rs) != 0 {
		t.Errorf("bob found alice's file: %v", hrefs(rs))
	}
}
