package nextcloud

import (
	"path"
	"strings"

	"github.com/hybrid-search/hybridsearch"
)

// EventPathToUserPath splits a webhook node path "/<uid>/files/<rel>" into
// the user and "/<rel>" ("/" for the files root itself). ok is false for
// anything outside a user's files tree, such as "/alice/files_trashbin/…",
// "/alice/files_versions/…" or "/appdata_<id>/…", and for paths with "..".
func EventPathToUserPath(p string) (user hybridsearch.UserID, rel string, ok bool) {
	rest, found := strings.CutPrefix(p, "/")
	if !found {
		return "", "", false
	}
	uid, rest, _ := strings.Cut(rest, "/")
	if uid == "" {
		return "", "", false
	}
	rest, found = strings.CutPrefix(rest, "files")
	if !found || (rest != "" && rest[0] != '/') {
		return "", "", false
	}
	for seg := range strings.SplitSeq(rest, "/") {
		if seg == ".." {
			return "", "", false
		}
	}
	return hybridsearch.UserID(uid), path.Clean("/" + rest), true
}
