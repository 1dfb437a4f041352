package ncsim

import (
	"fmt"
	"net/http"
	"strings"
)

// Sabre exception classes used in WebDAV error bodies.
const (
	exNotFound         = `Sabre\DAV\Exception\NotFound`
	exConflict         = `Sabre\DAV\Exception\Conflict`
	exForbidden        = `Sabre\DAV\Exception\Forbidden`
	exMethodNotAllowed = `Sabre\DAV\Exception\MethodNotAllowed`
	exPrecondition     = `Sabre\DAV\Exception\PreconditionFailed`
	exBadRequest       = `Sabre\DAV\Exception\BadRequest`
	exUnsupportedMedia = `Sabre\DAV\Exception\UnsupportedMediaType`
	exNotAuthenticated = `Sabre\DAV\Exception\NotAuthenticated`
	exNotImplemented   = `Sabre\DAV\Exception\NotImplemented`
	exInvalidPath      = `OCA\DAV\Connector\Sabre\Exception\InvalidPath`
)

// fsError is a failed file operation: a Sabre exception over WebDAV, a
// panic in the setup API.
type fsError struct {
	status int
	class  string
	msg    string
}

func (e *fsError) Error() string { return fmt.Sprintf("%d %s", e.status, e.msg) }

func errNotFound(p string) *fsError {
	return &fsError{http.StatusNotFound, exNotFound, "File with name " + strings.TrimPrefix(p, "/") + " could not be located"}
}

func errForbidden(msg string) *fsError { return &fsError{http.StatusForbidden, exForbidden, msg} }

func errConflict(msg string) *fsError { return &fsError{http.StatusConflict, exConflict, msg} }

func errPrecondition(msg string) *fsError {
	return &fsError{http.StatusPreconditionFailed, exPrecondition, msg}
}

// validName rejects names Nextcloud refuses for files and folders.
func validName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "\\/\x00") {
		return &fsError{http.StatusBadRequest, exInvalidPath, fmt.Sprintf("%q is not a valid file or folder name", name)}
	}
	return nil
}

// run executes op in two passes, the way Nextcloud fires its hooks around
// a change: a dry pass under the lock that validates and returns the
// Before* events, which are emitted unlocked; then the real pass, which
// validates again, applies the change and returns the events emitted
// after the lock is released.
func (s *Server) run(op func(apply bool, now int64) ([]Event, error)) error {
	fs := &s.files
	fs.mu.Lock()
	before, err := op(false, s.now().Unix())
	fs.mu.Unlock()
	if err != nil {
		return err
	}
	for _, ev := range before {
		s.emit(ev)
	}
	fs.mu.Lock()
	after, err := op(true, s.now().Unix())
	fs.mu.Unlock()
	if err != nil {
		return err
	}
	for _, ev := range after {
		s.emit(ev)
	}
	return nil
}

// nodeEvent builds a single-node event; id 0 omits the id.
func nodeEvent(class, uid, p string, id int64) Event {
	return Event{Class: class, Node: &Node{ID: id, Path: eventPath(uid, p)}, User: uid}
}

// pairEvent builds a source/target event; id 0 omits the id.
func pairEvent(class, uid, src string, srcID int64, dst string, dstID int64) Event {
	return Event{Class: class, User: uid,
		Source: &Node{ID: srcID, Path: eventPath(uid, src)},
		Target: &Node{ID: dstID, Path: eventPath(uid, dst)}}
}

// updateEvents are the events of a write to an existing file: View emits
// the "update" hook, then "write" (View::file_put_contents uses hooks
// ['update', 'write'] for an existing path). Nextcloud 34 maps "update" to
// (Before)NodeUpdatedEvent; earlier versions fire only the write events.
func (s *Server) updateEvents(updateClass, writeClass, uid, p string, id int64) []Event {
	if s.release().nodeUpdatedEvents() {
		return []Event{nodeEvent(updateClass, uid, p, id), nodeEvent(writeClass, uid, p, id)}
	}
	return []Event{nodeEvent(writeClass, uid, p, id)}
}

// writeOpts tunes writeFile.
type writeOpts struct {
	mtime *int64 // set the mtime afterwards (X-OC-Mtime), firing Touched events
	touch bool   // create through View::touch (Folder::newFile without content)
	// quietMtime, if non-nil, sets the mtime afterwards without events, as
	// View::putFileInfo does (chunked upload v2's X-OC-Mtime).
	quietMtime *int64
	// cond, if non-nil, checks preconditions (If-Match) under the lock.
	cond func(e entry, exists bool) error
}

