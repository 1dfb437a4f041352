package nextcloud

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzMultistatus feeds arbitrary bodies to the PROPFIND and SEARCH
// response parser: it must never panic, and every entry it returns lies
// inside the user's files tree with a clean absolute path.
func FuzzMultistatus(f *testing.F) {
	for _, name := range []string{"testdata/propfind_depth1.xml", "testdata/sabre_404.xml"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns"><d:response><d:href>/remote.php/dav/files/alice/a%20b/%2e%2e/x.md</d:href>` +
		`<d:propstat><d:prop><oc:fileid>-5</oc:fileid><d:getetag>"e"</d:getetag><oc:size>99999999999999999999</oc:size><d:getlastmodified>Mon, 02 Jan 2006 15:04:05 GMT</d:getlastmodified></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>`))
	f.Add([]byte(`<d:multistatus xmlns:d="DAV:"><d:response><d:href>/remote.php/dav/files/bob/</d:href><d:status>HTTP/1.1 404</d:status></d:response></d:multistatus>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		infos, err := parseMultistatus(body, "alice")
		if err != nil {
			return
		}
		for _, fi := range infos {
			if !strings.HasPrefix(fi.Path, "/") || strings.Contains(fi.Path+"/", "/../") || strings.Contains(fi.Path, "//") || !utf8.ValidString(fi.Path) {
				t.Fatalf("entry path %q is not a clean absolute path", fi.Path)
			}
			if fi.Size < 0 {
				t.Fatalf("entry %q has size %d", fi.Path, fi.Size)
			}
		}
	})
}
