package nextcloud_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

const fakeSecret = "s3cr3t+/Secret0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// fakeServer starts an httptest server running h and a client for it.
func fakeServer(t *testing.T, h http.HandlerFunc) (*nextcloud.Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := &nextcloud.Client{
		BaseURL:    srv.URL + "/index.php/",
		AppID:      "hybrid_search",
		AppVersion: "1.0.0",
		AAVersion:  "32.0.0",
		Secret:     fakeSecret,
		Logger:     testLogger(t),
	}
	return c, srv
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantKind(t *testing.T, what string, err error, kind string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want kind %s", what, kind)
	}
	if got := hs.ErrorKind(err); got != kind {
		t.Fatalf("%s: kind %s (%v), want %s", what, got, err, kind)
	}
}

func TestRequestHeaders(t *testing.T) {
	var mu sync.Mutex
	var got []*http.Request
	c, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Clone(context.Background()))
		mu.Unlock()
		// AppAPI logins open a session; the client must not replay it.
		http.SetCookie(w, &http.Cookie{Name: "nc_session_id", Value: "abc", Path: "/"})
		w.Header().Set("Content-Type", "application/json")
		data := `["alice","bob"]`
		if strings.Contains(r.URL.Path, "files_sharing") {
			data = `[]`
		}
		_, _ = io.WriteString(w, `{"ocs":{"meta":{"status":"ok","statuscode":100,"message":"OK"},"data":`+data+`}}`)
	})
	ctx := nextcloud.WithRequestID(context.Background(), "req-42")
	for range 2 {
		users, err := c.ListUsers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(users) != 2 || users[0] != "alice" {
			t.Fatalf("ListUsers = %v", users)
		}
	}
	if _, err := c.SharedWithMe(context.Background(), "alice"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d requests, want 3", len(got))
	}
	r := got[0]
	if r.URL.Path != "/ocs/v1.php/apps/app_api/api/v1/users" {
		t.Errorf("path = %q (BaseURL's /index.php must be stripped)", r.URL.Path)
	}
	for k, want := range map[string]string{
		"EX-APP-ID":             "hybrid_search",
		"EX-APP-VERSION":        "1.0.0",
		"AA-VERSION":            "32.0.0",
		"AUTHORIZATION-APP-API": base64.StdEncoding.EncodeToString([]byte(":" + fakeSecret)),
		"OCS-APIRequest":        "true",
		"Accept":                "application/json",
		"AA-REQUEST-ID":         "req-42",
	} {
		if v := r.Header.Get(k); v != want {
			t.Errorf("header %s = %q, want %q", k, v, want)
		}
	}
	if v := got[1].Header.Get("Cookie"); v != "" {
		t.Errorf("second request sent Cookie %q; the client must not keep a cookie jar", v)
	}
	if v := got[2].Header.Get("AUTHORIZATION-APP-API"); v != nextcloud.AuthHeaderValue("alice", fakeSecret) {
		t.Errorf("as alice: AUTHORIZATION-APP-API = %q", v)
	}
	if v := got[2].Header.Get("AA-REQUEST-ID"); v != "" {
		t.Errorf("AA-REQUEST-ID = %q without one in the context", v)
	}
}

func TestAuthHeaderValue(t *testing.T) {
	tests := []struct {
		name   string
		user   hs.UserID
		secret string
		want   string
	}{
		{"no user", "", "abc", base64.StdEncoding.EncodeToString([]byte(":abc"))},
		{"user", "alice", "abc", base64.StdEncoding.EncodeToString([]byte("alice:abc"))},
	}
	for _, tt := range tests {
		if got := nextcloud.AuthHeaderValue(tt.user, tt.secret); got != tt.want {
			t.Errorf("%s: AuthHeaderValue = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestListParsesNextcloudMultistatus(t *testing.T) {
	body := readTestdata(t, "propfind_depth1.xml")
	c, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "PROPFIND" || r.URL.Path != "/remote.php/dav/files/alice/Docs" || r.Header.Get("Depth") != "1" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path+" depth "+r.Header.Get("Depth"), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		w.WriteHeader(http.StatusMultiStatus)
		_, _ = w.Write(body)
	})
	got, err := c.List(context.Background(), "alice", "/Docs/")
	if err != nil {
		t.Fatal(err)
	}
	want := []hs.FileInfo{
		{ID: 437, Path: "/Docs/Übersicht 日本.md", ETag: "aa11bb22", MIME: "text/markdown", Size: 42,
			Modified: time.Date(2022, 7, 21, 10, 0, 0, 0, time.UTC), Permissions: "RGDNVW", Owner: "alice"},
		{ID: 438, Path: "/Docs/a+b & c.txt", ETag: "cc33", MIME: "text/plain", Size: 4200,
			Modified: time.Date(2022, 7, 22, 11, 30, 0, 0, time.UTC), Permissions: "SRGDNVW", Owner: "bob"},
		{ID: 439, Path: "/Docs/Sub Folder", ETag: "dd44", MIME: nextcloud.FolderMIME, Size: 0, IsDir: true,
			Modified: time.Date(2022, 7, 23, 12, 0, 0, 0, time.UTC), Permissions: "RGDNVCK", Owner: "alice"},
	}
	if len(got) != len(want) {
		t.Fatalf("List = %d entries %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("List[%d] =\n %+v, want\n %+v", i, got[i], want[i])
		}
	}
	if got[0].Name() != "Übersicht 日本.md" {
		t.Errorf("Name() = %q", got[0].Name())
	}

	// The same answer to Depth 0 gives the folder itself first.
	c2, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusMultiStatus)
		_, _ = w.Write(body)
	})
	dir, err := c2.Stat(context.Background(), "alice", "Docs")
	if err != nil {
		t.Fatal(err)
	}
	wantDir := hs.FileInfo{ID: 12, Path: "/Docs", ETag: "62d78eb7b2d1c", MIME: nextcloud.FolderMIME, Size: 4242,
		IsDir: true, Modified: time.Date(2022, 7, 20, 5, 12, 23, 0, time.UTC), Permissions: "RGDNVCK", Owner: "alice"}
	if dir != wantDir {
		t.Errorf("Stat = %+v, want %+v", dir, wantDir)
	}
}

