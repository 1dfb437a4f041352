package ncsim

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/hybrid-search/hybridsearch/nextcloud/ncsim/shell"
)

// handleFilesPage serves GET /index.php/apps/files/ and
// /index.php/apps/files/files/{fileid}: the folder ?dir= (default "/"), or
// with openfile=true the viewer of that file.
func (s *Server) handleFilesPage(w http.ResponseWriter, r *http.Request) {
	uid, ok := s.requireLogin(w, r)
	if !ok {
		return
	}
	dir := cleanPath(r.URL.Query().Get("dir"))
	if idStr := r.PathValue("fileid"); idStr != "" {
		id, _ := strconv.ParseInt(idStr, 10, 64)
		info, found := s.fileByID(uid, id)
		switch {
		case !found:
			s.renderNotFound(w, r, uid)
			return
		case !info.IsDir && r.URL.Query().Get("openfile") == "true":
			s.renderViewer(w, r, uid, info)
			return
		case info.IsDir:
			dir = info.Path
		default:
			dir, _ = splitPath(info.Path)
		}
	}
	dirInfo, found := s.Stat(uid, dir)
	if !found || !dirInfo.IsDir {
		s.renderNotFound(w, r, uid)
		return
	}
	var rows []shell.FileRow
	for _, f := range s.listDir(uid, dir) {
		rows = append(rows, s.fileRow(uid, f))
	}
	content, err := shell.FilesList(shell.Crumbs(dir), rows)
	if err != nil {
		http.Error(w, "ncsim: files page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	d := shell.Page{Title: "Files", AppID: "files", Nav: s.navEntries(uid, "files"), Content: content,
		Scripts: []string{"/apps/files/js/ncsim-files.js"}}
	if actions := s.enabledFileActions(); len(actions) > 0 {
		// LoadFilesPluginListener: the actions of enabled ExApps and the
		// instance id as initial state app_api/ex_files_actions_menu, and
		// AppAPI's files plugin script.
		raw, _ := json.Marshal(map[string]any{"fileActions": actions, "instanceId": s.InstanceID})
		d.InitialStates = append(d.InitialStates, shell.InitialState{ID: "app_api-ex_files_actions_menu", Value: base64.StdEncoding.EncodeToString(raw)})
		d.Scripts = append(d.Scripts, "/apps/app_api/js/app_api-filesplugin.js")
	}
	s.renderPage(w, r, http.StatusOK, uid, d)
}

// listDir lists what uid sees in dir, folders first, then by name.
func (s *Server) listDir(uid, dir string) []FileInfo {
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	e, ok := fs.resolve(uid, dir)
	if !ok {
		return nil
	}
	var dirs, files []FileInfo
	for _, c := range fs.children(uid, e) {
		if c.n.isDir {
			dirs = append(dirs, fs.info(uid, c))
		} else {
			files = append(files, fs.info(uid, c))
		}
	}
	return append(dirs, files...)
}

// fileByID finds file id in uid's view.
func (s *Server) fileByID(uid string, id int64) (FileInfo, bool) {
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n, ok := fs.byID[id]
	if !ok {
		return FileInfo{}, false
	}
	p, ok := fs.pathFor(uid, n)
	if !ok {
		return FileInfo{}, false
	}
	e, ok := fs.resolve(uid, p)
	if !ok {
		return FileInfo{}, false
	}
	return fs.info(uid, e), true
}

// fileRow renders one row and the node the file actions receive (the
// fields AppAPI's buildNodeInfo reads from a @nextcloud/files Node).
func (s *Server) fileRow(uid string, f FileInfo) shell.FileRow {
	dir, name := splitPath(f.Path)
	row := shell.FileRow{ID: f.ID, Name: name, Modified: f.Modified.Format("2006-01-02 15:04"), Size: shell.HumanSize(f.Size)}
	typ := "file"
	if f.IsDir {
		typ = "folder"
		row.Icon = "/core/img/filetypes/folder.svg"
		row.Href = "/index.php/apps/files/files/" + strconv.FormatInt(f.ID, 10) + "?dir=" + url.QueryEscape(f.Path)
	} else {
		row.Icon = "/core/img/filetypes/file.svg"
		row.Href = "/index.php/apps/files/files/" + strconv.FormatInt(f.ID, 10) + "?dir=" + url.QueryEscape(dir) + "&openfile=true"
	}
	node := map[string]any{
		"fileid": f.ID, "basename": name, "dirname": dir, "mime": f.MIME, "type": typ, "size": f.Size,
		"mtime":       f.Modified.UnixMilli(),
		"permissions": ocsPermissions(f.Permissions),
		"attributes": map[string]any{
			"etag": f.ETag, "favorite": 0, "ownerId": f.Owner, "ownerDisplayName": s.displayName(f.Owner),
		},
	}
	raw, _ := json.Marshal(node)
	row.Node = string(raw)
	return row
}

// ocsPermissions turns oc:permissions letters into OCS permission bits.
func ocsPermissions(letters string) int {
	p := permRead
	if strings.ContainsAny(letters, "WNV") {
		p |= permUpdate
	}
	if strings.ContainsAny(letters, "CK") {
		p |= permCreate
	}
	if strings.Contains(letters, "D") {
		p |= permDelete
	}
	if strings.Contains(letters, "R") {
		p |= permShare
	}
	return p
}

// enabledFileActions lists the file actions of enabled ExApps
// (FilesActionsMenuService::getRegisteredFileActions, findAllEnabled).
func (s *Server) enabledFileActions() []FileAction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return uiFilter(s.hooks.ui.fileActions, func(a FileAction) bool {
		app, ok := s.apps[a.AppID]
		return ok && app.enabled
	})
}

