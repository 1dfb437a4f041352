package ncsim

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// settableProps are the live properties Nextcloud lets PROPPATCH change.
var settableProps = map[propName]bool{
	{nsOC, "favorite"}:      true,
	{nsDAV, "lastmodified"}: true,
}

// davProppatch answers PROPPATCH like Sabre with Nextcloud's plugins:
// oc:favorite tags the node (no event), d:lastmodified touches it (touch
// events), live properties are protected (403, the rest 424), and any
// other property is stored as a dead property of the node.
func (s *Server) davProppatch(w http.ResponseWriter, r *http.Request, t davTarget) {
	root, err := parseXMLBody(r.Body)
	if err != nil || root == nil || root.XMLName.Space != nsDAV || root.XMLName.Local != "propertyupdate" {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, "The request body must be a {DAV:}propertyupdate")
		return
	}
	type update struct {
		name  propName
		value *xmlElem // nil for remove
	}
	var updates []update
	for i := range root.Children {
		op := &root.Children[i]
		prop := op.child(nsDAV, "prop")
		if op.XMLName.Space != nsDAV || prop == nil || (op.XMLName.Local != "set" && op.XMLName.Local != "remove") {
			continue
		}
		for j := range prop.Children {
			u := update{name: propName{prop.Children[j].XMLName.Space, prop.Children[j].XMLName.Local}}
			if op.XMLName.Local == "set" {
				u.value = &prop.Children[j]
			}
			updates = append(updates, u)
		}
	}
	fs := &s.files
	fs.mu.Lock()
	e, ok := fs.resolve(t.uid, t.path)
	var protected []propName
	if ok {
		for _, u := range updates {
			if _, live := s.livePropValue(t.uid, e, u.name); (live || isLiveProp(u.name)) && !settableProps[u.name] {
				protected = append(protected, u.name)
			}
		}
	}
	var touch *int64
	if ok && len(protected) == 0 {
		for _, u := range updates {
			switch {
			case u.name == propName{nsOC, "favorite"}:
				fav := u.value != nil && strings.TrimSpace(u.value.Text) == "1"
				if fav {
					fs.user(t.uid).favorites[e.n.id] = true
				} else {
					delete(fs.user(t.uid).favorites, e.n.id)
				}
			case u.name == propName{nsDAV, "lastmodified"}:
				if u.value != nil {
					if v, err := strconv.ParseInt(strings.TrimSpace(u.value.Text), 10, 64); err == nil {
						touch = &v
					}
				}
			case u.value == nil:
				delete(e.n.props, u.name)
			default:
				if e.n.props == nil {
					e.n.props = map[propName]string{}
				}
				e.n.props[u.name] = deadValue(u.value)
			}
		}
	}
	fs.mu.Unlock()
	if !ok {
		writeFSError(w, errNotFound(t.path))
		return
	}
	if touch != nil {
		if err := s.touch(t.uid, t.path, *touch); err != nil {
			writeFSError(w, err)
			return
		}
	}
	ms := newMultistatus()
	var names []propName
	for _, u := range updates {
		names = append(names, u.name)
	}
	href := davHref(t.base, t.path, e.n.isDir)
	if len(protected) == 0 {
		ms.responseWith(href, propstat{"HTTP/1.1 200 OK", names})
	} else {
		var failed []propName
		for _, n := range names {
			if !containsProp(protected, n) {
				failed = append(failed, n)
			}
		}
		ms.responseWith(href, propstat{"HTTP/1.1 403 Forbidden", protected}, propstat{"HTTP/1.1 424 Failed Dependency", failed})
	}
	ms.write(w)
}

// isLiveProp reports whether p is a property Nextcloud computes, so that
// PROPPATCH may not store it, even where a node lacks it (getcontentlength
// of a folder).
func isLiveProp(p propName) bool {
	switch p.ns {
	case nsDAV:
		switch p.local {
		case "getcontentlength", "getcontenttype", "getetag", "getlastmodified", "resourcetype",
			"quota-used-bytes", "quota-available-bytes", "lockdiscovery", "supportedlock":
			return true
		}
	case nsOC:
		switch p.local {
		case "fileid", "id", "size", "permissions", "share-types", "owner-id", "owner-display-name":
			return true
		}
	}
	return false
}

func containsProp(list []propName, p propName) bool {
	for _, q := range list {
		if q == p {
			return true
		}
	}
	return false
}

// deadValue serializes a property value for storage: escaped text, or the
// child elements with explicit namespace declarations.
func deadValue(e *xmlElem) string {
	if len(e.Children) == 0 {
		return davText(e.Text)
	}
	var b strings.Builder
	for i := range e.Children {
		writeElem(&b, &e.Children[i])
	}
	return b.String()
}

func writeElem(b *strings.Builder, e *xmlElem) {
	fmt.Fprintf(b, `<%s xmlns="%s">`, e.XMLName.Local, xmlEscape(e.XMLName.Space))
	if len(e.Children) == 0 {
		b.WriteString(davText(e.Text))
	}
	for i := range e.Children {
		writeElem(b, &e.Children[i])
	}
	fmt.Fprintf(b, "</%s>", e.XMLName.Local)
}

// deadProps returns n's dead properties sorted by name.
func deadProps(n *node) []propVal {
	var out []propVal
	for name, v := range n.props {
		out = append(out, propVal{name, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name.String() < out[j].name.String() })
	return out
}
