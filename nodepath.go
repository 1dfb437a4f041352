package hybridsearch

import "strings"

// SplitNodePath turns an event path "/<uid>/files/<rel>" into the user and
// "/<rel>". ok is false for anything outside a user's files: trash
// ("/<uid>/files_trashbin/..."), versions, appdata, or malformed paths.
func SplitNodePath(p string) (user UserID, rel string, ok bool) {
	rest, found := strings.CutPrefix(p, "/")
	if !found {
		return "", "", false
	}
	uid, rest, found := strings.Cut(rest, "/")
	if !found || uid == "" {
		return "", "", false
	}
	if rest == "files" {
		return UserID(uid), "/", true
	}
	rel, found = strings.CutPrefix(rest, "files/")
	if !found {
		return "", "", false
	}
	return UserID(uid), "/" + strings.TrimSuffix(rel, "/"), true
}