func TestErrorMapping(t *testing.T) {
	sabre404 := readTestdata(t, "sabre_404.xml")
	v1failure := readTestdata(t, "ocs_v1_failure.json")
	tests := []struct {
		name     string
		status   int
		body     []byte
		call     func(c *nextcloud.Client) error
		wantKind string
		wantMsg  string
	}{
		{"webdav 404", 404, sabre404, func(c *nextcloud.Client) error {
			_, err := c.Stat(context.Background(), "alice", "/Docs/missing.md")
			return err
		}, hs.ENOTFOUND, "could not be located"},
		{"ocs v1 200 with failure", 200, v1failure, func(c *nextcloud.Client) error {
			_, err := c.ListUsers(context.Background())
			return err
		}, hs.ENOTFOUND, "does not exist"},
		{"webdav 207 with garbage", 207, []byte("<not xml"), func(c *nextcloud.Client) error {
			_, err := c.List(context.Background(), "alice", "/")
			return err
		}, hs.EINTERNAL, ""},
		{"webdav 401", 401, nil, func(c *nextcloud.Client) error {
			_, err := c.List(context.Background(), "alice", "/")
			return err
		}, hs.EUNAUTHORIZED, ""},
		{"webdav 423 locked", 423, nil, func(c *nextcloud.Client) error {
			_, _, err := c.Download(context.Background(), "alice", "/x", 0)
			return err
		}, hs.ECONFLICT, ""},
		{"webdav 503", 503, nil, func(c *nextcloud.Client) error {
			_, err := c.FindByID(context.Background(), "alice", 7)
			return err
		}, hs.EUNAVAILABLE, ""},
		{"notes 412", 412, []byte(`{"message":"stale"}`), func(c *nextcloud.Client) error {
			_, err := c.GetNote(context.Background(), "alice", 7)
			return err
		}, hs.ECONFLICT, "stale"},
		{"notes 403", 403, []byte(`{}`), func(c *nextcloud.Client) error {
			_, err := c.ListNotes(context.Background(), "alice", nextcloud.ListNotesOptions{})
			return err
		}, hs.EUNAUTHORIZED, ""},
		{"ocs 429 throttled", 429, nil, func(c *nextcloud.Client) error {
			_, err := c.ListWebhooks(context.Background(), "")
			return err
		}, hs.EUNAVAILABLE, ""},
		{"status.php maintenance", 200, []byte(`{"installed":true,"maintenance":true,"needsDbUpgrade":false}`), func(c *nextcloud.Client) error {
			_, err := c.Ping(context.Background())
			return err
		}, hs.EUNAVAILABLE, "maintenance=true"},
		{"status.php garbage", 200, []byte(`<html>`), func(c *nextcloud.Client) error {
			_, err := c.Ping(context.Background())
			return err
		}, hs.EUNAVAILABLE, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = w.Write(tt.body)
			})
			err := tt.call(c)
			wantKind(t, tt.name, err, tt.wantKind)
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			assertNoSecret(t, err)
		})
	}
}

