// Package link builds the URLs that open a document in Nextcloud's web
// interface, for search results, the MCP tools and anything else that
// points a user at a file or note. It imports only the standard library
// and the root package, so search and mcp may use it.
//
// The shapes are Nextcloud's: the Files app's permalink /index.php/f/<id>
// (nextcloud/server apps/files/appinfo/routes.php, View#showFile at
// /f/{fileid} at the root, and core/routes.php's legacy
// viewcontroller#showFile) and the Notes app's
// /index.php/apps/notes/note/<id> (nextcloud/notes appinfo/routes.php,
// page#index at /note/{id}; a note's id is its file id).
package link

import (
	"strconv"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// Document returns the URL that opens a file or note in Nextcloud: the
// Notes app for a note, the Files app's permalink for anything else.
// base is Nextcloud's root URL (a trailing slash is ignored); empty gives
// links relative to it ("/index.php/f/12").
func Document(base string, m hs.FileMeta) string {
	base = strings.TrimRight(base, "/")
	id := strconv.FormatInt(int64(m.ID), 10)
	if m.Type == hs.DocNote {
		return base + "/index.php/apps/notes/note/" + id
	}
	return base + "/index.php/f/" + id
}
