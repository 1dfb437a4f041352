package webhook_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/webhook"
)

// FuzzWebhook feeds arbitrary bodies to the webhook parser: it must never
// panic, must refuse with EINVALID only, and every job it makes from an
// accepted body names a user and a clean absolute path or a file id.
func FuzzWebhook(f *testing.F) {
	const ns = `OCP\\Files\\Events\\Node\\`
	for _, s := range []string{
		`{"event":{"class":"` + ns + `NodeWrittenEvent","node":{"id":437,"path":"/alice/files/Notes/Shopping.md"}},"user":{"uid":"alice","displayName":"Alice"},"time":1700100000}`,
		`{"event":{"class":"` + ns + `NodeRenamedEvent","source":{"id":9,"path":"/bob/files/a.txt"},"target":{"id":9,"path":"/bob/files/Docs/b.txt"}},"user":{"uid":"bob"},"time":1}`,
		`{"event":{"class":"` + ns + `BeforeNodeDeletedEvent","node":{"id":3,"path":"/alice/files/x"}},"user":{"uid":"alice"}}`,
		`{"event":{"class":"` + ns + `NodeCopiedEvent","source":{"path":"/a b/files/é.md"},"target":{"path":"/a b/files/\u00e9 2.md"}},"user":{"uid":"a b"}}`,
		`{"event":{"class":"` + ns + `NodeCreatedEvent","node":{"id":-1,"path":"/alice/files/../etc"}},"user":{"uid":"alice"}}`,
		`{"event":{"class":"x","node":{"path":"/alice/files/\ud800"}},"user":{"uid":"alice"}} {}`,
		`[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	now := time.Unix(1700000000, 0)
	f.Fuzz(func(t *testing.T, body []byte) {
		env, err := webhook.Parse(body)
		if err != nil {
			if hs.ErrorKind(err) != hs.EINVALID {
				t.Fatalf("Parse = %v, kind %s; want EINVALID", err, hs.ErrorKind(err))
			}
			return
		}
		jobs, err := webhook.Jobs(env, now)
		if err != nil {
			if hs.ErrorKind(err) != hs.EINVALID {
				t.Fatalf("Jobs = %v, kind %s; want EINVALID", err, hs.ErrorKind(err))
			}
			return
		}
		for _, j := range jobs {
			if j.User == "" || !utf8.ValidString(string(j.User)) {
				t.Fatalf("job without a valid user: %+v", j)
			}
			if j.FileID < 0 || (j.FileID == 0 && j.Path == "") {
				t.Fatalf("job names no file: %+v", j)
			}
			if j.Path != "" && (!strings.HasPrefix(j.Path, "/") || strings.Contains(j.Path+"/", "/../") || !utf8.ValidString(j.Path)) {
				t.Fatalf("job path %q is not a clean absolute path", j.Path)
			}
		}
	})
}
