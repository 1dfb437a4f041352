package ncsim

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// maxUpload caps a WebDAV PUT body.
const maxUpload = 512 << 20

// davTarget is a request path below a WebDAV files root.
type davTarget struct {
	base string // href prefix without the trailing slash, e.g. /remote.php/dav/files/alice
	uid  string // tree owner named in the URL; "" for the legacy endpoint
	path string // "/" or "/a/b"
}

// handleRemote dispatches everything under /remote.php/.
func (s *Server) handleRemote(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/remote.php/dav" || p == "/remote.php/dav/":
		if r.Method == "SEARCH" || r.Method == http.MethodPost {
			s.handleSearch(w, r)
			return
		}
	case strings.HasPrefix(p, "/remote.php/dav/files/"):
		uid, sub, _ := strings.Cut(strings.TrimPrefix(p, "/remote.php/dav/files/"), "/")
		if uid != "" {
			s.handleDAVFiles(w, r, davTarget{base: "/remote.php/dav/files/" + uid, uid: uid, path: cleanPath(sub)})
			return
		}
	case p == "/remote.php/webdav" || strings.HasPrefix(p, "/remote.php/webdav/"):
		s.handleDAVFiles(w, r, davTarget{base: "/remote.php/webdav", path: cleanPath(strings.TrimPrefix(p, "/remote.php/webdav"))})
		return
	case strings.HasPrefix(p, "/remote.php/dav/trashbin/"):
		s.handleTrashbin(w, r)
		return
	case p == "/remote.php/dav/bulk" && r.Method == http.MethodPost:
		s.handleBulk(w, r)
		return
	case strings.HasPrefix(p, uploadsPrefix):
		s.handleUploads(w, r)
		return
	}
	s.notImplemented(w, r)
}

// davUser authenticates a WebDAV request and returns the acting user, or
// answers 401 the way Sabre's auth plugin does.
func (s *Server) davUser(w http.ResponseWriter, r *http.Request) (string, bool) {
	p := s.authenticate(r)
	if !p.loggedIn() || p.uid == "" {
		writeDAVError(w, http.StatusUnauthorized, exNotAuthenticated,
			"No public access to this resource., No 'Authorization: Basic' header found. Either the client didn't send one, or the server is misconfigured, No 'Authorization: Bearer' header found. Either the client didn't send one, or the server is mis-configured, No 'Authorization: Basic' header found. Either the client didn't send one, or the server is misconfigured")
		return "", false
	}
	return p.uid, true
}

// handleDAVFiles serves /remote.php/dav/files/{uid}/... and /remote.php/webdav/...
func (s *Server) handleDAVFiles(w http.ResponseWriter, r *http.Request, t davTarget) {
	me, ok := s.davUser(w, r)
	if !ok {
		return
	}
	if t.uid == "" {
		t.uid = me
	}
	if t.uid != me {
		s.davOtherUser(w, r, t)
		return
	}
	switch r.Method {
	case "PROPFIND":
		s.davPropfind(w, r, t)
	case http.MethodGet, http.MethodHead:
		s.davGet(w, r, t)
	case http.MethodPut:
		s.davPut(w, r, t)
	case http.MethodDelete:
		s.davDelete(w, r, t)
	case "MKCOL":
		if err := checkMkcolBody(r); err != nil {
			writeFSError(w, err)
			return
		}
		if _, err := s.mkdir(t.uid, t.path); err != nil {
			writeFSError(w, err)
			return
		}
		w.WriteHeader(http.StatusCreated)
	case "MOVE", "COPY":
		s.davMoveCopy(w, r, t)
	case http.MethodOptions:
		w.Header().Set("DAV", "1, 3, extended-mkcol")
		w.Header().Set("Allow", "OPTIONS, GET, HEAD, DELETE, PROPFIND, PUT, PROPPATCH, COPY, MOVE, REPORT, SEARCH")
		w.WriteHeader(http.StatusOK)
	default:
		s.notImplemented(w, r)
	}
}

// checkMkcolBody rejects MKCOL bodies the way Sabre does: a body must be
// an XML {DAV:}mkcol (extended MKCOL), whose properties are ignored here.
func checkMkcolBody(r *http.Request) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "application/xml") && !strings.HasPrefix(ct, "text/xml") {
		return &fsError{http.StatusUnsupportedMediaType, exUnsupportedMedia, "The request body for the MKCOL request must have an xml Content-Type"}
	}
	root, err := parseXMLBody(bytes.NewReader(body))
	if err != nil || root == nil || root.XMLName.Space != nsDAV || root.XMLName.Local != "mkcol" {
		return &fsError{http.StatusUnsupportedMediaType, exUnsupportedMedia, "The request body for a MKCOL request must be a {DAV:}mkcol request construct."}
	}
	return nil
}

