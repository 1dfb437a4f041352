package ncsim

import (
	"bytes"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// trashEntry is a node inside a trash item, for PROPFIND.
type trashEntry struct {
	item *trashItem
	n    *node
	rel  string // path below the item, "" for the item itself
}

// handleTrashbin serves /remote.php/dav/trashbin/{uid}/{trash,restore}/...
func (s *Server) handleTrashbin(w http.ResponseWriter, r *http.Request) {
	me, ok := s.davUser(w, r)
	if !ok {
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, "/remote.php/dav/trashbin/")
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	uid := parts[0]
	if uid != me {
		writeDAVError(w, http.StatusNotFound, exNotFound, "Principal with name "+uid+" not found")
		return
	}
	base := "/remote.php/dav/trashbin/" + uid
	switch {
	case len(parts) == 1 && r.Method == "PROPFIND":
		s.trashPropfindRoot(w, r, base)
	case len(parts) >= 2 && parts[1] == "restore" && r.Method == "PROPFIND":
		if len(parts) > 2 {
			writeDAVError(w, http.StatusNotFound, exNotFound, "File not found: "+parts[2]+" in 'restore'")
			return
		}
		s.trashPropfindRoot(w, r, base+"/restore")
	case len(parts) >= 2 && parts[1] == "trash":
		s.trashRequest(w, r, uid, base+"/trash", parts[2:])
	default:
		s.notImplemented(w, r)
	}
}

// trashPropfindRoot lists a plain collection: the trashbin home (with its
// trash and restore children) or the empty restore folder.
func (s *Server) trashPropfindRoot(w http.ResponseWriter, r *http.Request, href string) {
	props, allprop, err := parsePropfind(r.Body)
	if err != nil {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, err.Error())
		return
	}
	if allprop {
		props = []propName{{nsDAV, "resourcetype"}}
	}
	hrefs := []string{href + "/"}
	if !strings.HasSuffix(href, "/restore") && parseDepth(r.Header.Get("Depth"), 1) != 0 {
		hrefs = append(hrefs, href+"/restore/", href+"/trash/")
	}
	ms := newMultistatus()
	for _, h := range hrefs {
		var found []propVal
		var missing []propName
		for _, p := range props {
			if p == (propName{nsDAV, "resourcetype"}) {
				found = append(found, propVal{p, "<d:collection/>"})
			} else {
				missing = append(missing, p)
			}
		}
		ms.response(h, found, missing)
	}
	ms.write(w)
}

