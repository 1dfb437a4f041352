package ncsim

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// notesAPIVersions is the X-Notes-API-Versions header value.
const notesAPIVersions = "0.2, 1.3"

var chunkCursorRE = regexp.MustCompile(`^(\d+)-(\d+)-(\d+)$`)

// handleNotes serves /index.php/apps/notes/api/v1/{notes,notes/{id},settings}.
func (s *Server) handleNotes(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/index.php/apps/notes/api/v1/")
	if !ok {
		s.notImplemented(w, r)
		return
	}
	p := s.authenticate(r)
	if !p.loggedIn() || p.uid == "" {
		writeNotesJSON(w, http.StatusUnauthorized, map[string]any{"message": "Current user is not logged in"})
		return
	}
	params, err := readParams(r)
	if err != nil {
		writeNotesJSON(w, http.StatusBadRequest, map[string]any{"message": err.Error()})
		return
	}
	uid := p.uid
	switch {
	case rest == "notes" && r.Method == http.MethodGet:
		s.notesIndex(w, r, uid, params)
	case rest == "notes" && r.Method == http.MethodPost:
		s.notesCreate(w, uid, params)
	case strings.HasPrefix(rest, "notes/"):
		id, err := strconv.ParseInt(strings.TrimPrefix(rest, "notes/"), 10, 64)
		if err != nil {
			s.notImplemented(w, r)
			return
		}
		s.notesOne(w, r, uid, id, params)
	case rest == "settings" && r.Method == http.MethodGet:
		s.notesSettings(w, uid, nil)
	case rest == "settings" && r.Method == http.MethodPut:
		s.notesSettings(w, uid, params)
	default:
		s.notImplemented(w, r)
	}
}

// writeNotesJSON writes a Notes API JSON response.
func writeNotesJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Notes-API-Versions", notesAPIVersions)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeNotesError writes a Notes error ({"errorType": ...}), or for a 412
// the current note.
func writeNotesError(w http.ResponseWriter, err error, current map[string]any) {
	var ne *noteErr
	if !errors.As(err, &ne) {
		ne = &noteErr{http.StatusInternalServerError, "Exception"}
	}
	if ne.status == http.StatusPreconditionFailed && current != nil {
		writeNotesJSON(w, ne.status, current)
		return
	}
	writeNotesJSON(w, ne.status, map[string]any{"errorType": ne.class})
}

// excludeSet parses the exclude parameter.
func excludeSet(params map[string]any) map[string]bool {
	v, _ := argString(params, "exclude")
	out := map[string]bool{}
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out[f] = true
		}
	}
	return out
}

