package ncsim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// renderEntry adds e's response to ms. Callers hold files.mu.
func (s *Server) renderEntry(ms *multistatus, base, uid string, e entry, props []propName, allprop bool) {
	found, missing := s.renderProps(uid, e, props, allprop)
	ms.response(davHref(base, e.path, e.n.isDir), found, missing)
}

// renderProps evaluates props for e; allprop means Sabre's allprop set,
// with no 404 propstat. Callers hold files.mu.
func (s *Server) renderProps(uid string, e entry, props []propName, allprop bool) (found []propVal, missing []propName) {
	if allprop {
		props = allProps
	}
	for _, p := range props {
		v, ok := s.propValue(uid, e, p)
		switch {
		case ok:
			found = append(found, propVal{p, v})
		case !allprop:
			missing = append(missing, p)
		}
	}
	return found, missing
}

// propValue returns the inner XML of property p of e as uid sees it, or
// false when the node has no such property (a 404 propstat). Callers hold
// files.mu.
func (s *Server) propValue(uid string, e entry, p propName) (string, bool) {
	fs := &s.files
	n := e.n
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	switch p {
	case propName{nsDAV, "getlastmodified"}:
		return unixTime(n.mtime).Format(http.TimeFormat), true
	case propName{nsDAV, "getetag"}:
		return davText(`"` + n.etag + `"`), true
	case propName{nsDAV, "getcontenttype"}:
		return davText(mimeFor(n.name)), !n.isDir
	case propName{nsDAV, "getcontentlength"}:
		return itoa(n.size), !n.isDir
	case propName{nsDAV, "resourcetype"}:
		if n.isDir {
			return "<d:collection/>", true
		}
		return "", true
	case propName{nsDAV, "displayname"}:
		_, name := splitPath(e.path)
		if e.path == "/" {
			name = uid
		}
		return davText(name), true
	case propName{nsDAV, "quota-used-bytes"}:
		return itoa(fs.viewSize(uid, e)), n.isDir
	case propName{nsDAV, "quota-available-bytes"}:
		return "-3", n.isDir
	case propName{nsOC, "fileid"}:
		return itoa(n.id), true
	case propName{nsOC, "id"}:
		return davFileID(n.id, s.InstanceID), true
	case propName{nsOC, "size"}:
		return itoa(fs.viewSize(uid, e)), true
	case propName{nsOC, "permissions"}:
		return fs.davPerms(e), true
	case propName{nsOC, "favorite"}:
		if u := fs.user(uid); u != nil && u.favorites[n.id] {
			return "1", true
		}
		return "0", true
	case propName{nsOC, "share-types"}:
		var b strings.Builder
		for _, t := range fs.shareTypesBy(uid, n) {
			fmt.Fprintf(&b, "<oc:share-type>%d</oc:share-type>", t)
		}
		return b.String(), true
	case propName{nsOC, "owner-id"}:
		return davText(n.owner), true
	case propName{nsOC, "owner-display-name"}:
		return davText(s.displayName(n.owner)), true
	case propName{nsNC, "has-preview"}:
		return strconv.FormatBool(!n.isDir && hasPreview(mimeFor(n.name))), true
	case propName{nsNC, "mount-type"}:
		if e.mount != nil {
			return "shared", true
		}
		return "", true
	case propName{nsNC, "is-encrypted"}, propName{nsNC, "creation_time"}, propName{nsNC, "upload_time"}:
		return "0", true
	case propName{nsOCS, "share-permissions"}:
		perms := fs.perms(e)
		if !n.isDir {
			perms &^= permCreate | permDelete
		}
		return strconv.Itoa(perms), true
	}
	return "", false
}
