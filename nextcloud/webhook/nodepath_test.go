package webhook_test

import (
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud/webhook"
)

// unicodeName is a file name outside ASCII.
const unicodeName = "Übersicht 日本.md"

func TestSplitNodePath(t *testing.T) {
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
		{"unicode user", "/bob@example.org/files/ü 日本.txt", "bob@example.org", "/ü 日本.txt", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user, rel, ok := webhook.SplitNodePath(tt.in)
			if user != tt.wantUser || rel != tt.wantRel || ok != tt.wantOK {
				t.Errorf("SplitNodePath(%q) = %q, %q, %t, want %q, %q, %t",
					tt.in, user, rel, ok, tt.wantUser, tt.wantRel, tt.wantOK)
			}
		})
	}
}

func TestSplitNodePathRejectsDotDot(t *testing.T) {
	for _, p := range []string{"/alice/files/../bob/files/x", "/alice/files/a/../../x", "/alice/filesx/a"} {
		if _, _, ok := webhook.SplitNodePath(p); ok {
			t.Errorf("SplitNodePath(%q) ok, want refused", p)
		}
	}
	if _, rel, ok := webhook.SplitNodePath("/alice/files//a//b/"); !ok || rel != "/a/b" {
		t.Errorf("SplitNodePath cleans paths: got %q, %v", rel, ok)
	}
}