// notesIndex handles GET /notes, following Helper::getNotesAndCategories:
// notes sorted by (last update, id), chunked by chunkSize, with pruned
// notes reduced to their id, and every other note's id in the last chunk.
func (s *Server) notesIndex(w http.ResponseWriter, r *http.Request, uid string, params map[string]any) {
	notes, err := s.notesFolder(uid)
	if err != nil {
		writeNotesError(w, err, nil)
		return
	}
	category, filterCategory := argString(params, "category")
	pruneBefore, _, _ := argInt(params, "pruneBefore")
	chunkSize, _, _ := argInt(params, "chunkSize")
	cursorStr, _ := argString(params, "chunkCursor")
	exclude := excludeSet(params)

	now := s.now().Unix()
	timeStart := now
	var curUpdate, curID int64
	haveCursor := false
	if m := chunkCursorRE.FindStringSubmatch(cursorStr); m != nil {
		timeStart, _ = strconv.ParseInt(m[1], 10, 64)
		curUpdate, _ = strconv.ParseInt(m[2], 10, 64)
		curID, _ = strconv.ParseInt(m[3], 10, 64)
		haveCursor = true
	}

	type metaNote struct {
		id   int64
		data map[string]any
		meta *noteMeta
	}
	fs := &s.files
	fs.mu.Lock()
	var all []metaNote
	for _, e := range fs.noteEntries(uid, notes) {
		d, m := fs.noteData(uid, notes, e, exclude, now)
		_, cat := noteTitleCategory(notes, e.path)
		if filterCategory && cat != category {
			continue
		}
		all = append(all, metaNote{e.n.id, d, m})
	}
	fs.mu.Unlock()

	var full []metaNote
	for _, m := range all {
		pruned := pruneBefore != 0 && m.meta.lastUpdate < int64(pruneBefore)
		before := haveCursor && (m.meta.lastUpdate < curUpdate || m.meta.lastUpdate == curUpdate && m.id <= curID)
		if !pruned && !before {
			full = append(full, m)
		}
	}
	sort.SliceStable(full, func(i, j int) bool {
		if full[i].meta.lastUpdate != full[j].meta.lastUpdate {
			return full[i].meta.lastUpdate < full[j].meta.lastUpdate
		}
		return full[i].id < full[j].id
	})
	chunk := full
	if chunkSize > 0 && len(full) > chunkSize {
		chunk = full[:chunkSize]
	}
	pending := len(full) - len(chunk)
	data := []any{}
	sent := map[int64]bool{}
	for _, m := range chunk {
		data = append(data, m.data)
		sent[m.id] = true
	}
	if pending == 0 {
		for _, m := range all {
			if !sent[m.id] {
				data = append(data, map[string]any{"id": m.id})
			}
		}
	}
	raw, _ := json.Marshal(data)
	sum := md5.Sum(raw)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	if pending > 0 {
		last := chunk[len(chunk)-1]
		w.Header().Set("X-Notes-Chunk-Cursor", fmt.Sprintf("%d-%d-%d", timeStart, last.meta.lastUpdate, last.id))
		w.Header().Set("X-Notes-Chunk-Pending", strconv.Itoa(pending))
	}
	w.Header().Set("ETag", etag)
	w.Header().Set("Last-Modified", unixTime(timeStart).Format(http.TimeFormat))
	if inm := r.Header.Get("If-None-Match"); inm != "" && inm == etag {
		w.Header().Set("X-Notes-API-Versions", notesAPIVersions)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeNotesJSON(w, http.StatusOK, data)
}

// notesCreate handles POST /notes.
func (s *Server) notesCreate(w http.ResponseWriter, uid string, params map[string]any) {
	title, _ := argString(params, "title")
	category, _ := argString(params, "category")
	content, _ := argString(params, "content")
	modified, _, _ := argInt(params, "modified")
	d, err := s.createNote(uid, title, category, content, int64(modified), argBool(params, "favorite"))
	if err != nil {
		writeNotesError(w, err, nil)
		return
	}
	writeNotesJSON(w, http.StatusOK, d)
}

// notesOne handles GET, PUT and DELETE /notes/{id}.
func (s *Server) notesOne(w http.ResponseWriter, r *http.Request, uid string, id int64, params map[string]any) {
	switch r.Method {
	case http.MethodGet:
		notes, err := s.notesFolder(uid)
		if err != nil {
			writeNotesError(w, err, nil)
			return
		}
		d, meta, err := s.getNote(uid, notes, id, excludeSet(params))
		if err != nil {
			writeNotesError(w, err, nil)
			return
		}
		etag := `"` + meta.etag + `"`
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.Header().Set("X-Notes-API-Versions", notesAPIVersions)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		writeNotesJSON(w, http.StatusOK, d)
	case http.MethodPut:
		u := noteUpdate{ifMatch: r.Header.Get("If-Match")}
		if v, ok := argString(params, "content"); ok {
			u.content = &v
		}
		if v, ok := argString(params, "title"); ok {
			u.title = &v
		}
		if v, ok := argString(params, "category"); ok {
			u.category = &v
		}
		if v, ok, err := argInt(params, "modified"); ok && err == nil {
			m := int64(v)
			u.modified = &m
		}
		if _, ok := argString(params, "favorite"); ok {
			f := argBool(params, "favorite")
			u.favorite = &f
		}
		d, err := s.updateNote(uid, id, u)
		if err != nil {
			writeNotesError(w, err, d)
			return
		}
		writeNotesJSON(w, http.StatusOK, d)
	case http.MethodDelete:
		if err := s.deleteNote(uid, id); err != nil {
			writeNotesError(w, err, nil)
			return
		}
		writeNotesJSON(w, http.StatusOK, []any{})
	default:
		s.notImplemented(w, r)
	}
}

// notesSettings handles GET and (with params) PUT /settings.
func (s *Server) notesSettings(w http.ResponseWriter, uid string, params map[string]any) {
	fs := &s.files
	fs.mu.Lock()
	u := fs.user(uid)
	if v, ok := argString(params, "notesPath"); ok {
		v = strings.Trim(cleanPath(v), "/")
		if v == "" {
			v = "Notes"
		}
		u.notesPath = v
	}
	if v, ok := argString(params, "fileSuffix"); ok {
		switch v {
		case ".txt", ".md":
			u.fileSuffix = v
		case "":
			u.fileSuffix = ".md"
		}
	}
	out := map[string]any{"notesPath": u.notesPath, "fileSuffix": u.fileSuffix}
	fs.mu.Unlock()
	writeNotesJSON(w, http.StatusOK, out)
}
