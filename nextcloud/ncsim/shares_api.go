package ncsim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// handleSharing serves /ocs/v{1,2}.php/apps/files_sharing/api/v1/shares[/{id}].
func (s *Server) handleSharing(w http.ResponseWriter, r *http.Request) {
	rest := r.URL.Path
	for _, prefix := range []string{"/ocs/v1.php", "/ocs/v2.php"} {
		rest = strings.TrimPrefix(rest, prefix)
	}
	rest = strings.TrimPrefix(rest, "/apps/files_sharing/api/v1/shares")
	if rest == r.URL.Path || (rest != "" && !strings.HasPrefix(rest, "/")) {
		s.notImplemented(w, r)
		return
	}
	id := strings.Trim(rest, "/")
	if strings.Contains(id, "/") {
		s.notImplemented(w, r)
		return
	}
	p := s.authenticate(r)
	if !p.loggedIn() || p.uid == "" {
		writeOCS(w, r, ocsUnauthorised, "Current user is not logged in", nil)
		return
	}
	params, err := readParams(r)
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, err.Error(), nil)
		return
	}
	switch {
	case id == "inherited" && r.Method == http.MethodGet:
		s.ocsInheritedShares(w, r, p.uid, params)
	case id == "" && r.Method == http.MethodGet:
		s.ocsListShares(w, r, p.uid, params)
	case id == "" && r.Method == http.MethodPost:
		s.ocsCreateShare(w, r, p.uid, params)
	case id != "" && (r.Method == http.MethodGet || r.Method == http.MethodDelete || r.Method == http.MethodPut):
		s.ocsShare(w, r, p.uid, id, params)
	default:
		s.notImplemented(w, r)
	}
}