// writeFile creates or overwrites the file p in uid's view, as a WebDAV
// PUT does. created reports whether the file is new.
func (s *Server) writeFile(uid, p string, content []byte, o writeOpts) (fi FileInfo, created bool, err error) {
	p = cleanPath(p)
	data := append([]byte(nil), content...)
	err = s.run(func(apply bool, now int64) ([]Event, error) {
		fs := &s.files
		if p == "/" {
			return nil, errConflict("PUT is not allowed on non-files.")
		}
		dir, name := splitPath(p)
		parent, ok := fs.resolve(uid, dir)
		if !ok {
			return nil, errConflict("Files cannot be created in non-existent collections")
		}
		if !parent.n.isDir {
			return nil, errConflict("Files can only be created as children of collections")
		}
		e, exists := fs.resolve(uid, p)
		if exists && e.n.isDir {
			return nil, errConflict("PUT is not allowed on non-files.")
		}
		if o.cond != nil {
			if err := o.cond(e, exists); err != nil {
				return nil, err
			}
		}
		if exists && !fs.writable(e) {
			return nil, errForbidden("File is not updatable")
		}
		if !exists {
			if err := validName(name); err != nil {
				return nil, err
			}
			if fs.perms(parent)&permCreate == 0 {
				return nil, errForbidden("Could not create file")
			}
		}
		if !apply {
			switch {
			case exists:
				return s.updateEvents(BeforeNodeUpdatedEvent, BeforeNodeWrittenEvent, uid, p, e.n.id), nil
			case o.touch:
				return []Event{nodeEvent(BeforeNodeTouchedEvent, uid, p, 0),
					nodeEvent(BeforeNodeCreatedEvent, uid, p, 0),
					nodeEvent(BeforeNodeWrittenEvent, uid, p, 0)}, nil
			}
			return []Event{nodeEvent(BeforeNodeCreatedEvent, uid, p, 0),
				nodeEvent(BeforeNodeWrittenEvent, uid, p, 0)}, nil
		}
		n := e.n
		if exists {
			n.content = data
			n.size = int64(len(data))
			n.etag = fs.newETag(now)
			n.mtime = now
			fs.changed(n, now)
		} else {
			n = fs.newNode(parent.n.owner, name, false, now)
			n.content = data
			n.size = int64(len(data))
			fs.attach(parent.n, n, name, now)
			e = entry{n: n, mount: parent.mount, path: p}
		}
		if o.quietMtime != nil {
			n.mtime = *o.quietMtime
		}
		var evs []Event
		if o.mtime != nil {
			n.mtime = *o.mtime
			n.etag = fs.newETag(now)
			fs.changed(n, now)
			evs = append(evs, nodeEvent(BeforeNodeTouchedEvent, uid, p, n.id), nodeEvent(NodeTouchedEvent, uid, p, n.id))
		}
		switch {
		case exists:
			evs = append(evs, s.updateEvents(NodeUpdatedEvent, NodeWrittenEvent, uid, p, n.id)...)
		case o.touch:
			evs = append(evs, nodeEvent(NodeTouchedEvent, uid, p, n.id),
				nodeEvent(NodeCreatedEvent, uid, p, n.id), nodeEvent(NodeWrittenEvent, uid, p, n.id))
		default:
			evs = append(evs, nodeEvent(NodeCreatedEvent, uid, p, n.id), nodeEvent(NodeWrittenEvent, uid, p, n.id))
		}
		fi, created = fs.info(uid, e), !exists
		return evs, nil
	})
	return fi, created, err
}

// mkdir creates the folder p in uid's view, as MKCOL does.
func (s *Server) mkdir(uid, p string) (fi FileInfo, err error) {
	p = cleanPath(p)
	err = s.run(func(apply bool, now int64) ([]Event, error) {
		fs := &s.files
		if _, exists := fs.resolve(uid, p); exists {
			return nil, &fsError{http.StatusMethodNotAllowed, exMethodNotAllowed, "The resource you tried to create already exists"}
		}
		dir, name := splitPath(p)
		parent, ok := fs.resolve(uid, dir)
		if !ok {
			return nil, errConflict("Parent node does not exist")
		}
		if !parent.n.isDir {
			return nil, errConflict("Parent node is not a collection")
		}
		if err := validName(name); err != nil {
			return nil, err
		}
		if fs.perms(parent)&permCreate == 0 {
			return nil, errForbidden("Could not create folder")
		}
		if !apply {
			return []Event{nodeEvent(BeforeNodeCreatedEvent, uid, p, 0), nodeEvent(BeforeNodeWrittenEvent, uid, p, 0)}, nil
		}
		n := fs.newNode(parent.n.owner, name, true, now)
		fs.attach(parent.n, n, name, now)
		fi = fs.info(uid, entry{n: n, mount: parent.mount, path: p})
		return []Event{nodeEvent(NodeCreatedEvent, uid, p, n.id), nodeEvent(NodeWrittenEvent, uid, p, n.id)}, nil
	})
	return fi, err
}

