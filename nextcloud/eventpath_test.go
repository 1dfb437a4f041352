package nextcloud_test

import (
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

func TestEventPathToUserPath(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantUser hs.UserID
		wantRel  string
		wantOK   bool
	}{
		{"file", "/alice/files/Notes/Shopping.md", "alice", "/Notes/Shopping.md", true},
		{"unicode", "/alice/files/" + unicodeName, "alice", "/" + unicodeName, true},
		{"files root", "/alice/files", "alice", "/", true},
		{"files root slash", "/alice/files/", "alice", "/", true},
		{"user with at", "/a@b.org/files/x.md", "a@b.org", "/x.md", true},
		{"folder trailing slash", "/alice/files/Docs/", "alice", "/Docs", true},
		{"trashbin", "/alice/files_trashbin/files/x.md.d1700000000", "", "", false},
		{"versions", "/alice/files_versions/x.md.v1", "", "", false},
		{"appdata", "/appdata_oc123/preview/1/2.png", "", "", false},
		{"user root", "/alice", "", "", false},
		{"cache", "/alice/cache/x", "", "", false},
		{"relative", "alice/files/x.md", "", "", false},
		{"empty user", "//files/x.md", "", "", false},
		{"dotdot", "/alice/files/../../bob/files/x.md", "", "", false},
		{"empty", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user, rel, ok := nextcloud.EventPathToUserPath(tt.in)
			if user != tt.wantUser || rel != tt.wantRel || ok != tt.wantOK {
				t.Errorf("EventPathToUserPath(%q) = %q, %q, %t, want %q, %q, %t",
					tt.in, user, rel, ok, tt.wantUser, tt.wantRel, tt.wantOK)
			}
		})
	}
}
