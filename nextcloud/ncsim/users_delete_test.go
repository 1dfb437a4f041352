package ncsim

import (
	"net/http"
	"slices"
	"testing"
)

// TestDeleteUser: bob's account, files and shares go, without a file
// event; alice keeps hers but loses what bob shared with her.
func TestDeleteUser(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	f.s.SeedFile("alice", "/Team/plan.md", []byte("plan"))
	f.s.SeedFile("bob", "/Private/salaries.md", []byte("secret"))
	f.s.SeedFile("bob", "/Out/for-alice.md", []byte("shared"))
	f.s.Share("alice", "/Team", "bob")
	f.s.Share("bob", "/Out/for-alice.md", "alice")
	if _, ok := f.s.Stat("alice", "/for-alice.md"); !ok {
		t.Fatal("alice does not see bob's share")
	}
	mark := f.mark()

	f.s.DeleteUser("bob")
	if slices.Contains(f.s.Users(), "bob") {
		t.Error("bob is still listed")
	}
	if _, ok := f.s.Stat("alice", "/for-alice.md"); ok {
		t.Error("alice still sees the file bob shared")
	}
	if _, ok := f.s.Stat("alice", "/Team/plan.md"); !ok {
		t.Error("alice lost her own file")
	}
	if sh := f.s.Shares(); len(sh) != 0 {
		t.Errorf("shares left: %+v", sh)
	}
	if ev := f.eventsSince(mark); len(ev) != 0 {
		t.Errorf("deleting a user fired file events %v; Nextcloud removes the storage directly", ev)
	}
	if w := f.do("PROPFIND", "/remote.php/dav/files/bob/", "bob", ""); w.Code != http.StatusUnauthorized {
		t.Errorf("bob's app password after deletion: %d, want 401", w.Code)
	}
	defer func() {
		if recover() == nil {
			t.Error("deleting an unknown user did not panic")
		}
	}()
	f.s.DeleteUser("bob")
}
