package nextcloud_test

import (
	"context"
	"testing"

	"github.com/hybrid-search/hybridsearch"
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
