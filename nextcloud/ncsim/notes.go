package ncsim

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// noteExtensions are the extensions NotesService::isNote accepts.
var noteExtensions = map[string]bool{"txt": true, "org": true, "markdown": true, "md": true, "note": true}

// noteMeta is the Notes app's per-user meta data of a note.
type noteMeta struct {
	etag       string
	lastUpdate int64
}

// Note is a note as the Notes API reports it.
type Note struct {
	ID       int64 // the file id
	Title    string
	Category string
	Content  string
	Modified time.Time
	Favorite bool
	ReadOnly bool
	ETag     string // the Notes etag (md5 of the meta data), not the file etag
	Path     string // in the user's files tree
}

// noteErr is a Notes API failure: an HTTP status and an exception class.
type noteErr struct {
	status int
	class  string
}

func (e *noteErr) Error() string { return fmt.Sprintf("%d %s", e.status, e.class) }

var (
	errNoteNotFound = &noteErr{http.StatusNotFound, `OCA\Notes\Service\NoteDoesNotExistException`}
	errNoteReadOnly = &noteErr{http.StatusForbidden, `OCA\Notes\Service\NoteNotWritableException`}
)

// asNoteErr maps a file operation error to a Notes API error.
func asNoteErr(err error) error {
	var fe *fsError
	if errors.As(err, &fe) {
		switch fe.status {
		case http.StatusForbidden:
			return errNoteReadOnly
		case http.StatusNotFound:
			return errNoteNotFound
		}
		return &noteErr{http.StatusInternalServerError, `OCP\Files\NotPermittedException`}
	}
	return err
}

// notesFolder returns the path of uid's notes folder, creating it (with
// MKCOL events) when missing, as NotesService::getNotesFolder does.
func (s *Server) notesFolder(uid string) (string, error) {
	fs := &s.files
	fs.mu.Lock()
	p := "/" + fs.user(uid).notesPath
	e, ok := fs.resolve(uid, p)
	fs.mu.Unlock()
	if ok {
		if !e.n.isDir {
			return "", &noteErr{http.StatusInternalServerError, `OCA\Notes\Service\NotesFolderException`}
		}
		return p, nil
	}
	s.mkdirAllNoPanic(uid, p)
	return p, nil
}

// mkdirAllNoPanic creates the missing folders of p, ignoring races.
func (s *Server) mkdirAllNoPanic(uid, p string) {
	cur := "/"
	for _, name := range strings.Split(strings.Trim(p, "/"), "/") {
		if name == "" {
			continue
		}
		cur = joinPath(cur, name)
		if _, ok := s.Stat(uid, cur); !ok {
			_, _ = s.mkdir(uid, cur)
		}
	}
}

// noteEntries lists the notes below the notes folder in walk order.
// Callers hold files.mu.
func (fs *filesState) noteEntries(uid, notes string) []entry {
	root, ok := fs.resolve(uid, notes)
	if !ok || !root.n.isDir {
		return nil
	}
	var out []entry
	fs.walk(uid, root, davDepthInfinity, func(e entry) {
		if !e.n.isDir && noteExtensions[extOf(e.n.name)] {
			out = append(out, e)
		}
	})
	return out
}

// noteByID finds note id in uid's notes folder. Callers hold files.mu.
func (fs *filesState) noteByID(uid, notes string, id int64) (entry, bool) {
	for _, e := range fs.noteEntries(uid, notes) {
		if e.n.id == id {
			return e, true
		}
	}
	return entry{}, false
}

// noteTitleCategory splits a note path into title and category.
func noteTitleCategory(notes, p string) (title, category string) {
	dir, name := splitPath(p)
	category = strings.TrimPrefix(strings.TrimPrefix(dir, notes), "/")
	title = name
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		title = name[:i]
	}
	return title, category
}

