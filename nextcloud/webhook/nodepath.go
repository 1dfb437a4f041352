package webhook

import (
	"path"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// SplitNodePath turns an event path "/<uid>/files/<rel>" into the user and
// the cleaned "/<rel>". ok is false for anything outside a user's files:
// trash ("/<uid>/files_trashbin/..."), versions, appdata, paths with ".."
// segments, or malformed paths.
func SplitNodePath(p string) (user hs.UserID, rel string, ok bool) {
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
	return hs.UserID(uid), path.Clean("/" + rest), true
}