// davOtherUser answers requests for another user's tree: Nextcloud puts an
// empty placeholder collection there for existing users.
func (s *Server) davOtherUser(w http.ResponseWriter, r *http.Request, t davTarget) {
	if !s.userExists(t.uid) {
		writeDAVError(w, http.StatusNotFound, exNotFound, "Principal with name "+t.uid+" not found")
		return
	}
	if dir, name := splitPath(t.path); dir == "/" && (r.Method == http.MethodPut || r.Method == "MKCOL") {
		writeDAVError(w, http.StatusForbidden, exForbidden, "Permission denied to create file (filename "+name+")")
		return
	}
	if t.path != "/" {
		writeDAVError(w, http.StatusNotFound, exNotFound, "File not found: "+strings.TrimPrefix(t.path, "/")+" in '"+t.uid+"'")
		return
	}
	switch r.Method {
	case "PROPFIND":
		props, allprop, err := parsePropfind(r.Body)
		if err != nil {
			writeDAVError(w, http.StatusBadRequest, exBadRequest, err.Error())
			return
		}
		if allprop {
			props = []propName{{nsDAV, "resourcetype"}}
		}
		ms := newMultistatus()
		var found []propVal
		var missing []propName
		for _, p := range props {
			if p == (propName{nsDAV, "resourcetype"}) {
				found = append(found, propVal{p, "<d:collection/>"})
			} else {
				missing = append(missing, p)
			}
		}
		ms.response(davHref(t.base, "/", true), found, missing)
		ms.write(w)
	case http.MethodGet, http.MethodHead:
		writeDAVError(w, http.StatusNotImplemented, exNotImplemented, "There was no plugin in the system that was willing to handle this "+r.Method+" method.")
	default:
		writeDAVError(w, http.StatusForbidden, exForbidden, "Permission denied")
	}
}

// davPropfind answers PROPFIND with Depth 0, 1 or infinity (default 1).
func (s *Server) davPropfind(w http.ResponseWriter, r *http.Request, t davTarget) {
	depth := parseDepth(r.Header.Get("Depth"), 1)
	props, allprop, err := parsePropfind(r.Body)
	if err != nil {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, err.Error())
		return
	}
	fs := &s.files
	fs.mu.Lock()
	e, ok := fs.resolve(t.uid, t.path)
	if !ok {
		fs.mu.Unlock()
		writeFSError(w, errNotFound(t.path))
		return
	}
	ms := newMultistatus()
	fs.walk(t.uid, e, depth, func(c entry) {
		s.renderEntry(ms, t.base, t.uid, c, props, allprop)
	})
	fs.mu.Unlock()
	ms.write(w)
}

