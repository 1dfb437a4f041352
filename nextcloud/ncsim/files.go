package ncsim

import (
	"fmt"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
)

// OCS permission bits (OCP\Constants).
const (
	permRead   = 1
	permUpdate = 2
	permCreate = 4
	permDelete = 8
	permShare  = 16
	permAll    = 31
)

// filesState holds the file trees, file ids, trash, shares and Notes
// metadata. It has its own mutex; the lock order is files.mu before s.mu,
// and neither is held while events are emitted.
type filesState struct {
	mu        sync.Mutex
	users     map[string]*userFiles // by uid
	byID      map[int64]*node       // every node, live or in a trash
	shares    map[int64]*share      // by share id
	nextID    int64                 // next file id
	nextShare int64                 // next share id
	lastTag   uint64                // last etag value handed out
	// uploads are chunked-upload transfer folders, by uid and id.
	uploads map[string]map[string]*upload
}

// userFiles is one user's storage: the files root, the trash and the
// per-user app state that lives next to it.
type userFiles struct {
	root       *node                 // /<uid>/files
	trash      map[string]*trashItem // by trash name "<name>.d<ts>"
	favorites  map[int64]bool        // favorite tag, by file id
	notesPath  string                // Notes setting notesPath
	fileSuffix string                // Notes setting fileSuffix
	noteMeta   map[int64]*noteMeta   // Notes meta data (etag, last update)
}

// node is a file or folder in the storage of its owner. Its id never
// changes while it lives in that storage, including in the trash.
type node struct {
	id       int64
	owner    string
	name     string
	parent   *node
	isDir    bool
	children map[string]*node
	content  []byte
	etag     string
	mtime    int64      // unix seconds
	size     int64      // for folders the size of the whole subtree
	homeOf   string     // uid when this is a user's files root
	trash    *trashItem // set on the top node of a trash item
}

// entry is a node as one user sees it: the path in that user's tree and,
// when reached through a received share, the share.
type entry struct {
	n     *node
	mount *share // nil in the user's own storage
	path  string // "/" for the root, else "/a/b"
}

func (s *Server) initFiles() {
	s.files.users = map[string]*userFiles{}
	s.files.byID = map[int64]*node{}
	s.files.shares = map[int64]*share{}
	s.files.nextID = 100
	s.files.nextShare = 1
}

// routesFiles registers the WebDAV, sharing and Notes routes. Requests the
// simulator does not know under these prefixes answer 501 and are recorded.
func (s *Server) routesFiles(mux *http.ServeMux) {
	mux.HandleFunc("/remote.php/", s.handleRemote)
	mux.HandleFunc("/ocs/v1.php/apps/files_sharing/", s.handleSharing)
	mux.HandleFunc("/ocs/v2.php/apps/files_sharing/", s.handleSharing)
	mux.HandleFunc("/index.php/apps/notes/", s.handleNotes)
}

// createHome creates the files root of a new user.
func (s *Server) createHome(uid string) {
	now := s.now().Unix()
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if _, ok := fs.users[uid]; ok {
		return
	}
	root := fs.newNode(uid, "files", true, now)
	root.homeOf = uid
	fs.users[uid] = &userFiles{
		root:       root,
		trash:      map[string]*trashItem{},
		favorites:  map[int64]bool{},
		notesPath:  "Notes",
		fileSuffix: ".md",
		noteMeta:   map[int64]*noteMeta{},
	}
}

// newNode allocates a detached node with a fresh id and etag.
func (fs *filesState) newNode(owner, name string, isDir bool, mtime int64) *node {
	n := &node{id: fs.nextID, owner: owner, name: name, isDir: isDir, mtime: mtime}
	fs.nextID++
	if isDir {
		n.children = map[string]*node{}
	}
	n.etag = fs.newETag(mtime)
	fs.byID[n.id] = n
	return n
}

// newETag returns a 13 hex digit uniqid()-like etag, unique and increasing
// even when the clock stands still.
func (fs *filesState) newETag(now int64) string {
	v := uint64(now) << 20
	if v <= fs.lastTag {
		v = fs.lastTag + 1
	}
	fs.lastTag = v
	return fmt.Sprintf("%013x", v&(1<<52-1))
}

