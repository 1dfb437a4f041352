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
	mtime    int64               // unix seconds
	size     int64               // for folders the size of the whole subtree
	props    map[propName]string // dead properties set by PROPPATCH
	homeOf   string              // uid when this is a user's files root
	trash    *trashItem          // set on the top node of a trash item
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

// perms returns the OCS permission bits uid has on e.
func (fs *filesState) perms(e entry) int {
	p := permAll &^ permCreate
	if e.n.isDir {
		p = permAll
	}
	if e.mount == nil {
		return p
	}
	p &= e.mount.permissions
	if e.n == e.mount.node {
		// The root of a movable mount can always be renamed or unshared.
		p |= permUpdate | permDelete
	}
	return p
}

// writable reports whether uid may change e's content (the share's update
// permission counts for a mount root, not the one added for renaming).
func (fs *filesState) writable(e entry) bool {
	if e.mount != nil && e.n == e.mount.node {
		return e.mount.permissions&permUpdate != 0
	}
	return fs.perms(e)&permUpdate != 0
}

// davPerms renders e's permissions as oc:permissions letters.
func (fs *filesState) davPerms(e entry) string {
	p := fs.perms(e)
	var b strings.Builder
	if e.mount != nil {
		b.WriteString("S")
	}
	if p&permShare != 0 {
		b.WriteString("R")
	}
	if e.mount != nil {
		b.WriteString("M")
	}
	if p&permRead != 0 {
		b.WriteString("G")
	}
	if p&permDelete != 0 {
		b.WriteString("D")
	}
	if p&permUpdate != 0 {
		b.WriteString("NV")
	}
	if e.n.isDir {
		if p&permCreate != 0 {
			b.WriteString("CK")
		}
	} else if fs.writable(e) {
		b.WriteString("W")
	}
	return b.String()
}

// viewSize is e's size as uid sees it: folders include the mounts below.
func (fs *filesState) viewSize(uid string, e entry) int64 {
	size := e.n.size
	if !e.n.isDir || e.mount != nil {
		return size
	}
	prefix := e.path + "/"
	if e.path == "/" {
		prefix = "/"
	}
	for _, sh := range fs.shares {
		if sh.with == uid && fs.shareActive(sh) && strings.HasPrefix(sh.target, prefix) {
			size += sh.node.size
		}
	}
	return size
}

// mimeOf returns n's MIME type.
func mimeOf(n *node) string {
	if n.isDir {
		return dirMIME
	}
	return mimeFor(n.name)
}

// changed propagates a change of n: new etags, sizes and mtimes for every
// ancestor, and new etags along each recipient's path to a share on n or
// an ancestor. The caller has updated n itself.
func (fs *filesState) changed(n *node, now int64) {
	fs.bumpRecipients(n, now)
	for p := n.parent; p != nil; p = p.parent {
		p.etag = fs.newETag(now)
		p.size = 0
		for _, c := range p.children {
			p.size += c.size
		}
		if now > p.mtime {
			p.mtime = now
		}
		fs.bumpRecipients(p, now)
	}
}

// bumpRecipients gives a new etag to the folders holding the mount of
// every active share of n, up to each recipient's root.
func (fs *filesState) bumpRecipients(n *node, now int64) {
	for _, sh := range fs.shares {
		if sh.node != n || !fs.shareActive(sh) {
			continue
		}
		dir, _ := splitPath(sh.target)
		fs.bumpOwnPath(sh.with, dir, now)
	}
}

// bumpOwnPath gives a new etag to every folder from uid's root down to dir
// in uid's own storage.
func (fs *filesState) bumpOwnPath(uid, dir string, now int64) {
	u := fs.user(uid)
	if u == nil {
		return
	}
	n := u.root
	bump := func(n *node) {
		n.etag = fs.newETag(now)
		if now > n.mtime {
			n.mtime = now
		}
	}
	bump(n)
	if dir == "/" {
		return
	}
	for _, name := range strings.Split(dir[1:], "/") {
		c, ok := n.children[name]
		if !ok || !c.isDir {
			return
		}
		n = c
		bump(n)
	}
}

// attach puts child into parent under name and propagates the change.
func (fs *filesState) attach(parent, child *node, name string, now int64) {
	child.name = name
	child.parent = parent
	parent.children[name] = child
	fs.forSubtree(child, func(x *node) { fs.bumpRecipients(x, now) })
	fs.changed(child, now)
}

// detach removes n from its parent and propagates the change.
func (fs *filesState) detach(n *node, now int64) {
	p := n.parent
	if p == nil {
		return
	}
	// Recipients of shares on n or below lose their mount.
	fs.forSubtree(n, func(x *node) { fs.bumpRecipients(x, now) })
	delete(p.children, n.name)
	n.parent = nil
	p.etag = fs.newETag(now)
	p.size -= n.size
	if now > p.mtime {
		p.mtime = now
	}
	fs.changed(p, now)
}

// forSubtree calls fn for n and every node below it.
func (fs *filesState) forSubtree(n *node, fn func(*node)) {
	fn(n)
	for _, c := range n.children {
		fs.forSubtree(c, fn)
	}
}

// forget drops n and its subtree from the id table (permanent deletion).
func (fs *filesState) forget(n *node) {
	fs.forSubtree(n, func(x *node) {
		delete(fs.byID, x.id)
		for id, sh := range fs.shares {
			if sh.node == x {
				delete(fs.shares, id)
			}
		}
	})
}

// recomputeSize sets the size of folder n from its children.
func recomputeSize(n *node) {
	if !n.isDir {
		n.size = int64(len(n.content))
		return
	}
	n.size = 0
	for _, c := range n.children {
		recomputeSize(c)
		n.size += c.size
	}
}