// davGet answers GET and HEAD with the body, ETag, Last-Modified and the
// secure Content-Type. Ranges and conditional requests work as in Sabre.
func (s *Server) davGet(w http.ResponseWriter, r *http.Request, t davTarget) {
	fs := &s.files
	fs.mu.Lock()
	e, ok := fs.resolve(t.uid, t.path)
	if !ok {
		fs.mu.Unlock()
		writeFSError(w, errNotFound(t.path))
		return
	}
	if e.n.isDir {
		fs.mu.Unlock()
		writeDAVError(w, http.StatusNotImplemented, exNotImplemented, "There was no plugin in the system that was willing to handle this "+r.Method+" method.")
		return
	}
	content, etag, mtime, name := e.n.content, e.n.etag, e.n.mtime, e.n.name
	fs.mu.Unlock()
	h := w.Header()
	h.Set("Content-Type", secureMIMEFor(name))
	h.Set("ETag", `"`+etag+`"`)
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename*=UTF-8''%s; filename="%s"`, url.PathEscape(name), name))
	h.Set("X-Accel-Buffering", "no")
	http.ServeContent(w, r, name, unixTime(mtime), bytes.NewReader(content))
}

// davPut answers PUT: 201 for a new file, 204 for an overwrite.
func (s *Server) davPut(w http.ResponseWriter, r *http.Request, t davTarget) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpload))
	if err != nil {
		writeDAVError(w, http.StatusRequestEntityTooLarge, exBadRequest, err.Error())
		return
	}
	o := writeOpts{cond: conditions(r)}
	if h := r.Header.Get("X-OC-Mtime"); h != "" {
		if f, err := strconv.ParseFloat(h, 64); err == nil && f >= 0 {
			mtime := int64(f)
			o.mtime = &mtime
		}
	}
	fi, created, err := s.writeFile(t.uid, t.path, body, o)
	if err != nil {
		writeFSError(w, err)
		return
	}
	h := w.Header()
	h.Set("ETag", `"`+fi.ETag+`"`)
	h.Set("OC-ETag", `"`+fi.ETag+`"`)
	h.Set("OC-FileId", davFileID(fi.ID, s.InstanceID))
	if o.mtime != nil {
		h.Set("X-OC-MTime", "accepted")
	}
	if created {
		w.WriteHeader(http.StatusCreated)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// conditions returns the If-Match / If-None-Match check of r, or nil.
func conditions(r *http.Request) func(e entry, exists bool) error {
	ifMatch, ifNone := r.Header.Get("If-Match"), r.Header.Get("If-None-Match")
	if ifMatch == "" && ifNone == "" {
		return nil
	}
	return func(e entry, exists bool) error {
		if ifMatch != "" {
			if !exists {
				return errPrecondition("An If-Match header was specified and the resource did not exist")
			}
			if !etagListMatches(ifMatch, e.n.etag) {
				return errPrecondition("An If-Match header was specified, but none of the specified ETags matched.")
			}
		}
		if ifNone != "" && exists && etagListMatches(ifNone, e.n.etag) {
			return errPrecondition("An If-None-Match header was specified, but the ETag matched (or * was specified).")
		}
		return nil
	}
}

// etagListMatches reports whether an If-Match style list names etag or "*".
func etagListMatches(list, etag string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.Trim(t, `"`) == etag {
			return true
		}
	}
	return false
}

// davDelete answers DELETE with 204; the node goes to the trash.
func (s *Server) davDelete(w http.ResponseWriter, r *http.Request, t davTarget) {
	if cond := conditions(r); cond != nil {
		fs := &s.files
		fs.mu.Lock()
		e, ok := fs.resolve(t.uid, t.path)
		err := cond(e, ok)
		fs.mu.Unlock()
		if err != nil {
			writeFSError(w, err)
			return
		}
	}
	if err := s.remove(t.uid, t.path); err != nil {
		writeFSError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// davMoveCopy answers MOVE and COPY: 201 when the destination was new, 204
// when it was overwritten (the old destination goes to the trash first).
func (s *Server) davMoveCopy(w http.ResponseWriter, r *http.Request, t davTarget) {
	dest := r.Header.Get("Destination")
	if dest == "" {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, "The destination header was not supplied")
		return
	}
	u, err := url.Parse(dest)
	if err != nil {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, "Invalid destination header")
		return
	}
	var dst string
	switch {
	case u.Path == t.base:
		dst = "/"
	case strings.HasPrefix(u.Path, t.base+"/"):
		dst = cleanPath(strings.TrimPrefix(u.Path, t.base))
	default:
		writeDAVError(w, http.StatusForbidden, exForbidden, "Requested uri ("+u.Path+") is out of base uri ("+t.base+"/)")
		return
	}
	overwrite := true
	switch strings.ToUpper(r.Header.Get("Overwrite")) {
	case "", "T":
	case "F":
		overwrite = false
	default:
		writeDAVError(w, http.StatusBadRequest, exBadRequest, "The HTTP Overwrite header should be either T or F")
		return
	}
	fs := &s.files
	fs.mu.Lock()
	_, srcOK := fs.resolve(t.uid, t.path)
	_, exists := fs.resolve(t.uid, dst)
	fs.mu.Unlock()
	switch {
	case !srcOK:
		writeFSError(w, errNotFound(t.path))
		return
	case t.path == dst:
		writeDAVError(w, http.StatusForbidden, exForbidden, "Source and destination uri are identical.")
		return
	case exists && !overwrite:
		writeFSError(w, errPrecondition("The destination node already exists, and the overwrite header is set to false"))
		return
	case exists:
		if err := s.remove(t.uid, dst); err != nil {
			writeFSError(w, err)
			return
		}
	}
	if r.Method == "MOVE" {
		_, err = s.move(t.uid, t.path, dst)
	} else {
		_, err = s.copyNode(t.uid, t.path, dst)
	}
	if err != nil {
		writeFSError(w, err)
		return
	}
	if exists {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.WriteHeader(http.StatusCreated)
}
