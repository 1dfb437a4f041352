package nextcloud_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim"
)

const unicodeName = "Übersicht 日本.md"

// seedFiles gives alice a small tree and shares bob's report with her:
//
//	alice: /Docs/Übersicht 日本.md, /Docs/a b.md, /Docs/Sub/deep.txt, /top.txt, /report.md (from bob)
//	bob:   /Shared/report.md
func seedFiles(t *testing.T, sim *ncsim.Server) {
	t.Helper()
	sim.PutFile("alice", "/Docs/"+unicodeName, []byte("# Übersicht\n\n日本語のテキスト.\n"))
	sim.PutFile("alice", "/Docs/a b.md", []byte("spaces in the name"))
	sim.PutFile("alice", "/Docs/Sub/deep.txt", []byte("deep"))
	sim.PutFile("alice", "/top.txt", []byte("top"))
	sim.PutFile("bob", "/Shared/report.md", []byte("# Quarterly report\n"))
	sim.Share("bob", "/Shared/report.md", "alice")
}

// fromSim converts the simulator's view of a file into the client's.
func fromSim(fi ncsim.FileInfo) hs.FileInfo {
	return hs.FileInfo{
		ID: hs.FileID(fi.ID), Path: fi.Path, ETag: fi.ETag, MIME: fi.MIME, Size: fi.Size,
		Modified: fi.Modified.UTC().Truncate(time.Second), IsDir: fi.IsDir, Permissions: fi.Permissions,
		Owner: hs.UserID(fi.Owner),
	}
}

func simStat(t *testing.T, sim *ncsim.Server, user hs.UserID, p string) hs.FileInfo {
	t.Helper()
	fi, ok := sim.Stat(string(user), p)
	if !ok {
		t.Fatalf("simulator: %s has no %s", user, p)
	}
	return fromSim(fi)
}

func TestStatAndList(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	seedFiles(t, sim)
	ctx := context.Background()

	for _, p := range []string{"/Docs/" + unicodeName, "/Docs/a b.md", "/Docs", "/report.md", "/"} {
		got, err := e.c.Stat(ctx, "alice", p)
		if err != nil {
			t.Fatalf("Stat(%q): %v", p, err)
		}
		want := simStat(t, sim, "alice", p)
		if want.IsDir && want.MIME == "" {
			want.MIME = nextcloud.FolderMIME
		}
		if got != want {
			t.Errorf("Stat(%q) =\n %+v, want\n %+v", p, got, want)
		}
	}
	shared, _ := e.c.Stat(ctx, "alice", "/report.md")
	if shared.Owner != "bob" || !strings.Contains(shared.Permissions, "S") && !strings.Contains(shared.Permissions, "M") {
		t.Errorf("shared file as recipient = %+v, want owner bob and a shared/mounted permission", shared)
	}

	list, err := e.c.List(ctx, "alice", "/Docs/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fi := range list {
		names = append(names, fi.Path)
		if fi != simStat(t, sim, "alice", fi.Path) && !fi.IsDir {
			t.Errorf("List entry %+v differs from the simulator's %+v", fi, simStat(t, sim, "alice", fi.Path))
		}
	}
	slices.Sort(names)
	wantNames := []string{"/Docs/Sub", "/Docs/a b.md", "/Docs/" + unicodeName}
	slices.Sort(wantNames)
	if !slices.Equal(names, wantNames) {
		t.Errorf("List(/Docs) = %q, want %q", names, wantNames)
	}

	root, err := e.c.List(ctx, "alice", "/")
	if err != nil {
		t.Fatal(err)
	}
	if len(root) != 3 {
		t.Errorf("List(/) = %+v, want Docs, top.txt, report.md", root)
	}
	if files, err := e.c.List(ctx, "alice", "/top.txt"); err != nil || len(files) != 0 {
		t.Errorf("List(file) = %+v, %v, want nothing", files, err)
	}

	_, err = e.c.Stat(ctx, "alice", "/Docs/missing.md")
	wantKind(t, "Stat missing", err, hs.ENOTFOUND)
	_, err = e.c.Stat(ctx, "carol", "/report.md")
	wantKind(t, "Stat of a file carol cannot see", err, hs.ENOTFOUND)
	_, err = e.c.List(ctx, "alice", "/nope")
	wantKind(t, "List missing", err, hs.ENOTFOUND)
}

