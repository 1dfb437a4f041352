package ncsim

import "strings"

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