// remove deletes p in uid's view: into the owner's trash, or, for the root
// of a received share, by unsharing it from uid (no node events).
func (s *Server) remove(uid, p string) error {
	p = cleanPath(p)
	return s.run(func(apply bool, now int64) ([]Event, error) {
		fs := &s.files
		if p == "/" {
			return nil, errForbidden("Cannot delete the home folder")
		}
		e, ok := fs.resolve(uid, p)
		if !ok {
			return nil, errNotFound(p)
		}
		if e.mount != nil && e.n == e.mount.node {
			if apply {
				fs.deleteShare(e.mount, now)
			}
			return nil, nil
		}
		if fs.perms(e)&permDelete == 0 {
			return nil, errForbidden("No delete permission")
		}
		if !apply {
			return []Event{nodeEvent(BeforeNodeDeletedEvent, uid, p, e.n.id)}, nil
		}
		fs.toTrash(e.n, uid, now)
		id := e.n.id
		if s.GoneNodeIDs == GoneIDsNone {
			id = 0
		}
		return []Event{nodeEvent(NodeDeletedEvent, uid, p, id)}, nil
	})
}

// moveCheck validates a MOVE or COPY from src to dst in uid's view and
// returns the source entry and the destination's parent.
func (fs *filesState) moveCheck(uid, src, dst string) (from, parent entry, name string, err error) {
	if src == "/" {
		return from, parent, "", errForbidden("Cannot move or copy the home folder")
	}
	from, ok := fs.resolve(uid, src)
	if !ok {
		return from, parent, "", errNotFound(src)
	}
	if src == dst {
		return from, parent, "", errForbidden("Source and destination uri are identical.")
	}
	if strings.HasPrefix(dst, src+"/") {
		return from, parent, "", errConflict("The destination may not be part of the same subtree as the source path.")
	}
	dir, name := splitPath(dst)
	parent, ok = fs.resolve(uid, dir)
	if !ok {
		return from, parent, "", errConflict("The destination node is not found")
	}
	if !parent.n.isDir {
		return from, parent, "", &fsError{http.StatusUnsupportedMediaType, exUnsupportedMedia, "The destination node is not a collection"}
	}
	if _, exists := fs.resolve(uid, dst); exists {
		return from, parent, "", errPrecondition("The destination node already exists, and the overwrite header is set to false")
	}
	if err := validName(name); err != nil {
		return from, parent, "", err
	}
	return from, parent, name, nil
}

// move renames or moves src to dst in uid's view; dst must not exist.
// Moving the root of a received share moves the mount point. Moving into
// another owner's storage gives the nodes new ids, as Nextcloud's
// cross-storage moves do.
func (s *Server) move(uid, src, dst string) (fi FileInfo, err error) {
	src, dst = cleanPath(src), cleanPath(dst)
	err = s.run(func(apply bool, now int64) ([]Event, error) {
		fs := &s.files
		from, parent, name, err := fs.moveCheck(uid, src, dst)
		if err != nil {
			return nil, err
		}
		srcDir, _ := splitPath(src)
		dstDir, _ := splitPath(dst)
		mountRoot := from.mount != nil && from.n == from.mount.node
		switch {
		case mountRoot:
			if parent.mount != nil {
				return nil, errForbidden("Moving a share into another share is not allowed")
			}
			if fs.sharedAbove(parent.n) {
				return nil, errForbidden("Moving a share into a shared folder is not allowed")
			}
		case srcDir == dstDir:
			if fs.perms(from)&permUpdate == 0 {
				return nil, errForbidden("No rename permission")
			}
		default:
			if fs.perms(from)&permDelete == 0 {
				return nil, errForbidden("No move permission")
			}
		}
		if !mountRoot && srcDir != dstDir && fs.perms(parent)&permCreate == 0 {
			return nil, errForbidden("No create permission in the destination")
		}
		if !apply {
			return []Event{pairEvent(BeforeNodeRenamedEvent, uid, src, from.n.id, dst, 0)}, nil
		}
		n := from.n
		switch {
		case mountRoot:
			from.mount.target = dst
			fs.bumpOwnPath(uid, srcDir, now)
			fs.bumpOwnPath(uid, dstDir, now)
		case n.owner == parent.n.owner:
			fs.detach(n, now)
			fs.attach(parent.n, n, name, now)
			if from.mount == nil {
				fs.retargetMounts(uid, src, dst)
			}
		default:
			c := fs.clone(n, parent.n.owner, now, true)
			fs.detach(n, now)
			fs.forget(n)
			fs.attach(parent.n, c, name, now)
			n = c
		}
		to := entry{n: n, mount: parent.mount, path: dst}
		if mountRoot {
			to.mount = from.mount
		}
		fi = fs.info(uid, to)
		var srcID int64
		if s.GoneNodeIDs == GoneIDsAll {
			srcID = from.n.id
		}
		return []Event{pairEvent(NodeRenamedEvent, uid, src, srcID, dst, n.id)}, nil
	})
	return fi, err
}