func TestWalk(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	seedFiles(t, sim)
	ctx := context.Background()

	var got []string
	err := e.c.Walk(ctx, "alice", "/", func(fi hs.FileInfo) error {
		got = append(got, fi.Path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, fi := range sim.Walk("alice") {
		want = append(want, fi.Path)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("Walk = %q, want %q", got, want)
	}

	got = nil
	err = e.c.Walk(ctx, "alice", "/", func(fi hs.FileInfo) error {
		got = append(got, fi.Path)
		if fi.Path == "/Docs" {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		if strings.HasPrefix(p, "/Docs/") {
			t.Errorf("Walk descended into skipped /Docs: %s", p)
		}
	}

	stop := errors.New("stop")
	calls := 0
	err = e.c.Walk(ctx, "alice", "/Docs", func(hs.FileInfo) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 2 {
		t.Errorf("Walk with a failing fn = %v after %d calls, want stop after 2", err, calls)
	}

	got = nil
	err = e.c.Walk(ctx, "alice", "/Docs/a b.md", func(fi hs.FileInfo) error {
		got = append(got, fi.Path)
		return nil
	})
	if err != nil || !slices.Equal(got, []string{"/Docs/a b.md"}) {
		t.Errorf("Walk(file) = %q, %v, want the file itself", got, err)
	}
	err = e.c.Walk(ctx, "alice", "/nope", func(hs.FileInfo) error { return nil })
	wantKind(t, "Walk missing root", err, hs.ENOTFOUND)
}

func TestFindByID(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	seedFiles(t, sim)
	ctx := context.Background()
	own := simStat(t, sim, "alice", "/Docs/"+unicodeName)
	report := simStat(t, sim, "bob", "/Shared/report.md")

	tests := []struct {
		name     string
		user     hs.UserID
		id       hs.FileID
		wantPath string
		wantKind string
	}{
		{"own file with a unicode name", "alice", own.ID, own.Path, ""},
		{"owner of a shared file", "bob", report.ID, "/Shared/report.md", ""},
		{"recipient sees the same id at her path", "alice", report.ID, "/report.md", ""},
		{"user without access", "carol", report.ID, "", hs.ENOTFOUND},
		{"other user's own file", "bob", own.ID, "", hs.ENOTFOUND},
		{"unknown id", "alice", 987654, "", hs.ENOTFOUND},
		{"invalid id", "alice", 0, "", hs.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.c.FindByID(ctx, tt.user, tt.id)
			if tt.wantKind != "" {
				wantKind(t, "FindByID", err, tt.wantKind)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != tt.id || got.Path != tt.wantPath {
				t.Errorf("FindByID(%s, %d) = %+v, want id %d at %s", tt.user, tt.id, got, tt.id, tt.wantPath)
			}
			if want := simStat(t, sim, tt.user, tt.wantPath); got != want {
				t.Errorf("FindByID = %+v, want %+v", got, want)
			}
		})
	}
}

func TestModifiedSince(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	ctx := context.Background()
	t0 := e.clock.Now()
	sim.PutFile("alice", "/old.md", []byte("old"))
	e.clock.Advance(time.Hour)
	t1 := e.clock.Now()
	sim.PutFile("alice", "/Folder/middle.md", []byte("middle"))
	e.clock.Advance(time.Hour)
	sim.PutFile("alice", "/Folder/Deeper/new "+unicodeName, []byte("new"))
	e.clock.Advance(time.Hour)

	paths := func(infos []hs.FileInfo) []string {
		var out []string
		for _, fi := range infos {
			if fi.IsDir {
				t.Errorf("ModifiedSince returned folder %s", fi.Path)
			}
			out = append(out, fi.Path)
		}
		return out
	}
	tests := []struct {
		name  string
		since time.Time
		limit int
		want  []string
	}{
		{"all", t0.Add(-time.Minute), 0, []string{"/old.md", "/Folder/middle.md", "/Folder/Deeper/new " + unicodeName}},
		{"after the first", t1.Add(-time.Minute), 0, []string{"/Folder/middle.md", "/Folder/Deeper/new " + unicodeName}},
		{"limit keeps the oldest", t1.Add(-time.Minute), 1, []string{"/Folder/middle.md"}},
		{"none", e.clock.Now(), 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.c.ModifiedSince(ctx, "alice", tt.since, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if p := paths(got); !slices.Equal(p, tt.want) {
				t.Errorf("ModifiedSince(%v, %d) = %q, want %q", tt.since, tt.limit, p, tt.want)
			}
		})
	}
	got, err := e.c.ModifiedSince(ctx, "bob", t0.Add(-time.Minute), 0)
	if err != nil || len(got) != 0 {
		t.Errorf("ModifiedSince as bob = %+v, %v, want nothing of alice's", got, err)
	}
}

func TestDownload(t *testing.T) {
	e := newEnv(t)
	sim := e.needSim(t)
	seedFiles(t, sim)
	ctx := context.Background()
	content, _ := sim.ReadFile("alice", "/Docs/"+unicodeName)

	rc, fi, err := e.c.Download(ctx, "alice", "/Docs/"+unicodeName, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(b) != string(content) {
		t.Errorf("Download = %q, %v, want %q", b, err, content)
	}
	want := simStat(t, sim, "alice", "/Docs/"+unicodeName)
	want.ID, want.Permissions, want.Owner = 0, "", "" // not in GET headers
	if fi != want {
		t.Errorf("Download info =\n %+v, want\n %+v", fi, want)
	}

	// A recipient downloads a shared file at her own path.
	rc, fi, err = e.c.Download(ctx, "alice", "/report.md", 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(rc)
	rc.Close()
	if string(b) != "# Quarterly report\n" || fi.ETag != simStat(t, sim, "alice", "/report.md").ETag {
		t.Errorf("shared download = %q %+v", b, fi)
	}

	_, _, err = e.c.Download(ctx, "alice", "/Docs/"+unicodeName, int64(len(content)-1))
	wantKind(t, "Download over the cap", err, hs.ETOOLARGE)
	rc, _, err = e.c.Download(ctx, "alice", "/Docs/"+unicodeName, int64(len(content)))
	if err != nil {
		t.Fatalf("Download at exactly the cap: %v", err)
	}
	if b, err := io.ReadAll(rc); err != nil || len(b) != len(content) {
		t.Errorf("read at exactly the cap = %d bytes, %v", len(b), err)
	}
	rc.Close()
	_, _, err = e.c.Download(ctx, "alice", "/missing.md", 0)
	wantKind(t, "Download missing", err, hs.ENOTFOUND)
	_, _, err = e.c.Download(ctx, "carol", "/report.md", 0)
	wantKind(t, "Download without access", err, hs.ENOTFOUND)
}

// TestFilesDiscovered runs against a real server too: it finds a file in
// the test user's tree and checks that every view of it agrees.
func TestFilesDiscovered(t *testing.T) {
	e := newEnv(t)
	if e.sim != nil {
		seedFiles(t, e.sim)
	}
	ctx := context.Background()
	root, err := e.c.Stat(ctx, e.user, "/")
	if err != nil {
		t.Fatal(err)
	}
	if !root.IsDir || root.Path != "/" || root.ID == 0 {
		t.Errorf("Stat(/) = %+v, want the root folder", root)
	}
	var file *hs.FileInfo
	errFound := errors.New("found")
	seen := 0
	err = e.c.Walk(ctx, e.user, "/", func(fi hs.FileInfo) error {
		seen++
		if !fi.IsDir && fi.Size > 0 && fi.Size < 1<<20 {
			file = &fi
			return errFound
		}
		if seen > 200 {
			return errFound
		}
		return nil
	})
	if !errors.Is(err, errFound) || file == nil {
		t.Skipf("no small file in %s's tree (walk: %v)", e.user, err)
	}
	byID, err := e.c.FindByID(ctx, e.user, file.ID)
	if err != nil || byID != *file {
		t.Errorf("FindByID = %+v, %v, want %+v", byID, err, *file)
	}
	stat, err := e.c.Stat(ctx, e.user, file.Path)
	if err != nil || stat != *file {
		t.Errorf("Stat = %+v, %v, want %+v", stat, err, *file)
	}
	rc, fi, err := e.c.Download(ctx, e.user, file.Path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || int64(len(b)) != file.Size || fi.ETag != file.ETag || fi.Path != file.Path {
		t.Errorf("Download = %d bytes %+v, %v, want %d bytes of %+v", len(b), fi, err, file.Size, *file)
	}
	recent, err := e.c.ModifiedSince(ctx, e.user, file.Modified.Add(-time.Second), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(recent, func(fi hs.FileInfo) bool { return fi.ID == file.ID }) {
		t.Errorf("ModifiedSince(%v) misses %s", file.Modified, file.Path)
	}
	_, err = e.c.FindByID(ctx, e.user, 1<<40)
	wantKind(t, "FindByID unknown", err, hs.ENOTFOUND)
}
