package nextcloud_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

func TestIsAdmin(t *testing.T) {
	e := newEnv(t)
	if e.sim == nil {
		t.Skip("needs simulator users")
	}
	ctx := context.Background()
	e.sim.AddUser("dora", "Dora", true)
	tests := []struct {
		user hs.UserID
		want bool
	}{{"dora", true}, {"bob", false}}
	for _, tt := range tests {
		got, err := e.c.IsAdmin(ctx, tt.user)
		if err != nil || got != tt.want {
			t.Errorf("IsAdmin(%s) = %v, %v; want %v", tt.user, got, err, tt.want)
		}
	}
	wantKind(t, "IsAdmin without a user", func() error { _, err := e.c.IsAdmin(ctx, ""); return err }(), hs.EINVALID)
	wantKind(t, "IsAdmin of an unknown user", func() error { _, err := e.c.IsAdmin(ctx, "mallory"); return err }(), hs.EUNAUTHORIZED)
}

func TestUserDirectory(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	var lists atomic.Int64
	sim.OnRequest = func(r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/api/v1/users") {
			lists.Add(1)
		}
	}
	ctx := context.Background()
	clock := newTestClock()
	d := &nextcloud.UserDirectory{Client: e.c, Recheck: 200 * time.Millisecond, Now: clock.Now}
	if ok, err := d.UserExists(ctx, "alice"); err != nil || !ok {
		t.Fatalf("UserExists(alice) = %v, %v", ok, err)
	}
	// A flood of lookups for users that do not exist costs one list per
	// Recheck, however many run at once.
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			if ok, err := d.UserExists(ctx, hs.UserID("ghost"+strconv.Itoa(i))); err != nil || ok {
				t.Errorf("UserExists(ghost%d) = %v, %v; want false", i, ok, err)
			}
		})
	}
	wg.Wait()
	if n := lists.Load(); n > 2 {
		t.Errorf("%d user lists for 201 lookups, want at most 2", n)
	}
	// A user created now is found once the list is older than Recheck.
	sim.AddUser("dora", "Dora", false)
	clock.Advance(250 * time.Millisecond)
	if ok, err := d.UserExists(ctx, "dora"); err != nil || !ok {
		t.Errorf("UserExists(dora) after she was added = %v, %v", ok, err)
	}
	if ok, _ := d.UserExists(ctx, ""); ok {
		t.Error("the empty user exists")
	}
}

// TestUserDirectoryGone: a user deleted in Nextcloud is gone once the list
// lacks them and a call as them is refused; a user that exists is not,
// and when Nextcloud cannot be reached Gone says so instead of guessing.
func TestUserDirectoryGone(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	ctx := context.Background()
	sim.AddUser("dora", "Dora", false)
	clock := newTestClock()
	d := &nextcloud.UserDirectory{Client: e.c, Recheck: 100 * time.Millisecond, Now: clock.Now}
	for _, u := range []hs.UserID{"alice", "dora", ""} {
		if gone, err := d.Gone(ctx, u); gone || err != nil {
			t.Errorf("Gone(%q) = %v, %v; want false", u, gone, err)
		}
	}
	sim.DeleteUser("dora")
	clock.Advance(150 * time.Millisecond) // the list in hand is older than Recheck
	if gone, err := d.Gone(ctx, "dora"); !gone || err != nil {
		t.Errorf("Gone(dora) after her deletion = %v, %v; want true", gone, err)
	}
	if ok, err := d.UserExists(ctx, "dora"); ok || err != nil {
		t.Errorf("UserExists(dora) after Gone = %v, %v; want false from the same list", ok, err)
	}
	down := &nextcloud.UserDirectory{Client: &nextcloud.Client{BaseURL: "http://127.0.0.1:1", AppID: "x", AppVersion: "1.0.0", AAVersion: "32.0.0", Secret: "s"}}
	if gone, err := down.Gone(ctx, "dora"); gone || hs.ErrorKind(err) != hs.EUNAVAILABLE {
		t.Errorf("Gone with Nextcloud down = %v, %v; want false and EUNAVAILABLE", gone, err)
	}
}

// TestUserIDsAreEscaped: user ids with the characters Nextcloud allows
// besides letters and digits (space, "_.@-'") reach their own files by
// every route, and every outgoing path carries them escaped.
func TestUserIDsAreEscaped(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	var mu sync.Mutex
	var raw []string // request URIs and SEARCH scopes
	sim.OnRequest = func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		raw = append(raw, r.RequestURI)
		if r.Method == "SEARCH" {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			if _, rest, ok := strings.Cut(string(b), "<d:href>"); ok {
				href, _, _ := strings.Cut(rest, "<")
				raw = append(raw, href)
			}
		}
	}
	ctx := context.Background()
	for _, uid := range []string{"jo smith", "o'neil@example.org", "a.b-c_d"} {
		sim.AddUser(uid, uid, false)
		f := sim.PutFile(uid, "/Docs/note one.md", []byte("hello"))
		u := hs.UserID(uid)
		if got, err := e.c.FindByID(ctx, u, hs.FileID(f.ID)); err != nil || got.Path != "/Docs/note one.md" {
			t.Errorf("FindByID as %q = %+v, %v", uid, got, err)
		}
		if got, err := e.c.Stat(ctx, u, "/Docs/note one.md"); err != nil || got.ID != hs.FileID(f.ID) {
			t.Errorf("Stat as %q = %+v, %v", uid, got, err)
		}
		body, _, err := e.c.Download(ctx, u, "/Docs/note one.md", 1<<20)
		if err != nil {
			t.Errorf("Download as %q: %v", uid, err)
			continue
		}
		body.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	for _, r := range raw {
		if strings.Contains(r, " ") {
			t.Errorf("request with an unescaped user id: %q", r)
		}
	}
}
