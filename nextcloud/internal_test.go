package nextcloud

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestHrefToPath(t *testing.T) {
	tests := []struct {
		name string
		href string
		user hs.UserID
		want string
		ok   bool
	}{
		{"root", "/remote.php/dav/files/alice/", "alice", "/", true},
		{"root without slash", "/remote.php/dav/files/alice", "alice", "/", true},
		{"folder", "/remote.php/dav/files/alice/Docs/", "alice", "/Docs", true},
		{"spaces", "/remote.php/dav/files/alice/a%20b.md", "alice", "/a b.md", true},
		{"unicode", "/remote.php/dav/files/alice/%C3%9Cbersicht%20%E6%97%A5%E6%9C%AC.md", "alice", "/Übersicht 日本.md", true},
		{"plus stays plus", "/remote.php/dav/files/alice/a+b%2Bc.txt", "alice", "/a+b+c.txt", true},
		{"absolute URL", "https://cloud.example.org/remote.php/dav/files/alice/x.md", "alice", "/x.md", true},
		{"sub-path install", "/nextcloud/remote.php/dav/files/alice/x.md", "alice", "/x.md", true},
		{"encoded user", "/remote.php/dav/files/a%40b.org/x.md", "a@b.org", "/x.md", true},
		{"other user", "/remote.php/dav/files/bob/x.md", "alice", "", false},
		{"user prefix", "/remote.php/dav/files/alice2/x.md", "alice", "", false},
		{"bad escape", "/remote.php/dav/files/alice/%zz", "alice", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := hrefToPath(tt.href, tt.user)
			if got != tt.want || ok != tt.ok {
				t.Errorf("hrefToPath(%q, %q) = %q, %t, want %q, %t", tt.href, tt.user, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestDavFilesPathRoundTrip(t *testing.T) {
	for _, p := range []string{"/", "/a b.md", "/Übersicht 日本.md", "/a+b & c;d?e#f%g.txt", "/dir/sub/x'y(z).md"} {
		dav := davFilesPath("alice", p)
		if strings.ContainsAny(dav, " ?#") {
			t.Errorf("davFilesPath(%q) = %q: unescaped character", p, dav)
		}
		got, ok := hrefToPath(dav, "alice")
		if !ok || got != p {
			t.Errorf("hrefToPath(davFilesPath(%q)) = %q, %t, want %q", p, got, ok, p)
		}
	}
}

func TestCleanPath(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{"empty is root", "", "/", false},
		{"relative", "a/b", "/a/b", false},
		{"trailing slash", "/a/b/", "/a/b", false},
		{"double slash", "//a//b", "/a/b", false},
		{"dot", "/a/./b", "/a/b", false},
		{"dotdot", "/a/../../etc", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cleanPath(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("cleanPath(%q) = %q, %v, want %q, error %t", tt.in, got, err, tt.want, tt.wantErr)
			}
			if err != nil && hs.ErrorKind(err) != hs.EINVALID {
				t.Errorf("cleanPath(%q) kind = %s, want %s", tt.in, hs.ErrorKind(err), hs.EINVALID)
			}
		})
	}
}

func TestStatusKind(t *testing.T) {
	tests := []struct {
		code int
		want string
	}{
		{400, hs.EINVALID},
		{401, hs.EUNAUTHORIZED},
		{403, hs.EUNAUTHORIZED},
		{997, hs.EUNAUTHORIZED},
		{404, hs.ENOTFOUND},
		{998, hs.ENOTFOUND},
		{409, hs.ECONFLICT},
		{412, hs.ECONFLICT},
		{423, hs.ECONFLICT},
		{413, hs.ETOOLARGE},
		{429, hs.EUNAVAILABLE},
		{500, hs.EUNAVAILABLE},
		{502, hs.EUNAVAILABLE},
		{503, hs.EUNAVAILABLE},
		{996, hs.EUNAVAILABLE},
		{422, hs.EINVALID},
		{302, hs.EINTERNAL},
	}
	for _, tt := range tests {
		if got := statusKind(tt.code); got != tt.want {
			t.Errorf("statusKind(%d) = %s, want %s", tt.code, got, tt.want)
		}
	}
}

func TestDecodeOCS(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		wantKind string
		want     []string
	}{
		{"v2 ok", 200, `{"ocs":{"meta":{"status":"ok","statuscode":200,"message":"OK"},"data":["a","b"]}}`, "", []string{"a", "b"}},
		{"v1 ok", 200, `{"ocs":{"meta":{"status":"ok","statuscode":100,"message":"OK","totalitems":"","itemsperpage":""},"data":["a"]}}`, "", []string{"a"}},
		{"empty data", 200, `{"ocs":{"meta":{"status":"ok","statuscode":200,"message":"OK"},"data":[]}}`, "", nil},
		{"v1 200 with 404", 200, `{"ocs":{"meta":{"status":"failure","statuscode":404,"message":"nope"},"data":[]}}`, hs.ENOTFOUND, nil},
		{"v1 200 with 998", 200, `{"ocs":{"meta":{"status":"failure","statuscode":998,"message":"nope"},"data":[]}}`, hs.ENOTFOUND, nil},
		{"v1 200 with 400", 200, `{"ocs":{"meta":{"status":"failure","statuscode":400,"message":"bad"},"data":[]}}`, hs.EINVALID, nil},
		{"v1 200 with 403", 200, `{"ocs":{"meta":{"status":"failure","statuscode":403,"message":"no"},"data":[]}}`, hs.EUNAUTHORIZED, nil},
		{"v2 401 997", 401, `{"ocs":{"meta":{"status":"failure","statuscode":997,"message":"Current user is not logged in"},"data":[]}}`, hs.EUNAUTHORIZED, nil},
		{"v2 404 998", 404, `{"ocs":{"meta":{"status":"failure","statuscode":998,"message":""},"data":[]}}`, hs.ENOTFOUND, nil},
		{"v2 409", 409, `{"ocs":{"meta":{"status":"failure","statuscode":409,"message":"x"},"data":[]}}`, hs.ECONFLICT, nil},
		{"plain 500", 500, `<html>oops</html>`, hs.EUNAVAILABLE, nil},
		{"plain 503 maintenance", 503, `{"message":"maintenance"}`, hs.EUNAVAILABLE, nil},
		{"not json on 200", 200, `<?xml version="1.0"?><ocs/>`, hs.EINTERNAL, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := decodeOCS("GET /x", tt.status, []byte(tt.body), &got)
			if k := kindOf(err); k != tt.wantKind {
				t.Fatalf("decodeOCS kind = %q (%v), want %q", k, err, tt.wantKind)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("decodeOCS data = %q, want %q", got, tt.want)
			}
		})
	}
}

func kindOf(err error) string {
	if err == nil {
		return ""
	}
	return hs.ErrorKind(err)
}

func TestUnquoteETag(t *testing.T) {
	for in, want := range map[string]string{`"abc"`: "abc", `W/"abc"`: "abc", "abc": "abc", ` "a" `: "a", `"`: `"`} {
		if got := unquoteETag(in); got != want {
			t.Errorf("unquoteETag(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCappedReader(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		max      int64
		wantKind string
	}{
		{"under", "hello", 10, ""},
		{"exact", "hello", 5, ""},
		{"over", "hello!", 5, hs.ETOOLARGE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &cappedReader{rc: io.NopCloser(iotest.OneByteReader(strings.NewReader(tt.body))), left: tt.max, max: tt.max, op: "x"}
			got, err := io.ReadAll(r)
			if k := kindOf(err); k != tt.wantKind {
				t.Fatalf("ReadAll kind = %q (%v), want %q", k, err, tt.wantKind)
			}
			if int64(len(got)) > tt.max {
				t.Errorf("read %d bytes, cap %d", len(got), tt.max)
			}
		})
	}
}

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://nc":                     "http://nc",
		"http://nc/":                    "http://nc",
		"http://nc/index.php":           "http://nc",
		"http://nc/index.php/":          "http://nc",
		"https://h/nextcloud/index.php": "https://h/nextcloud",
	} {
		c := &Client{BaseURL: in}
		if got := c.baseURL(); got != want {
			t.Errorf("baseURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadAllCapsBodies(t *testing.T) {
	b, err := readAll("GET /x", io.LimitReader(zeros{}, maxBody))
	if err != nil || len(b) != maxBody {
		t.Fatalf("readAll(maxBody) = %d bytes, %v", len(b), err)
	}
	_, err = readAll("GET /x", io.LimitReader(zeros{}, maxBody+1))
	if k := kindOf(err); k != hs.ETOOLARGE {
		t.Errorf("readAll(maxBody+1) kind = %q (%v), want %s", k, err, hs.ETOOLARGE)
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}