// sharedAbove reports whether n or one of its ancestors is shared.
func (fs *filesState) sharedAbove(n *node) bool {
	for ; n != nil; n = n.parent {
		for _, sh := range fs.shares {
			if sh.node == n {
				return true
			}
		}
	}
	return false
}

// retargetMounts moves the share mounts of uid below oldDir to newDir.
func (fs *filesState) retargetMounts(uid, oldDir, newDir string) {
	for _, sh := range fs.shares {
		if sh.with == uid && strings.HasPrefix(sh.target, oldDir+"/") {
			sh.target = newDir + strings.TrimPrefix(sh.target, oldDir)
		}
	}
}

// clone copies n's subtree with new ids and etags for owner. keepMtime
// keeps the mtimes (moves); copies get the current time.
func (fs *filesState) clone(n *node, owner string, now int64, keepMtime bool) *node {
	mtime := now
	if keepMtime {
		mtime = n.mtime
	}
	c := fs.newNode(owner, n.name, n.isDir, mtime)
	c.content = append([]byte(nil), n.content...)
	c.size = n.size
	for name, child := range n.children {
		cc := fs.clone(child, owner, now, keepMtime)
		cc.parent = c
		c.children[name] = cc
	}
	return c
}

// copyNode copies src to dst in uid's view, as COPY does; dst must not exist.
func (s *Server) copyNode(uid, src, dst string) (fi FileInfo, err error) {
	src, dst = cleanPath(src), cleanPath(dst)
	err = s.run(func(apply bool, now int64) ([]Event, error) {
		fs := &s.files
		from, parent, name, err := fs.moveCheck(uid, src, dst)
		if err != nil {
			return nil, err
		}
		if fs.perms(parent)&permCreate == 0 {
			return nil, errForbidden("No create permission in the destination")
		}
		if !apply {
			return []Event{pairEvent(BeforeNodeCopiedEvent, uid, src, from.n.id, dst, 0),
				nodeEvent(BeforeNodeCreatedEvent, uid, dst, 0),
				nodeEvent(BeforeNodeWrittenEvent, uid, dst, 0)}, nil
		}
		c := fs.clone(from.n, parent.n.owner, now, false)
		fs.attach(parent.n, c, name, now)
		fi = fs.info(uid, entry{n: c, mount: parent.mount, path: dst})
		return []Event{pairEvent(NodeCopiedEvent, uid, src, from.n.id, dst, c.id),
			nodeEvent(NodeCreatedEvent, uid, dst, c.id),
			nodeEvent(NodeWrittenEvent, uid, dst, c.id)}, nil
	})
	return fi, err
}

// touch sets the mtime of p in uid's view, as Node::touch does.
func (s *Server) touch(uid, p string, mtime int64) error {
	p = cleanPath(p)
	return s.run(func(apply bool, now int64) ([]Event, error) {
		fs := &s.files
		e, ok := fs.resolve(uid, p)
		if !ok {
			return nil, errNotFound(p)
		}
		if !fs.writable(e) && !e.n.isDir {
			return nil, errForbidden("File is not updatable")
		}
		if !apply {
			return []Event{nodeEvent(BeforeNodeTouchedEvent, uid, p, e.n.id)}, nil
		}
		e.n.mtime = mtime
		e.n.etag = fs.newETag(now)
		fs.changed(e.n, now)
		return []Event{nodeEvent(NodeTouchedEvent, uid, p, e.n.id)}, nil
	})
}

// info describes e as uid sees it.
func (fs *filesState) info(uid string, e entry) FileInfo {
	return FileInfo{
		ID:          e.n.id,
		Path:        e.path,
		ETag:        e.n.etag,
		MIME:        mimeOf(e.n),
		Size:        fs.viewSize(uid, e),
		Modified:    unixTime(e.n.mtime),
		IsDir:       e.n.isDir,
		Owner:       e.n.owner,
		Permissions: fs.davPerms(e),
	}
}
