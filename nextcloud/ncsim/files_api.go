package ncsim

import (
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// maxLoadFile is the largest file LoadDir copies; bigger ones are skipped.
const maxLoadFile = 256 << 20

// FileInfo describes a file or folder as one user sees it.
type FileInfo struct {
	ID          int64
	Path        string // relative to the user's files root, with a leading "/"
	ETag        string // without quotes, as in getetag
	MIME        string
	Size        int64
	Modified    time.Time
	IsDir       bool
	Owner       string // uid of the storage owner (differs for received shares)
	Permissions string // oc:permissions letters
}

// Share is a user share.
type Share struct {
	ID          string // as the OCS API reports it
	Owner       string // who shared
	With        string // recipient
	FileID      int64
	Path        string // in the owner's tree
	Target      string // file_target: the mount point in the recipient's tree
	Permissions int    // OCS permission bits
	IsDir       bool
}

func unixTime(sec int64) time.Time { return time.Unix(sec, 0).UTC() }

// mustUser panics unless uid exists.
func (s *Server) mustUser(op, uid string) {
	s.init()
	if !s.userExists(uid) {
		panic(fmt.Sprintf("ncsim: %s: no user %q", op, uid))
	}
}

func mustOK(op string, err error) {
	if err != nil {
		panic(fmt.Sprintf("ncsim: %s: %v", op, err))
	}
}

// PutFile creates or overwrites a file in uid's view and returns it. It
// creates missing parent folders first, firing the events of a MKCOL for
// each, then fires the events of a WebDAV PUT by uid. It panics if uid is
// unknown, path names a folder, or uid may not write there.
func (s *Server) PutFile(uid, path string, content []byte) FileInfo {
	s.mustUser("PutFile", uid)
	path = cleanPath(path)
	dir, _ := splitPath(path)
	s.mkdirAll(uid, dir)
	fi, _, err := s.writeFile(uid, path, content, writeOpts{})
	mustOK("PutFile "+path, err)
	return fi
}

// mkdirAll creates the missing folders of dir with MKCOL events.
func (s *Server) mkdirAll(uid, dir string) {
	if dir == "/" {
		return
	}
	cur := "/"
	for _, name := range strings.Split(dir[1:], "/") {
		cur = joinPath(cur, name)
		if _, ok := s.Stat(uid, cur); !ok {
			_, err := s.mkdir(uid, cur)
			mustOK("mkdir "+cur, err)
		}
	}
}

// Mkdir creates a folder as MKCOL does, with its events. It panics if uid
// is unknown, the parent is missing or the path exists.
func (s *Server) Mkdir(uid, path string) FileInfo {
	s.mustUser("Mkdir", uid)
	fi, err := s.mkdir(uid, path)
	mustOK("Mkdir "+path, err)
	return fi
}

// Remove deletes path in uid's view as a WebDAV DELETE does: the node goes
// to its owner's trash (see Trash), or a received share is unshared. It
// panics if uid is unknown or the path is missing.
func (s *Server) Remove(uid, path string) {
	s.mustUser("Remove", uid)
	mustOK("Remove "+path, s.remove(uid, path))
}

// Move renames or moves from to to (which must not exist) as a WebDAV MOVE
// does, with its events. It panics on misuse.
func (s *Server) Move(uid, from, to string) FileInfo {
	s.mustUser("Move", uid)
	fi, err := s.move(uid, from, to)
	mustOK("Move "+from+" "+to, err)
	return fi
}

// Copy copies from to to (which must not exist) as a WebDAV COPY does; the
// copy gets new file ids. It panics on misuse.
func (s *Server) Copy(uid, from, to string) FileInfo {
	s.mustUser("Copy", uid)
	fi, err := s.copyNode(uid, from, to)
	mustOK("Copy "+from+" "+to, err)
	return fi
}

// Restore restores the trash item trashName ("<name>.d<ts>", see Trash) of
// uid with the restore events and returns the restored node (same id). It
// panics if the item does not exist.
func (s *Server) Restore(uid, trashName string) FileInfo {
	s.mustUser("Restore", uid)
	fi, err := s.restore(uid, trashName)
	mustOK("Restore "+trashName, err)
	return fi
}

// Trash lists uid's trash bin, sorted by trash name.
func (s *Server) Trash(uid string) []TrashItem {
	s.mustUser("Trash", uid)
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var out []TrashItem
	for _, it := range fs.trashItems(uid) {
		out = append(out, TrashItem{
			Name: it.name, OriginalName: it.origName, OriginalLocation: it.location,
			Deleted: unixTime(it.deletedAt), DeletedBy: it.deletedBy, ID: it.root.id, IsDir: it.root.isDir,
		})
	}
	return out
}

// Stat describes path in uid's view; false if uid cannot see it.
func (s *Server) Stat(uid, path string) (FileInfo, bool) {
	s.init()
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	e, ok := fs.resolve(uid, path)
	if !ok {
		return FileInfo{}, false
	}
	return fs.info(uid, e), true
}

// ReadFile returns the content of the file path in uid's view; false if
// uid cannot see it or it is a folder.
func (s *Server) ReadFile(uid, path string) ([]byte, bool) {
	s.init()
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	e, ok := fs.resolve(uid, path)
	if !ok || e.n.isDir {
		return nil, false
	}
	return append([]byte(nil), e.n.content...), true
}

// Walk returns everything uid sees, received shares included, sorted by
// path; the files root itself is left out.
func (s *Server) Walk(uid string) []FileInfo {
	s.mustUser("Walk", uid)
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var out []FileInfo
	root, _ := fs.resolve(uid, "/")
	fs.walk(uid, root, davDepthInfinity, func(e entry) {
		if e.path != "/" {
			out = append(out, fs.info(uid, e))
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Share shares path of owner with user with, with Nextcloud's default
// permissions (31 for folders, 19 for files), as the OCS API does; no
// events fire. The recipient sees it at "/<name>", or "/<name> (2)..." when
// that name is taken. It panics on misuse.
func (s *Server) Share(owner, path, with string) Share {
	s.mustUser("Share", owner)
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	sh, err := fs.createShare(owner, path, with, -1, s.now().Unix())
	mustOK("Share "+path, err)
	return fs.exportShare(sh)
}

// Unshare deletes a share by id; the recipient loses the mount. It panics
// if the share does not exist.
func (s *Server) Unshare(shareID string) {
	s.init()
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	id, err := strconv.ParseInt(shareID, 10, 64)
	sh := fs.shares[id]
	if err != nil || sh == nil {
		panic(fmt.Sprintf("ncsim: Unshare: no share %q", shareID))
	}
	fs.deleteShare(sh, s.now().Unix())
}

// Shares returns every share, ordered by id.
func (s *Server) Shares() []Share {
	s.init()
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var out []Share
	for _, sh := range fs.sortedShares() {
		out = append(out, fs.exportShare(sh))
	}
	return out
}

func (fs *filesState) exportShare(sh *share) Share {
	p := ""
	if live(sh.node) {
		p = ownerPath(sh.node)
	}
	return Share{ID: strconv.FormatInt(sh.id, 10), Owner: sh.owner, With: sh.with, FileID: sh.node.id,
		Path: p, Target: sh.target, Permissions: sh.permissions, IsDir: sh.node.isDir}
}

// SeedFile creates or overwrites a file in uid's own storage, creating
// parent folders, without firing events (like a file that appeared on disk
// and was picked up by occ files:scan). It panics on misuse.
func (s *Server) SeedFile(uid, path string, content []byte) FileInfo {
	s.mustUser("SeedFile", uid)
	now := s.now().Unix()
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n, err := fs.seed(uid, cleanPath(path), content, false, now, now)
	mustOK("SeedFile "+path, err)
	return fs.info(uid, entry{n: n, path: cleanPath(path)})
}

// seed creates or updates a node in uid's own storage without events.
// Callers hold files.mu.
func (fs *filesState) seed(uid, p string, content []byte, isDir bool, mtime, now int64) (*node, error) {
	if p == "/" {
		if isDir {
			return fs.user(uid).root, nil
		}
		return nil, errConflict("the files root is a folder")
	}
	dir, name := splitPath(p)
	parent := fs.user(uid).root
	if dir != "/" {
		for _, part := range strings.Split(dir[1:], "/") {
			c, ok := parent.children[part]
			if !ok {
				if err := validName(part); err != nil {
					return nil, err
				}
				c = fs.newNode(uid, part, true, now)
				fs.attach(parent, c, part, now)
			}
			if !c.isDir {
				return nil, errConflict(ownerPath(c) + " is a file")
			}
			parent = c
		}
	}
	if err := validName(name); err != nil {
		return nil, err
	}
	n, exists := parent.children[name]
	if exists && n.isDir != isDir {
		return nil, errConflict(p + " exists with another type")
	}
	if !exists {
		n = fs.newNode(uid, name, isDir, mtime)
	}
	if !isDir {
		n.content = append([]byte(nil), content...)
		n.size = int64(len(content))
	}
	n.mtime = mtime
	n.etag = fs.newETag(now)
	if exists {
		fs.changed(n, now)
	} else {
		fs.attach(parent, n, name, now)
	}
	return n, nil
}

// LoadDir copies the folder srcDir from disk into uid's own storage under
// dst, keeping modification times and firing no events, as occ files:scan
// would. Symlinks and files over 256 MiB are skipped. It returns the number
// of files loaded and panics if uid is unknown.
func (s *Server) LoadDir(uid, dst, srcDir string) (int, error) {
	s.mustUser("LoadDir", uid)
	dst = cleanPath(dst)
	count := 0
	err := filepath.WalkDir(srcDir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&iofs.ModeSymlink != 0 {
			return nil
		}
		rel, err := filepath.Rel(srcDir, p)
		if err != nil {
			return err
		}
		target := cleanPath(dst + "/" + filepath.ToSlash(rel))
		info, err := d.Info()
		if err != nil {
			return err
		}
		var content []byte
		switch {
		case d.IsDir():
		case !info.Mode().IsRegular():
			return nil
		case info.Size() > maxLoadFile:
			s.logf("ncsim: LoadDir skips %s (%d bytes)", p, info.Size())
			return nil
		default:
			if content, err = os.ReadFile(p); err != nil {
				return err
			}
		}
		fs := &s.files
		fs.mu.Lock()
		_, err = fs.seed(uid, target, content, d.IsDir(), info.ModTime().Unix(), s.now().Unix())
		fs.mu.Unlock()
		if err != nil {
			return fmt.Errorf("%s: %w", target, err)
		}
		if !d.IsDir() {
			count++
		}
		return nil
	})
	if err != nil {
		return count, fmt.Errorf("ncsim: load dir %s: %w", srcDir, err)
	}
	s.logf("ncsim: loaded %d files from %s into %s:%s", count, srcDir, uid, dst)
	return count, nil
}