// cleanPath turns a user path into "/" or "/a/b" form.
func cleanPath(p string) string {
	p = path.Clean("/" + p)
	return p
}

// splitPath returns the parent path and the last element of a clean path.
func splitPath(p string) (dir, name string) {
	dir, name = path.Split(p)
	if dir != "/" {
		dir = strings.TrimSuffix(dir, "/")
	}
	return dir, name
}

// joinPath joins a clean folder path and a name.
func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// eventPath is the node path used in event payloads: /<uid>/files/...
func eventPath(uid, p string) string {
	if p == "/" {
		return "/" + uid + "/files"
	}
	return "/" + uid + "/files" + p
}

// user returns the storage of uid, or nil.
func (fs *filesState) user(uid string) *userFiles { return fs.users[uid] }

// live reports whether n is in a user's files tree (not in a trash).
func live(n *node) bool {
	for ; n != nil; n = n.parent {
		if n.homeOf != "" {
			return true
		}
		if n.trash != nil {
			return false
		}
	}
	return false
}

// ownerPath is the path of a live node in its owner's tree.
func ownerPath(n *node) string {
	var parts []string
	for ; n != nil && n.homeOf == ""; n = n.parent {
		parts = append(parts, n.name)
	}
	if len(parts) == 0 {
		return "/"
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return "/" + strings.Join(parts, "/")
}

// isAncestor reports whether a is n or one of n's ancestors.
func isAncestor(a, n *node) bool {
	for ; n != nil; n = n.parent {
		if n == a {
			return true
		}
	}
	return false
}

// resolve finds path p in uid's view, following received shares.
func (fs *filesState) resolve(uid, p string) (entry, bool) {
	u := fs.user(uid)
	if u == nil {
		return entry{}, false
	}
	p = cleanPath(p)
	cur := entry{n: u.root, path: "/"}
	if p == "/" {
		return cur, true
	}
	for _, name := range strings.Split(p[1:], "/") {
		if !cur.n.isDir {
			return entry{}, false
		}
		next := joinPath(cur.path, name)
		if cur.mount == nil {
			if sh := fs.mountAt(uid, next); sh != nil {
				cur = entry{n: sh.node, mount: sh, path: next}
				continue
			}
		}
		c, ok := cur.n.children[name]
		if !ok {
			return entry{}, false
		}
		cur = entry{n: c, mount: cur.mount, path: next}
	}
	return cur, true
}

// resolveOwn finds p in uid's own storage only, ignoring shares.
func (fs *filesState) resolveOwn(uid, p string) (*node, bool) {
	u := fs.user(uid)
	if u == nil {
		return nil, false
	}
	n := u.root
	p = cleanPath(p)
	if p == "/" {
		return n, true
	}
	for _, name := range strings.Split(p[1:], "/") {
		if !n.isDir {
			return nil, false
		}
		c, ok := n.children[name]
		if !ok {
			return nil, false
		}
		n = c
	}
	return n, true
}

// children lists what uid sees inside e, sorted by name. Share mounts hide
// own nodes of the same name, as Nextcloud's mount points do.
func (fs *filesState) children(uid string, e entry) []entry {
	if !e.n.isDir {
		return nil
	}
	var out []entry
	seen := map[string]bool{}
	if e.mount == nil {
		for _, sh := range fs.mountsIn(uid, e.path) {
			_, name := splitPath(sh.target)
			seen[name] = true
			out = append(out, entry{n: sh.node, mount: sh, path: sh.target})
		}
	}
	for name, c := range e.n.children {
		if !seen[name] {
			out = append(out, entry{n: c, mount: e.mount, path: joinPath(e.path, name)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// walk calls fn for e and everything below it, up to depth levels (-1 for
// no limit), parents before children.
func (fs *filesState) walk(uid string, e entry, depth int, fn func(entry)) {
	fn(e)
	if depth == 0 {
		return
	}
	for _, c := range fs.children(uid, e) {
		fs.walk(uid, c, depth-1, fn)
	}
}