// noteData renders a note the way Note::getData plus the Notes etag does
// and refreshes its meta data. Callers hold files.mu.
func (fs *filesState) noteData(uid, notes string, e entry, exclude map[string]bool, now int64) (map[string]any, *noteMeta) {
	u := fs.user(uid)
	title, category := noteTitleCategory(notes, e.path)
	readonly := !fs.writable(e)
	favorite := u.favorites[e.n.id]
	sum := md5.Sum(e.n.content)
	raw, _ := json.Marshal([]any{e.n.id, title, e.n.mtime, category, favorite, readonly, hex.EncodeToString(sum[:])})
	etagSum := md5.Sum(raw)
	etag := hex.EncodeToString(etagSum[:])
	m := u.noteMeta[e.n.id]
	switch {
	case m == nil:
		m = &noteMeta{etag: etag, lastUpdate: now}
		u.noteMeta[e.n.id] = m
	case m.etag != etag:
		m.etag, m.lastUpdate = etag, now
	}
	types := fs.shareTypesBy(e.n.owner, e.n)
	if types == nil {
		types = []int{}
	}
	data := map[string]any{
		"internalPath": e.path,
		"shareTypes":   types,
		"isShared":     len(types) > 0,
		"error":        false,
		"errorType":    "",
		"etag":         etag,
	}
	add := func(k string, v any) {
		if !exclude[k] {
			data[k] = v
		}
	}
	add("id", e.n.id)
	add("title", title)
	add("modified", e.n.mtime)
	add("category", category)
	add("favorite", favorite)
	add("readonly", readonly)
	add("content", string(e.n.content))
	return data, m
}

// noteFromData converts rendered note data to a Note.
func noteFromData(d map[string]any) Note {
	n := Note{}
	n.ID, _ = d["id"].(int64)
	n.Title, _ = d["title"].(string)
	n.Category, _ = d["category"].(string)
	n.Content, _ = d["content"].(string)
	if m, ok := d["modified"].(int64); ok {
		n.Modified = unixTime(m)
	}
	n.Favorite, _ = d["favorite"].(bool)
	n.ReadOnly, _ = d["readonly"].(bool)
	n.ETag, _ = d["etag"].(string)
	n.Path, _ = d["internalPath"].(string)
	return n
}

// getNote renders note id of uid.
func (s *Server) getNote(uid, notes string, id int64, exclude map[string]bool) (map[string]any, *noteMeta, error) {
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	e, ok := fs.noteByID(uid, notes, id)
	if !ok {
		return nil, nil, errNoteNotFound
	}
	d, m := fs.noteData(uid, notes, e, exclude, s.now().Unix())
	return d, m, nil
}

// createNote follows NotesApiController::create: the file is created
// empty (Folder::newFile), its content written, then touched when modified
// is set, each with the events Nextcloud fires.
func (s *Server) createNote(uid, title, category, content string, modified int64, favorite bool) (map[string]any, error) {
	notes, err := s.notesFolder(uid)
	if err != nil {
		return nil, err
	}
	folder := categoryPath(notes, category)
	s.mkdirAllNoPanic(uid, folder)
	fs := &s.files
	fs.mu.Lock()
	name := fs.noteFileName(uid, folder, title, fs.user(uid).fileSuffix, -1)
	fs.mu.Unlock()
	p := joinPath(folder, name)
	fi, _, err := s.writeFile(uid, p, nil, writeOpts{touch: true})
	if err != nil {
		return nil, asNoteErr(err)
	}
	if _, _, err := s.writeFile(uid, p, []byte(content), writeOpts{}); err != nil {
		return nil, asNoteErr(err)
	}
	if modified != 0 {
		if err := s.touch(uid, p, modified); err != nil {
			return nil, asNoteErr(err)
		}
	}
	if favorite {
		s.setFavorite(uid, fi.ID, true)
	}
	d, _, err := s.getNote(uid, notes, fi.ID, nil)
	return d, err
}

// setFavorite tags or untags a file as favorite; no node event fires.
func (s *Server) setFavorite(uid string, id int64, fav bool) {
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fav {
		fs.user(uid).favorites[id] = true
	} else {
		delete(fs.user(uid).favorites, id)
	}
}

// noteUpdate holds the fields of a PUT /notes/{id}; nil means unchanged.
type noteUpdate struct {
	content  *string
	modified *int64
	title    *string
	category *string
	favorite *bool
	ifMatch  string
}