// argString reads a request parameter as a string.
func argString(params map[string]any, key string) (string, bool) {
	v, ok := params[key]
	if !ok || v == nil {
		return "", false
	}
	switch t := v.(type) {
	case string:
		return t, true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return fmt.Sprint(v), true
}

// argInt reads a request parameter as an integer.
func argInt(params map[string]any, key string) (int, bool, error) {
	v, ok := argString(params, key)
	if !ok || v == "" {
		return 0, false, nil
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		return 0, true, fmt.Errorf("%s must be an integer", key)
	}
	return i, true, nil
}

// argBool reads a request parameter as a boolean ("true", "1").
func argBool(params map[string]any, key string) bool {
	v, _ := argString(params, key)
	return v == "true" || v == "1"
}

// ocsCreateShare handles POST /shares.
func (s *Server) ocsCreateShare(w http.ResponseWriter, r *http.Request, uid string, params map[string]any) {
	p, _ := argString(params, "path")
	if p == "" {
		writeOCS(w, r, http.StatusNotFound, "Please specify a file or folder path", nil)
		return
	}
	shareType, ok, err := argInt(params, "shareType")
	if err != nil || !ok {
		writeOCS(w, r, http.StatusBadRequest, "Unknown share type", nil)
		return
	}
	if shareType != shareTypeUser {
		writeOCS(w, r, http.StatusBadRequest, fmt.Sprintf("Share type %d is not supported by the simulator", shareType), nil)
		return
	}
	perms, ok, err := argInt(params, "permissions")
	if err != nil {
		writeOCS(w, r, http.StatusBadRequest, "Invalid permissions", nil)
		return
	}
	if !ok {
		perms = -1
	}
	with, _ := argString(params, "shareWith")
	fs := &s.files
	fs.mu.Lock()
	sh, err := fs.createShare(uid, p, with, perms, s.now().Unix())
	var data map[string]any
	if err == nil {
		data = s.shareJSON(uid, sh)
	}
	fs.mu.Unlock()
	if err != nil {
		se := err.(*shareError)
		writeOCS(w, r, se.status, se.msg, nil)
		return
	}
	s.logf("ncsim: %s shared %s with %s", uid, p, with)
	writeOCS(w, r, http.StatusOK, "", data)
}

// ocsListShares handles GET /shares.
func (s *Server) ocsListShares(w http.ResponseWriter, r *http.Request, uid string, params map[string]any) {
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var target *node
	if p, ok := argString(params, "path"); ok && p != "" {
		e, ok := fs.resolve(uid, p)
		if !ok {
			writeOCS(w, r, http.StatusNotFound, "Wrong path, file/folder does not exist", nil)
			return
		}
		target = e.n
	}
	sharedWithMe := argBool(params, "shared_with_me")
	reshares := argBool(params, "reshares")
	subfiles := argBool(params, "subfiles")
	if subfiles && (target == nil || !target.isDir) {
		writeOCS(w, r, http.StatusBadRequest, "Not a directory", nil)
		return
	}
	data := []any{}
	for _, sh := range fs.sortedShares() {
		if !fs.shareActive(sh) {
			continue
		}
		var match bool
		switch {
		case sharedWithMe:
			match = sh.with == uid && (target == nil || sh.node == target)
		case subfiles:
			match = sh.node.parent == target && (sh.owner == uid || reshares && sh.node.owner == uid)
		case target != nil:
			match = sh.node == target && (sh.owner == uid || reshares && sh.node.owner == uid)
		default:
			match = sh.owner == uid
		}
		if match {
			data = append(data, s.shareJSON(uid, sh))
		}
	}
	writeOCS(w, r, http.StatusOK, "", data)
}

// ocsShare handles GET, PUT and DELETE /shares/{id}.
func (s *Server) ocsShare(w http.ResponseWriter, r *http.Request, uid, id string, params map[string]any) {
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n, err := strconv.ParseInt(id, 10, 64)
	sh := fs.shares[n]
	if err != nil || sh == nil || !fs.shareActive(sh) || (sh.owner != uid && sh.with != uid && sh.node.owner != uid) {
		writeOCS(w, r, http.StatusNotFound, "Wrong share ID, share does not exist", nil)
		return
	}
	switch r.Method {
	case http.MethodGet:
		writeOCS(w, r, http.StatusOK, "", []any{s.shareJSON(uid, sh)})
	case http.MethodDelete:
		fs.deleteShare(sh, s.now().Unix())
		writeOCS(w, r, http.StatusOK, "", nil)
	case http.MethodPut:
		if sh.owner != uid && sh.node.owner != uid {
			writeOCS(w, r, http.StatusForbidden, "You are not allowed to edit incoming shares", nil)
			return
		}
		perms, ok, err := argInt(params, "permissions")
		if err != nil || ok && (perms < 0 || perms > permAll) {
			writeOCS(w, r, http.StatusBadRequest, "Invalid permissions", nil)
			return
		}
		if ok {
			perms |= permRead
			if !sh.node.isDir {
				perms &^= permDelete | permCreate
			}
			sh.permissions = perms
			dir, _ := splitPath(sh.target)
			fs.bumpOwnPath(sh.with, dir, s.now().Unix())
		}
		writeOCS(w, r, http.StatusOK, "", s.shareJSON(uid, sh))
	}
}

// ocsInheritedShares handles GET /shares/inherited?path=: the shares on
// every folder above path (not on path itself), by anyone, in its
// owner's tree, each with via_fileid and via_path, the folder as uid sees
// it ([SRV] apps/files_sharing/lib/Controller/ShareAPIController.php
// getInheritedShares, route ShareAPI#getInheritedShares in
// apps/files_sharing/appinfo/routes.php). uid needs the share permission
// on path; without it Nextcloud throws SharingRightsException, which is
// no OCS exception, so the answer is a server error.
func (s *Server) ocsInheritedShares(w http.ResponseWriter, r *http.Request, uid string, params map[string]any) {
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	p, _ := argString(params, "path")
	e, ok := fs.resolve(uid, p)
	if !ok {
		writeOCS(w, r, http.StatusNotFound, "Wrong path, file/folder does not exist", nil)
		return
	}
	if fs.perms(e)&permShare == 0 {
		writeOCS(w, r, ocsServerError, "Internal Server Error", nil)
		return
	}
	data := []any{}
	for n := e.n.parent; n != nil && n.homeOf == ""; n = n.parent {
		viaPath, _ := fs.pathFor(uid, n)
		for _, sh := range fs.sortedShares() {
			if sh.node != n || !fs.shareActive(sh) {
				continue
			}
			js := s.shareJSON(n.owner, sh)
			js["via_fileid"], js["via_path"] = n.id, viaPath
			data = append(data, js)
		}
	}
	writeOCS(w, r, http.StatusOK, "", data)
}
