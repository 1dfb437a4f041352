package webhook

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"unicode/utf8"

	hs "github.com/hybrid-search/hybridsearch"
)

// Envelope is what webhook_listeners sends for a file event
// (nextcloud-protocol.md §6.2, §6.3).
type Envelope struct {
	Event *Event `json:"event"`
	User  *User  `json:"user"`
	Time  int64  `json:"time"` // the event's time, whole seconds
}

// Event is an envelope's event: its PHP class and the node (one-node
// events) or the source and target (rename, copy, restore).
type Event struct {
	Class  string `json:"class"`
	Node   *Node  `json:"node"`
	Source *Node  `json:"source"`
	Target *Node  `json:"target"`
}

// User is the envelope's user: the one who caused the event, or the
// webhook's registrant on older patch levels; it decides nothing.
type User struct {
	UID string `json:"uid"`
}

// Node is a file or folder as an event names it.
type Node struct {
	ID   int64  `json:"id"` // 0 when Nextcloud omitted it (the node is gone)
	Path string `json:"path"`
}

// Limits, after Nextcloud's own: a user id has at most 64
// characters (oc_users.uid), a file name at most 250 bytes and no control
// characters, and never is "." or ".." ([SRV] lib/private/Files/
// FilenameValidator.php validateFilename, lib/private/User/Manager.php
// validateUserId); a stored path at most 4000 bytes (oc_filecache.path),
// so a node path "/<uid>/files/<path>" stays under 4096.
const (
	maxUID      = 64
	maxName     = 250
	maxPath     = 4096
	maxClassLen = 256
)

// Parse decodes and checks a webhook body strictly: valid UTF-8,
// exactly one JSON object with fields of the right types, and every user
// id, node path and node id within what Nextcloud itself can produce (see
// check). Anything else is EINVALID (400), before a job is made.
func Parse(body []byte) (Envelope, error) {
	var env Envelope
	if !utf8.Valid(body) {
		return env, hs.Errorf(hs.EINVALID, "webhook body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&env); err != nil {
		return env, hs.Errorf(hs.EINVALID, "webhook body is not a webhook_listeners event: %v", err)
	}
	if err := dec.Decode(&json.RawMessage{}); err != io.EOF {
		return env, hs.Errorf(hs.EINVALID, "webhook body is not a webhook_listeners event: data after the JSON object")
	}
	if err := check(env); err != nil {
		return env, err
	}
	if hasReplacement(env) && !bytes.Contains(body, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`)) {
		// encoding/json turns a lone UTF-16 surrogate escape into U+FFFD;
		// json_encode never writes one.
		return env, hs.Errorf(hs.EINVALID, "webhook body has an invalid \\u escape (a lone surrogate)")
	}
	return env, nil
}

// hasReplacement reports whether a decoded webhook's strings hold U+FFFD.
func hasReplacement(env Envelope) bool {
	ss := []string{}
	if env.User != nil {
		ss = append(ss, env.User.UID)
	}
	if ev := env.Event; ev != nil {
		ss = append(ss, ev.Class)
		for _, n := range []*Node{ev.Node, ev.Source, ev.Target} {
			if n != nil {
				ss = append(ss, n.Path)
			}
		}
	}
	for _, s := range ss {
		if strings.ContainsRune(s, utf8.RuneError) {
			return true
		}
	}
	return false
}

// check enforces the limits on a decoded webhook.
func check(env Envelope) error {
	if env.Time < 0 {
		return hs.Errorf(hs.EINVALID, "webhook time %d is negative", env.Time)
	}
	if env.User != nil && env.User.UID != "" {
		if err := checkUID(env.User.UID); err != nil {
			return hs.Errorf(hs.EINVALID, "webhook user: %s", err.Message)
		}
	}
	if env.Event == nil {
		return nil // Jobs names what is missing
	}
	if len(env.Event.Class) > maxClassLen || hasControl(env.Event.Class) {
		return hs.Errorf(hs.EINVALID, "webhook event class is malformed")
	}
	for _, n := range []struct {
		name string
		node *Node
	}{{"node", env.Event.Node}, {"source", env.Event.Source}, {"target", env.Event.Target}} {
		if n.node == nil {
			continue
		}
		if n.node.ID < 0 {
			return hs.Errorf(hs.EINVALID, "webhook %s id %d is negative", n.name, n.node.ID)
		}
		if n.node.Path == "" {
			continue // Jobs says whether the event needs it
		}
		if err := checkPath(n.node.Path); err != nil {
			return hs.Errorf(hs.EINVALID, "webhook %s path: %s", n.name, err.Message)
		}
	}
	return nil
}

// checkPath checks a node path "/<uid>/<...>": absolute, at most
// maxPath bytes, no empty, "." or ".." segment, no segment over
// maxName bytes, no control characters, and a well-formed uid.
func checkPath(p string) *hs.Error {
	if len(p) > maxPath {
		return hs.Errorf(hs.EINVALID, "longer than %d bytes", maxPath)
	}
	rest, ok := strings.CutPrefix(p, "/")
	if !ok {
		return hs.Errorf(hs.EINVALID, "%q is not absolute", p)
	}
	rest = strings.TrimSuffix(rest, "/") // a folder may be named with a trailing slash
	for i, seg := range strings.Split(rest, "/") {
		switch {
		case seg == "":
			return hs.Errorf(hs.EINVALID, "empty segment")
		case seg == "." || seg == "..":
			return hs.Errorf(hs.EINVALID, "%q segment", seg)
		case len(seg) > maxName:
			return hs.Errorf(hs.EINVALID, "a name longer than %d bytes", maxName)
		case hasControl(seg):
			return hs.Errorf(hs.EINVALID, "control characters")
		case i == 0:
			if err := checkUID(seg); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkUID checks a user id: 1 to maxUID bytes, no control
// characters, slashes or backslashes, no surrounding space, not "." or
// "..".
func checkUID(uid string) *hs.Error {
	switch {
	case uid == "" || len(uid) > maxUID:
		return hs.Errorf(hs.EINVALID, "user id must have 1 to %d bytes", maxUID)
	case uid == "." || uid == ".." || strings.TrimSpace(uid) != uid || strings.ContainsAny(uid, `/\`) || hasControl(uid):
		return hs.Errorf(hs.EINVALID, "user id %q is malformed", uid)
	}
	return nil
}

// hasControl reports whether s has a C0 or C1 control character or DEL.
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}