// assertNoSecret fails if err shows the secret or the auth header value.
func assertNoSecret(t *testing.T, err error) {
	t.Helper()
	for _, s := range []string{err.Error(), hs.ErrorMessage(err)} {
		if strings.Contains(s, fakeSecret) || strings.Contains(s, nextcloud.AuthHeaderValue("", fakeSecret)) ||
			strings.Contains(s, nextcloud.AuthHeaderValue("alice", fakeSecret)) {
			t.Errorf("error shows the secret: %q", s)
		}
	}
}

func TestRedirectToOtherHostDropsSecret(t *testing.T) {
	var gotAuth, gotApp string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotApp = r.Header.Get("AUTHORIZATION-APP-API"), r.Header.Get("EX-APP-ID")
		_, _ = io.WriteString(w, `{"installed":true,"maintenance":false,"needsDbUpgrade":false}`)
	}))
	t.Cleanup(other.Close)
	c, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusFound)
	})
	_, err := c.ListUsers(context.Background())
	if err == nil {
		t.Fatal("ListUsers through a redirect to a non-OCS answer succeeded")
	}
	if gotAuth != "" {
		t.Errorf("AUTHORIZATION-APP-API sent to another host: %q", gotAuth)
	}
	if gotApp != "hybrid_search" {
		t.Errorf("EX-APP-ID on redirect = %q (the request should still have been followed)", gotApp)
	}
}

func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c := &nextcloud.Client{BaseURL: url, AppID: "hybrid_search", AppVersion: "1.0.0", Secret: fakeSecret, Logger: testLogger(t)}
	ctx := context.Background()
	calls := map[string]func() error{
		"Ping":            func() error { _, err := c.Ping(ctx); return err },
		"Stat":            func() error { _, err := c.Stat(ctx, "alice", "/"); return err },
		"ListWebhooks":    func() error { _, err := c.ListWebhooks(ctx, ""); return err },
		"SetInitProgress": func() error { return c.SetInitProgress(ctx, 10) },
		"Download":        func() error { _, _, err := c.Download(ctx, "alice", "/x", 0); return err },
		"ListNotes": func() error {
			_, err := c.ListNotes(ctx, "alice", nextcloud.ListNotesOptions{})
			return err
		},
	}
	for name, call := range calls {
		err := call()
		wantKind(t, name, err, hs.EUNAVAILABLE)
		assertNoSecret(t, err)
	}
}

func TestTimeouts(t *testing.T) {
	release := make(chan struct{})
	c, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })

	c.Timeout = 50 * time.Millisecond
	start := time.Now()
	_, err := c.Stat(context.Background(), "alice", "/")
	wantKind(t, "default timeout", err, hs.EUNAVAILABLE)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("default timeout error %v does not wrap context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("default timeout took %v", d)
	}

	c.Timeout = time.Hour // the caller's deadline wins
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = c.ListUsers(ctx)
	wantKind(t, "context deadline", err, hs.EUNAVAILABLE)
}

func TestDownloadCapWithoutContentLength(t *testing.T) {
	c, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("ETag", `"e1"`)
		w.Header().Set("Last-Modified", "Wed, 20 Jul 2022 05:12:23 GMT")
		for range 10 {
			_, _ = io.WriteString(w, strings.Repeat("x", 100))
			w.(http.Flusher).Flush() // chunked: no Content-Length
		}
	})
	rc, fi, err := c.Download(context.Background(), "alice", "/big.txt", 500)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	want := hs.FileInfo{Path: "/big.txt", ETag: "e1", MIME: "text/plain",
		Modified: time.Date(2022, 7, 20, 5, 12, 23, 0, time.UTC)}
	if fi != want {
		t.Errorf("Download info = %+v, want %+v", fi, want)
	}
	b, err := io.ReadAll(rc)
	wantKind(t, "read past cap", err, hs.ETOOLARGE)
	if len(b) > 500 {
		t.Errorf("read %d bytes past a 500 byte cap", len(b))
	}
}

func TestEmptyUserRefused(t *testing.T) {
	c, _ := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request sent for an empty user: %s %s", r.Method, r.URL.Path)
	})
	ctx := context.Background()
	calls := map[string]func() error{
		"Stat":         func() error { _, err := c.Stat(ctx, "", "/"); return err },
		"List":         func() error { _, err := c.List(ctx, "", "/"); return err },
		"FindByID":     func() error { _, err := c.FindByID(ctx, "", 1); return err },
		"Download":     func() error { _, _, err := c.Download(ctx, "", "/x", 0); return err },
		"GetNote":      func() error { _, err := c.GetNote(ctx, "", 1); return err },
		"SharedWithMe": func() error { _, err := c.SharedWithMe(ctx, ""); return err },
		"dotdot":       func() error { _, err := c.Stat(ctx, "alice", "/../bob/files"); return err },
	}
	for name, call := range calls {
		wantKind(t, name, call(), hs.EINVALID)
	}
}