// handlePermalink serves GET /index.php/f/{fileid}: the Files app's
// permalink, which redirects to the file in its folder with openfile=true
// (files ViewController::showFile; 404 when the user cannot see the file).
func (s *Server) handlePermalink(w http.ResponseWriter, r *http.Request) {
	uid, ok := s.requireLogin(w, r)
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("fileid"), 10, 64)
	info, found := s.fileByID(uid, id)
	if !found {
		s.renderNotFound(w, r, uid)
		return
	}
	dir, _ := splitPath(info.Path)
	q := "?dir=" + url.QueryEscape(dir) + "&openfile=true"
	if info.IsDir {
		q = "?dir=" + url.QueryEscape(info.Path)
	}
	http.Redirect(w, r, "/index.php/apps/files/files/"+strconv.FormatInt(id, 10)+q, http.StatusSeeOther)
}

// maxViewerText is how much of a text file the viewer shows.
const maxViewerText = 256 << 10

// renderViewer shows file info to uid.
func (s *Server) renderViewer(w http.ResponseWriter, r *http.Request, uid string, info FileInfo) {
	dir, name := splitPath(info.Path)
	d := shell.Viewer{ID: info.ID, Title: name, Path: info.Path, MIME: info.MIME, Size: shell.HumanSize(info.Size),
		Modified: info.Modified.Format("2006-01-02 15:04"), BackName: "Files",
		Back:     "/index.php/apps/files/?dir=" + url.QueryEscape(dir),
		Download: "/remote.php/dav/files/" + url.PathEscape(uid) + escapePath(info.Path)}
	s.fillText(uid, info, &d)
	s.renderViewerPage(w, r, uid, "files", d)
}

func (s *Server) fillText(uid string, info FileInfo, d *shell.Viewer) {
	if !textual(info.MIME) {
		return
	}
	data, ok := s.ReadFile(uid, info.Path)
	if !ok {
		return
	}
	if len(data) > maxViewerText {
		data = data[:maxViewerText]
	}
	d.Text, d.HasText = strings.ToValidUTF8(string(data), "\uFFFD"), true
}

func (s *Server) renderViewerPage(w http.ResponseWriter, r *http.Request, uid, app string, d shell.Viewer) {
	content, err := shell.ViewerContent(d)
	if err != nil {
		http.Error(w, "ncsim: viewer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	s.renderPage(w, r, http.StatusOK, uid, shell.Page{Title: d.Title, AppID: app, Nav: s.navEntries(uid, app), Content: content})
}

// textual reports whether the viewer shows a MIME type as text.
func textual(mime string) bool {
	switch {
	case strings.HasPrefix(mime, "text/"):
		return true
	case mime == "application/json", mime == "application/xml", mime == "application/x-yaml", mime == "application/javascript":
		return true
	}
	return false
}

// escapePath escapes each element of a "/a/b" path.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		parts[i] = url.PathEscape(part)
	}
	return strings.Join(parts, "/")
}

// handleNotePage serves GET /index.php/apps/notes/note/{id}: the Notes
// app's page of one note (PageController::index), shown here as a simple
// viewer of the note's title and text.
func (s *Server) handleNotePage(w http.ResponseWriter, r *http.Request) {
	uid, ok := s.requireLogin(w, r)
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	fs := &s.files
	fs.mu.Lock()
	var info FileInfo
	found := false
	if u := fs.user(uid); u != nil {
		if e, ok := fs.noteByID(uid, "/"+strings.Trim(u.notesPath, "/"), id); ok {
			info, found = fs.info(uid, e), true
		}
	}
	fs.mu.Unlock()
	if !found {
		s.renderNotFound(w, r, uid)
		return
	}
	_, name := splitPath(info.Path)
	d := shell.Viewer{ID: info.ID, Title: strings.TrimSuffix(name, path.Ext(name)), Path: info.Path, MIME: info.MIME,
		Size: shell.HumanSize(info.Size), Modified: info.Modified.Format("2006-01-02 15:04"), BackName: "Files",
		Back: "/index.php/apps/files/"}
	s.fillText(uid, info, &d)
	d.HasText = true
	s.renderViewerPage(w, r, uid, "notes", d)
}

// renderNotFound is Nextcloud's "File not found" page.
func (s *Server) renderNotFound(w http.ResponseWriter, r *http.Request, uid string) {
	s.renderPage(w, r, http.StatusNotFound, uid, shell.Page{Title: "File not found", AppID: "files", Content: shell.FileNotFound})
}
