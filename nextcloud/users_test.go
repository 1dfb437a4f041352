package nextcloud_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hybrid-search/hybridsearch"
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
		user hybridsearch.UserID
		want bool
	}{{"dora", true}, {"bob", false}}
	for _, tt := range tests {
		got, err := e.c.IsAdmin(ctx, tt.user)
		if err != nil || got != tt.want {
			t.Errorf("IsAdmin(%s) = %v, %v; want %v", tt.user, got, err, tt.want)
		}
	}
	wantKind(t, "IsAdmin without a user", func() error { _, err := e.c.IsAdmin(ctx, ""); return err }(), hybridsearch.EINVALID)
	wantKind(t, "IsAdmin of an unknown user", func() error { _, err := e.c.IsAdmin(ctx, "mallory"); return err }(), hybridsearch.EUNAUTHORIZED)
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
	d := &nextcloud.UserDirectory{Client: e.c, Recheck: 200 * time.Millisecond}
	if ok, err := d.UserExists(ctx, "alice"); err != nil || !ok {
		t.Fatalf("UserExists(alice) = %v, %v", ok, err)
	}
	// A flood of lookups for users that do not exist costs one list per
	// Recheck, however many run at once.
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			if ok, err := d.UserExists(ctx, hybridsearch.UserID("ghost"+strconv.Itoa(i))); err != nil || ok {
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
	time.Sleep(250 * time.Millisecond)
	if ok, err := d.UserExists(ctx, "dora"); err != nil || !ok {
		t.Errorf("UserExists(dora) after she was added = %v, %v", ok, err)
	}
	if ok, _ := d.UserExists(ctx, ""); ok {
		t.Error("the empty user exists")
	}
}