// updateNote follows NotesApiController::update.
func (s *Server) updateNote(uid string, id int64, u noteUpdate) (map[string]any, error) {
	notes, err := s.notesFolder(uid)
	if err != nil {
		return nil, err
	}
	cur, meta, err := s.getNote(uid, notes, id, nil)
	if err != nil {
		return nil, err
	}
	if u.ifMatch != "" && !quotedListHas(u.ifMatch, meta.etag) {
		return cur, &noteErr{http.StatusPreconditionFailed, `OCA\Notes\Controller\ETagDoesNotMatchException`}
	}
	p := cur["internalPath"].(string)
	readonly := cur["readonly"].(bool)
	if u.content != nil && *u.content != cur["content"].(string) {
		if readonly {
			return nil, errNoteReadOnly
		}
		if _, _, err := s.writeFile(uid, p, []byte(*u.content), writeOpts{}); err != nil {
			return nil, asNoteErr(err)
		}
	}
	if u.modified != nil && *u.modified != cur["modified"].(int64) {
		if readonly {
			return nil, errNoteReadOnly
		}
		if err := s.touch(uid, p, *u.modified); err != nil {
			return nil, asNoteErr(err)
		}
	}
	title, category := cur["title"].(string), cur["category"].(string)
	switch {
	case u.title != nil && *u.title != title:
		if u.category != nil {
			category = *u.category
		}
		err = s.moveNote(uid, notes, p, id, *u.title, category, readonly)
	case u.category != nil && *u.category != category:
		err = s.moveNote(uid, notes, p, id, title, *u.category, readonly)
	}
	if err != nil {
		return nil, err
	}
	if u.favorite != nil {
		s.setFavorite(uid, id, *u.favorite)
	}
	d, _, err := s.getNote(uid, notes, id, nil)
	return d, err
}

// moveNote follows Note::setTitleCategory: rename or move the file into
// the category folder, then delete the old folder if it became empty.
func (s *Server) moveNote(uid, notes, p string, id int64, title, category string, readonly bool) error {
	if readonly {
		return errNoteReadOnly
	}
	folder := categoryPath(notes, category)
	s.mkdirAllNoPanic(uid, folder)
	fs := &s.files
	fs.mu.Lock()
	suffix := ""
	if ext := extOf(p); ext != "" {
		suffix = "." + ext
	}
	dst := joinPath(folder, fs.noteFileName(uid, folder, title, suffix, id))
	fs.mu.Unlock()
	if dst != p {
		if _, err := s.move(uid, p, dst); err != nil {
			return asNoteErr(err)
		}
	}
	oldDir, _ := splitPath(p)
	s.deleteEmptyFolders(uid, notes, oldDir)
	return nil
}

// deleteNote follows NotesService::delete: to the trash, then the empty
// category folders go too.
func (s *Server) deleteNote(uid string, id int64) error {
	notes, err := s.notesFolder(uid)
	if err != nil {
		return err
	}
	cur, _, err := s.getNote(uid, notes, id, map[string]bool{"content": true})
	if err != nil {
		return err
	}
	if cur["readonly"].(bool) {
		return errNoteReadOnly
	}
	p := cur["internalPath"].(string)
	if err := s.remove(uid, p); err != nil {
		return asNoteErr(err)
	}
	dir, _ := splitPath(p)
	s.deleteEmptyFolders(uid, notes, dir)
	return nil
}

// deleteEmptyFolders follows NoteUtil::deleteEmptyFolder up to the notes folder.
func (s *Server) deleteEmptyFolders(uid, notes, dir string) {
	fs := &s.files
	for dir != notes && strings.HasPrefix(dir, notes+"/") {
		fs.mu.Lock()
		e, ok := fs.resolve(uid, dir)
		empty := ok && e.n.isDir && len(fs.children(uid, e)) == 0
		fs.mu.Unlock()
		if !empty || s.remove(uid, dir) != nil {
			return
		}
		dir, _ = splitPath(dir)
	}
}

// quotedListHas reports whether an If-Match list holds "etag" (quoted).
func quotedListHas(list, etag string) bool {
	for _, t := range strings.Split(list, ",") {
		if strings.TrimSpace(t) == `"`+etag+`"` {
			return true
		}
	}
	return false
}

// CreateNote creates a note through the same steps as POST /notes (and
// with the same events) and returns it. It panics on misuse.
func (s *Server) CreateNote(uid, title, category, content string) Note {
	s.mustUser("CreateNote", uid)
	d, err := s.createNote(uid, title, category, content, 0, false)
	mustOK("CreateNote "+title, err)
	return noteFromData(d)
}
