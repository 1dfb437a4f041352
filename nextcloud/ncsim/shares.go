package ncsim

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// shareTypeUser is IShare::TYPE_USER, the only share type simulated.
const shareTypeUser = 0

// share is a user share. The recipient sees node mounted at target.
type share struct {
	id          int64
	owner       string // uid_owner: who shared it
	with        string
	node        *node
	target      string // file_target: the mount point in the recipient's tree
	permissions int
	stime       int64
}

// shareActive reports whether sh is mounted for its recipient: the node is
// not in a trash and both users exist.
func (fs *filesState) shareActive(sh *share) bool {
	return live(sh.node) && fs.user(sh.with) != nil
}

// sortedShares returns the shares ordered by id.
func (fs *filesState) sortedShares() []*share {
	out := make([]*share, 0, len(fs.shares))
	for _, sh := range fs.shares {
		out = append(out, sh)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// mountAt returns the active share mounted at p in uid's tree, or nil.
func (fs *filesState) mountAt(uid, p string) *share {
	for _, sh := range fs.sortedShares() {
		if sh.with == uid && sh.target == p && fs.shareActive(sh) {
			return sh
		}
	}
	return nil
}

// mountsIn returns the active shares mounted directly in folder dir of
// uid's tree, one per name.
func (fs *filesState) mountsIn(uid, dir string) []*share {
	var out []*share
	seen := map[string]bool{}
	for _, sh := range fs.sortedShares() {
		if sh.with != uid || !fs.shareActive(sh) || seen[sh.target] {
			continue
		}
		if d, _ := splitPath(sh.target); d == dir {
			seen[sh.target] = true
			out = append(out, sh)
		}
	}
	return out
}

// shareTypesBy lists the share types of the shares uid made on n.
func (fs *filesState) shareTypesBy(uid string, n *node) []int {
	for _, sh := range fs.shares {
		if sh.owner == uid && sh.node == n {
			return []int{shareTypeUser}
		}
	}
	return nil
}

// pathFor returns where uid sees the live node n, if anywhere.
func (fs *filesState) pathFor(uid string, n *node) (string, bool) {
	if !live(n) {
		return "", false
	}
	if n.owner == uid {
		return ownerPath(n), true
	}
	for _, sh := range fs.sortedShares() {
		if sh.with != uid || !fs.shareActive(sh) || !isAncestor(sh.node, n) {
			continue
		}
		rel := strings.TrimPrefix(ownerPath(n), ownerPath(sh.node))
		return cleanPath(sh.target + rel), true
	}
	return "", false
}

// shareError is a failed sharing call: an OCS status and message.
type shareError struct {
	status int
	msg    string
}

func (e *shareError) Error() string { return fmt.Sprintf("%d %s", e.status, e.msg) }

// createShare shares path p of owner with user with. perms < 0 means the
// default (31 for folders, 19 for files). Callers hold files.mu.
func (fs *filesState) createShare(owner, p, with string, perms int, now int64) (*share, error) {
	e, ok := fs.resolve(owner, p)
	if !ok {
		return nil, &shareError{http.StatusNotFound, "Wrong path, file/folder does not exist"}
	}
	if fs.user(with) == nil {
		return nil, &shareError{http.StatusNotFound, "Please specify a valid account to share with"}
	}
	if e.path == "/" {
		return nil, &shareError{http.StatusForbidden, "You cannot share your root folder"}
	}
	if with == owner || with == e.n.owner {
		return nil, &shareError{http.StatusForbidden, "Cannot share with yourself"}
	}
	if fs.perms(e)&permShare == 0 {
		return nil, &shareError{http.StatusNotFound, "Cannot increase permissions of " + e.path}
	}
	for _, sh := range fs.shares {
		if sh.node == e.n && sh.with == with {
			_, name := splitPath(e.path)
			return nil, &shareError{http.StatusForbidden, fmt.Sprintf("Sharing %s failed, because this item is already shared with the account %s", name, with)}
		}
	}
	if perms < 0 {
		perms = permAll
	}
	if perms > permAll {
		return nil, &shareError{http.StatusBadRequest, "Invalid permissions"}
	}
	perms |= permRead
	if !e.n.isDir {
		perms &^= permDelete | permCreate
	}
	_, name := splitPath(e.path)
	sh := &share{
		id: fs.nextShare, owner: owner, with: with, node: e.n,
		target: fs.uniqueTarget(with, "/", name), permissions: perms, stime: now,
	}
	fs.nextShare++
	fs.shares[sh.id] = sh
	fs.bumpOwnPath(with, "/", now)
	return sh, nil
}

// uniqueTarget returns dir/name, or "name (2).ext" and so on when uid
// already sees something there, as SharedMount::generateUniqueTarget does.
func (fs *filesState) uniqueTarget(uid, dir, name string) string {
	base, ext := name, ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		base, ext = name[:i], name[i:]
	}
	cand := joinPath(dir, name)
	for i := 2; ; i++ {
		if _, taken := fs.resolve(uid, cand); !taken {
			return cand
		}
		cand = joinPath(dir, fmt.Sprintf("%s (%d)%s", base, i, ext))
	}
}

// deleteShare removes sh; its recipient loses the mount.
func (fs *filesState) deleteShare(sh *share, now int64) {
	if fs.shareActive(sh) {
		dir, _ := splitPath(sh.target)
		fs.bumpOwnPath(sh.with, dir, now)
	}
	delete(fs.shares, sh.id)
}

// shareJSON renders sh the way ShareAPIController::formatShare does, with
// paths as viewer sees them. Callers hold files.mu.
func (s *Server) shareJSON(viewer string, sh *share) map[string]any {
	fs := &s.files
	n := sh.node
	p := sh.target
	if viewer != sh.with {
		if vp, ok := fs.pathFor(viewer, n); ok {
			p = vp
		}
	}
	itemType := "file"
	if n.isDir {
		itemType = "folder"
	}
	var parent int64
	if n.parent != nil {
		parent = n.parent.id
	}
	owner := s.displayName(sh.owner)
	return map[string]any{
		"id":                            strconv.FormatInt(sh.id, 10),
		"share_type":                    shareTypeUser,
		"uid_owner":                     sh.owner,
		"displayname_owner":             owner,
		"permissions":                   sh.permissions,
		"can_edit":                      viewer == sh.owner || viewer == n.owner,
		"can_delete":                    true,
		"stime":                         sh.stime,
		"parent":                        nil,
		"expiration":                    nil,
		"token":                         nil,
		"uid_file_owner":                n.owner,
		"note":                          "",
		"label":                         "",
		"displayname_file_owner":        s.displayName(n.owner),
		"path":                          p,
		"item_type":                     itemType,
		"mimetype":                      mimeOf(n),
		"has_preview":                   !n.isDir && hasPreview(mimeOf(n)),
		"storage_id":                    "home::" + n.owner,
		"storage":                       fs.user(n.owner).root.id,
		"item_source":                   n.id,
		"file_source":                   n.id,
		"file_parent":                   parent,
		"file_target":                   sh.target,
		"item_size":                     n.size,
		"item_mtime":                    n.mtime,
		"share_with":                    sh.with,
		"share_with_displayname":        s.displayName(sh.with),
		"share_with_displayname_unique": sh.with,
		"mail_send":                     0,
		"hide_download":                 0,
		"attributes":                    nil,
	}
}
