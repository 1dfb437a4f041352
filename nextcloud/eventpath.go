package nextcloud

import (
	hs "github.com/hybrid-search/hybridsearch"
)

// EventPathToUserPath splits a webhook node path "/<uid>/files/<rel>" into
// the user and "/<rel>" ("/" for the files root itself). ok is false for
// anything outside a user's files tree, such as "/alice/files_trashbin/…",
// "/alice/files_versions/…" or "/appdata_<id>/…", and for paths with "..".
func EventPathToUserPath(p string) (user hs.UserID, rel string, ok bool) {
	return hs.SplitNodePath(p)
}
