package ncsim

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// trashItem is a deleted node in its owner's trash bin.
type trashItem struct {
	name      string // "<name>.d<ts>", the name under files_trashbin/files
	origName  string
	location  string // original parent folder in the owner's tree, "/" for the root
	deletedAt int64
	deletedBy string
	root      *node
}

// originalLocation is the nc:trashbin-original-location value: the path
// relative to the files root, without a leading slash.
func (t *trashItem) originalLocation() string {
	return strings.TrimPrefix(joinPath(t.location, t.origName), "/")
}

// TrashItem is an entry of a user's trash bin.
type TrashItem struct {
	Name             string // "<name>.d<unix deletion time>": what Restore takes
	OriginalName     string
	OriginalLocation string // original parent folder, "/" for the files root
	Deleted          time.Time
	DeletedBy        string
	ID               int64 // the file id, kept in the trash and on restore
	IsDir            bool
}

// toTrash moves the live node n into its owner's trash. Callers hold files.mu.
func (fs *filesState) toTrash(n *node, deletedBy string, now int64) *trashItem {
	u := fs.user(n.owner)
	item := &trashItem{origName: n.name, location: ownerPath(n.parent), deletedBy: deletedBy, root: n}
	ts := now
	for {
		item.name = fmt.Sprintf("%s.d%d", n.name, ts)
		if _, taken := u.trash[item.name]; !taken {
			break
		}
		ts++
	}
	item.deletedAt = ts
	fs.detach(n, now)
	n.name = item.name
	n.trash = item
	u.trash[item.name] = item
	return item
}

// restore puts uid's trash item back at its original location, or at the
// root when that folder is gone, under a "name (restored).ext" name when
// the original one is taken, as Trashbin::restore does.
func (s *Server) restore(uid, trashName string) (fi FileInfo, err error) {
	src := "/" + uid + "/files_trashbin/files/" + trashName
	err = s.run(func(apply bool, now int64) ([]Event, error) {
		fs := &s.files
		u := fs.user(uid)
		item, ok := u.trash[trashName]
		if !ok {
			return nil, errNotFound("trash/" + trashName)
		}
		loc := item.location
		parent, ok := fs.resolveOwn(uid, loc)
		if !ok || !parent.isDir {
			loc, parent = "/", u.root
		}
		name := fs.restoreName(uid, loc, item.origName)
		dst := joinPath(loc, name)
		if !apply {
			return []Event{{Class: BeforeNodeRestoredEvent, User: uid,
				Source: &Node{Path: src}, Target: &Node{Path: eventPath(uid, dst)}}}, nil
		}
		delete(u.trash, trashName)
		n := item.root
		n.trash = nil
		mtime := n.mtime
		fs.attach(parent, n, name, now)
		// Trashbin::restore touches the restored node with its old mtime.
		n.mtime = mtime
		n.etag = fs.newETag(now)
		fs.changed(n, now)
		fi = fs.info(uid, entry{n: n, path: dst})
		return []Event{
			nodeEvent(BeforeNodeTouchedEvent, uid, dst, n.id),
			nodeEvent(NodeTouchedEvent, uid, dst, n.id),
			{Class: NodeRestoredEvent, User: uid, Source: &Node{Path: src}, Target: &Node{ID: n.id, Path: eventPath(uid, dst)}},
		}, nil
	})
	return fi, err
}

// restoreName returns name, or "name (restored).ext", "name (restored 2).ext"
// and so on when uid already sees something at dir/name.
func (fs *filesState) restoreName(uid, dir, name string) string {
	if _, taken := fs.resolve(uid, joinPath(dir, name)); !taken {
		return name
	}
	base, ext := name, ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		base, ext = name[:i], name[i:]
	}
	cand := base + " (restored)" + ext
	for i := 2; ; i++ {
		if _, taken := fs.resolve(uid, joinPath(dir, cand)); !taken {
			return cand
		}
		cand = fmt.Sprintf("%s (restored %d)%s", base, i, ext)
	}
}

// purgeTrash deletes a trash item for good (no node events, as Nextcloud
// fires only trashbin hooks). Callers hold files.mu.
func (fs *filesState) purgeTrash(uid, trashName string) bool {
	u := fs.user(uid)
	item, ok := u.trash[trashName]
	if !ok {
		return false
	}
	delete(u.trash, trashName)
	fs.forget(item.root)
	return true
}

// trashItems returns uid's trash sorted by name. Callers hold files.mu.
func (fs *filesState) trashItems(uid string) []*trashItem {
	u := fs.user(uid)
	out := make([]*trashItem, 0, len(u.trash))
	for _, it := range u.trash {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
