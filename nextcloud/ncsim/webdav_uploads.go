package ncsim

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Chunked upload under /remote.php/dav/uploads/<uid>/<transfer id>/ (the
// desktop client uses it for files bigger than its chunk size), as
// nextcloud/server apps/dav/lib/Upload/ChunkingV2Plugin.php does on a
// server with a distributed cache (Redis or memcached, which v2 requires):
//
//	MKCOL  uploads/<uid>/<id>       Destination: <files URL>   -> 201
//	PUT    uploads/<uid>/<id>/<n>   n = 1..10000               -> 201
//	MOVE   uploads/<uid>/<id>/.file Destination: <files URL>   -> 201 new, 204 overwritten
//
// MOVE assembles the parts in numeric order and fires the events of a
// write to the destination (ChunkingV2Plugin::emitPreHooks/emitPostHooks:
// create or update, then write); X-OC-Mtime is applied with putFileInfo,
// without events. An upload folder made without Destination is a chunking
// v1 upload (ChunkingPlugin + FutureFile, what nextcloudcmd 3.7 does: chunks
// named 0000000000000000, 0000000000000001, ...): parts have any names, are
// joined in name order, OC-Total-Length must match, and the assembled file
// is written as a PUT would (File::put), touched when X-OC-Mtime is given.

// upload is one transfer folder.
type upload struct {
	dest    string            // destination path in the user's files ("" for v1)
	parts   map[string][]byte // by chunk name
	size    int64
	created time.Time
}

const uploadsPrefix = "/remote.php/dav/uploads/"

// handleUploads serves /remote.php/dav/uploads/<uid>/...
func (s *Server) handleUploads(w http.ResponseWriter, r *http.Request) {
	me, ok := s.davUser(w, r)
	if !ok {
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, uploadsPrefix)
	uid, rest, _ := strings.Cut(rest, "/")
	id, chunk, _ := strings.Cut(strings.Trim(rest, "/"), "/")
	if uid != me {
		writeDAVError(w, http.StatusNotFound, exNotFound, "Principal with name "+uid+" not found")
		return
	}
	switch {
	case id == "" && r.Method == "PROPFIND":
		s.uploadPropfind(w, r, uid, "", nil)
	case id == "":
		writeDAVError(w, http.StatusMethodNotAllowed, exMethodNotAllowed, "Method not allowed on the uploads home")
	case chunk == "" && r.Method == "MKCOL":
		s.uploadMkcol(w, r, uid, id)
	case chunk == "" && r.Method == http.MethodDelete:
		s.files.mu.Lock()
		_, exists := s.files.uploads[uid][id]
		delete(s.files.uploads[uid], id)
		s.files.mu.Unlock()
		if !exists {
			writeDAVError(w, http.StatusNotFound, exNotFound, "File with name "+id+" could not be located")
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case chunk == "" && r.Method == "PROPFIND":
		up, ok := s.uploadOf(uid, id)
		if !ok {
			writeDAVError(w, http.StatusNotFound, exNotFound, "File with name "+id+" could not be located")
			return
		}
		s.uploadPropfind(w, r, uid, id, up)
	case chunk == ".file" && r.Method == "MOVE":
		s.uploadAssemble(w, r, uid, id)
	case chunk != "" && r.Method == http.MethodPut:
		s.uploadPut(w, r, uid, id, chunk)
	case chunk != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		writeDAVError(w, http.StatusMethodNotAllowed, exMethodNotAllowed, "Reading intermediate uploads is not allowed")
	default:
		s.notImplemented(w, r)
	}
}

func (s *Server) uploadOf(uid, id string) (*upload, bool) {
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	up, ok := s.files.uploads[uid][id]
	return up, ok
}

// uploadDestination turns a Destination header into a path in uid's
// files, or "" when it names something else.
func uploadDestination(uid, dest string) string {
	if dest == "" {
		return ""
	}
	u, err := url.Parse(dest)
	if err != nil {
		return ""
	}
	base := "/remote.php/dav/files/" + uid + "/"
	if !strings.HasPrefix(u.Path, base) {
		return ""
	}
	return cleanPath(strings.TrimPrefix(u.Path, base))
}

func (s *Server) uploadMkcol(w http.ResponseWriter, r *http.Request, uid, id string) {
	if err := validName(id); err != nil {
		writeFSError(w, err)
		return
	}
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	if s.files.uploads == nil {
		s.files.uploads = map[string]map[string]*upload{}
	}
	if s.files.uploads[uid] == nil {
		s.files.uploads[uid] = map[string]*upload{}
	}
	if _, exists := s.files.uploads[uid][id]; exists {
		writeDAVError(w, http.StatusMethodNotAllowed, exMethodNotAllowed, "The resource you tried to create already exists")
		return
	}
	s.files.uploads[uid][id] = &upload{dest: uploadDestination(uid, r.Header.Get("Destination")),
		parts: map[string][]byte{}, created: s.now()}
	w.WriteHeader(http.StatusCreated)
}

func (s *Server) uploadPut(w http.ResponseWriter, r *http.Request, uid, id, chunk string) {
	up, ok := s.uploadOf(uid, id)
	if !ok {
		writeDAVError(w, http.StatusConflict, exConflict, "Files cannot be created in non-existent collections")
		return
	}
	// v2 needs the Destination header on every request; without it the
	// request falls back to a plain PUT into the upload folder (v1).
	if up.dest != "" && r.Header.Get("Destination") != "" {
		if n, err := strconv.Atoi(chunk); err != nil || n < 1 || n > 10000 {
			writeDAVError(w, http.StatusBadRequest, exBadRequest, "Invalid chunk name, must be numeric between 1 and 10000")
			return
		}
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpload))
	if err != nil {
		writeDAVError(w, http.StatusRequestEntityTooLarge, exBadRequest, err.Error())
		return
	}
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	if up.size-int64(len(up.parts[chunk]))+int64(len(data)) > maxUpload {
		writeDAVError(w, http.StatusInsufficientStorage, `Sabre\DAV\Exception\InsufficientStorage`, "Insufficient space in "+up.dest)
		return
	}
	up.size += int64(len(data)) - int64(len(up.parts[chunk]))
	up.parts[chunk] = data
	w.WriteHeader(http.StatusCreated)
}

// uploadAssemble is MOVE .file: the parts become the destination file.
func (s *Server) uploadAssemble(w http.ResponseWriter, r *http.Request, uid, id string) {
	up, ok := s.uploadOf(uid, id)
	if !ok {
		writeDAVError(w, http.StatusNotFound, exNotFound, "File with name .file could not be located")
		return
	}
	dest := uploadDestination(uid, r.Header.Get("Destination"))
	if dest == "" || dest == "/" {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, "The destination header was not supplied or is out of the user's files")
		return
	}
	s.files.mu.Lock()
	names := make([]string, 0, len(up.parts))
	for n := range up.parts {
		names = append(names, n)
	}
	v2 := up.dest != ""
	sort.Slice(names, func(i, j int) bool {
		if v2 {
			a, _ := strconv.Atoi(names[i])
			b, _ := strconv.Atoi(names[j])
			return a < b
		}
		return names[i] < names[j]
	})
	var buf bytes.Buffer
	for _, n := range names {
		buf.Write(up.parts[n])
	}
	s.files.mu.Unlock()
	if total := r.Header.Get("OC-Total-Length"); total != "" && !v2 {
		if want, err := strconv.ParseInt(total, 10, 64); err == nil && want != int64(buf.Len()) {
			writeDAVError(w, http.StatusBadRequest, exBadRequest,
				"Chunks on server do not sum up to "+total+" but to "+strconv.Itoa(buf.Len())+" bytes")
			return
		}
	}
	o := writeOpts{cond: conditions(r)}
	if h := r.Header.Get("X-OC-Mtime"); h != "" {
		mtime, err := strconv.ParseInt(h, 10, 64)
		if err != nil {
			writeDAVError(w, http.StatusBadRequest, exBadRequest, "X-OC-MTime header must be an integer (unix timestamp).")
			return
		}
		if v2 {
			o.quietMtime = &mtime // ChunkingV2Plugin: View::putFileInfo, no events
		} else {
			o.mtime = &mtime // v1: File::put touches the new file
		}
	}
	fi, created, err := s.writeFile(uid, dest, buf.Bytes(), o)
	if err != nil {
		writeFSError(w, err)
		return
	}
	s.files.mu.Lock()
	delete(s.files.uploads[uid], id)
	s.files.mu.Unlock()
	h := w.Header()
	h.Set("Content-Type", "application/xml; charset=utf-8")
	h.Set("ETag", `"`+fi.ETag+`"`)
	h.Set("OC-ETag", `"`+fi.ETag+`"`)
	h.Set("OC-FileId", davFileID(fi.ID, s.InstanceID))
	if o.quietMtime != nil || o.mtime != nil {
		h.Set("X-OC-MTime", "accepted")
	}
	if created {
		w.WriteHeader(http.StatusCreated)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// uploadPropfind lists the uploads home (id "") or one upload's parts,
// which a client reads to resume a transfer.
func (s *Server) uploadPropfind(w http.ResponseWriter, r *http.Request, uid, id string, up *upload) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	depth := parseDepth(r.Header.Get("Depth"), 1)
	base := uploadsPrefix + uid
	ms := newMultistatus()
	dir := func(href string, mtime time.Time) {
		ms.response(href, []propVal{{propName{nsDAV, "resourcetype"}, "<d:collection/>"},
			{propName{nsDAV, "getlastmodified"}, mtime.UTC().Format(http.TimeFormat)}}, nil)
	}
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	if id == "" {
		dir(base+"/", s.now())
		if depth != 0 {
			ids := make([]string, 0, len(s.files.uploads[uid]))
			for k := range s.files.uploads[uid] {
				ids = append(ids, k)
			}
			sort.Strings(ids)
			for _, k := range ids {
				dir(base+"/"+url.PathEscape(k)+"/", s.files.uploads[uid][k].created)
			}
		}
		ms.write(w)
		return
	}
	dir(base+"/"+url.PathEscape(id)+"/", up.created)
	if depth != 0 {
		names := make([]string, 0, len(up.parts))
		for n := range up.parts {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			ms.response(base+"/"+url.PathEscape(id)+"/"+url.PathEscape(n), []propVal{
				{propName{nsDAV, "resourcetype"}, ""},
				{propName{nsDAV, "getcontentlength"}, strconv.Itoa(len(up.parts[n]))},
				{propName{nsDAV, "getlastmodified"}, up.created.UTC().Format(http.TimeFormat)},
			}, nil)
		}
	}
	ms.write(w)
}