// trashRequest handles PROPFIND, GET, DELETE and MOVE (restore) in the trash.
func (s *Server) trashRequest(w http.ResponseWriter, r *http.Request, uid, base string, sub []string) {
	switch r.Method {
	case "PROPFIND":
		s.trashPropfind(w, r, uid, base, sub)
	case http.MethodGet, http.MethodHead:
		fs := &s.files
		fs.mu.Lock()
		te, ok := fs.trashLookup(uid, sub)
		if !ok || te.n.isDir {
			fs.mu.Unlock()
			writeDAVError(w, http.StatusNotFound, exNotFound, "File not found in trash")
			return
		}
		content, etag, mtime, name := te.n.content, te.n.etag, te.n.mtime, te.n.name
		if te.rel == "" {
			name = te.item.origName
		}
		fs.mu.Unlock()
		w.Header().Set("Content-Type", secureMIMEFor(name))
		w.Header().Set("ETag", `"`+etag+`"`)
		http.ServeContent(w, r, name, unixTime(mtime), bytes.NewReader(content))
	case http.MethodDelete:
		fs := &s.files
		fs.mu.Lock()
		var ok bool
		switch len(sub) {
		case 0:
			for _, it := range fs.trashItems(uid) {
				fs.purgeTrash(uid, it.name)
			}
			ok = true
		case 1:
			ok = fs.purgeTrash(uid, sub[0])
		}
		fs.mu.Unlock()
		if !ok {
			writeDAVError(w, http.StatusNotFound, exNotFound, "File not found in trash")
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case "MOVE":
		dest, err := url.Parse(r.Header.Get("Destination"))
		restorePrefix := strings.TrimSuffix(base, "/trash") + "/restore/"
		if err != nil || len(sub) != 1 || !strings.HasPrefix(dest.Path, restorePrefix) {
			writeDAVError(w, http.StatusForbidden, exForbidden, "Trash items can only be moved to the restore folder")
			return
		}
		if _, err := s.restore(uid, sub[0]); err != nil {
			writeFSError(w, err)
			return
		}
		w.WriteHeader(http.StatusCreated)
	default:
		s.notImplemented(w, r)
	}
}

// trashLookup finds a node in uid's trash by its path below trash/.
// Callers hold files.mu.
func (fs *filesState) trashLookup(uid string, sub []string) (trashEntry, bool) {
	if len(sub) == 0 {
		return trashEntry{}, false
	}
	item, ok := fs.user(uid).trash[sub[0]]
	if !ok {
		return trashEntry{}, false
	}
	te := trashEntry{item: item, n: item.root}
	for _, name := range sub[1:] {
		c, ok := te.n.children[name]
		if !ok {
			return trashEntry{}, false
		}
		te = trashEntry{item: item, n: c, rel: te.rel + "/" + name}
	}
	return te, true
}

// trashPropfind lists the trash, or one item and what it holds.
func (s *Server) trashPropfind(w http.ResponseWriter, r *http.Request, uid, base string, sub []string) {
	depth := parseDepth(r.Header.Get("Depth"), 1)
	props, allprop, err := parsePropfind(r.Body)
	if err != nil {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, err.Error())
		return
	}
	if allprop {
		props = allProps
	}
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	ms := newMultistatus()
	var visit func(te trashEntry, depth int)
	visit = func(te trashEntry, depth int) {
		s.renderTrashEntry(ms, base, uid, te, props, allprop)
		if depth == 0 || !te.n.isDir {
			return
		}
		names := make([]string, 0, len(te.n.children))
		for name := range te.n.children {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			visit(trashEntry{item: te.item, n: te.n.children[name], rel: te.rel + "/" + name}, depth-1)
		}
	}
	if len(sub) == 0 {
		ms.response(base+"/", []propVal{{propName{nsDAV, "resourcetype"}, "<d:collection/>"}}, nil)
		if depth != 0 {
			for _, it := range fs.trashItems(uid) {
				visit(trashEntry{item: it, n: it.root}, depth-1)
			}
		}
		ms.write(w)
		return
	}
	te, ok := fs.trashLookup(uid, sub)
	if !ok {
		writeDAVError(w, http.StatusNotFound, exNotFound, "File not found: "+strings.Join(sub, "/")+" in 'trash'")
		return
	}
	visit(te, depth)
	ms.write(w)
}

// renderTrashEntry adds a trash node's response. Callers hold files.mu.
func (s *Server) renderTrashEntry(ms *multistatus, base, uid string, te trashEntry, props []propName, allprop bool) {
	it := te.item
	name := te.n.name
	location := it.originalLocation() + te.rel
	if te.rel == "" {
		name = it.origName
	}
	var found []propVal
	var missing []propName
	for _, p := range props {
		var v string
		ok := true
		switch p {
		case propName{nsNC, "trashbin-filename"}, propName{nsNC, "trashbin-title"}:
			v = davText(name)
		case propName{nsNC, "trashbin-original-location"}:
			v = davText(location)
		case propName{nsNC, "trashbin-deletion-time"}:
			v = strconv.FormatInt(it.deletedAt, 10)
		case propName{nsNC, "trashbin-deleted-by-id"}:
			v = davText(it.deletedBy)
		case propName{nsNC, "trashbin-deleted-by-display-name"}:
			v = davText(s.displayName(it.deletedBy))
		case propName{nsDAV, "displayname"}:
			v = davText(name)
		case propName{nsDAV, "getcontenttype"}:
			v, ok = davText(mimeFor(name)), !te.n.isDir
		default:
			v, ok = s.propValue(uid, entry{n: te.n, path: "/" + it.name + te.rel}, p)
		}
		switch {
		case ok:
			found = append(found, propVal{p, v})
		case !allprop:
			missing = append(missing, p)
		}
	}
	ms.response(davHref(base, "/"+it.name+te.rel, te.n.isDir), found, missing)
}
