package indexing

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Rules decide which files are not indexed at all.
type Rules struct {
	// PathGlobs are matched against the file's path in the user's tree
	// ("/Photos/2024/x.jpg"). "*" matches within one path element, "**"
	// any number of elements: "/Photos/**", "**/node_modules/**", "**/*.iso".
	PathGlobs []string
	// MIMEs are excluded types; "image/*" matches every image type.
	MIMEs []string
	// MaxSize is the largest file indexed, in bytes; 0 means no limit.
	MaxSize int64
	// Paused are the users who paused the indexing of their own files
	// (a personal setting): files they own are not indexed.
	Paused map[hs.UserID]bool
}

// NoIndexFile, in a folder, keeps that folder and everything below it out
// of the index; removing it brings the files back.
const NoIndexFile = ".noindex"

// PausedReason is the reason of a file whose owner paused indexing.
const PausedReason = "excluded: its owner paused indexing"

// noIndexReason is the reason of a file below a folder holding NoIndexFile.
func noIndexReason(dir string) string {
	return fmt.Sprintf("excluded by %s in %s", NoIndexFile, dir)
}

// IsNoIndexReason reports whether reason came from a NoIndexFile.
func IsNoIndexReason(reason string) bool {
	return strings.HasPrefix(reason, "excluded by "+NoIndexFile+" in ")
}

// noIndexIn returns the reason p is excluded by a NoIndexFile in one of
// the folders marked (folder paths, "/" for the root), or "".
func noIndexIn(marked map[string]bool, p string) string {
	if len(marked) == 0 {
		return ""
	}
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		if marked[dir] {
			return noIndexReason(dir)
		}
		if dir == "/" || dir == "." {
			return ""
		}
	}
}

// Excluded returns why f is excluded, or "" when it is indexed.
func (r Rules) Excluded(f hs.FileInfo) string {
	for _, g := range r.PathGlobs {
		if matchGlob(g, f.Path) {
			return fmt.Sprintf("excluded by path rule %q", g)
		}
	}
	for _, m := range r.MIMEs {
		if m == f.MIME || strings.HasSuffix(m, "/*") && strings.HasPrefix(f.MIME, strings.TrimSuffix(m, "*")) {
			return fmt.Sprintf("excluded by type rule %q", m)
		}
	}
	if r.MaxSize > 0 && f.Size > r.MaxSize {
		return fmt.Sprintf("larger than the %d-byte limit (%d bytes)", r.MaxSize, f.Size)
	}
	if f.Owner != "" && r.Paused[f.Owner] {
		return PausedReason
	}
	return ""
}

// Reasons Excluded and the NoIndexFile check give start with one of these.
var ruleReasons = []string{"excluded by path rule ", "excluded by type rule ", "larger than the ", PausedReason, "excluded by " + NoIndexFile + " in "}

// IsRuleReason reports whether a skipped file's reason came from Excluded,
// so a file skipped by a rule that no longer applies is indexed again.
func IsRuleReason(reason string) bool {
	for _, r := range ruleReasons {
		if strings.HasPrefix(reason, r) {
			return true
		}
	}
	return false
}

// Validate reports a malformed glob.
func (r Rules) Validate() error {
	for _, g := range r.PathGlobs {
		for _, seg := range strings.Split(strings.Trim(g, "/"), "/") {
			if seg == "**" {
				continue
			}
			if _, err := path.Match(seg, ""); err != nil {
				return fmt.Errorf("path rule %q: %w", g, err)
			}
		}
	}
	return nil
}

// matchGlob matches p against a glob whose "**" spans path elements.
func matchGlob(glob, p string) bool {
	return matchSegs(strings.Split(strings.Trim(glob, "/"), "/"), strings.Split(strings.Trim(p, "/"), "/"))
}

func matchSegs(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if matchSegs(g[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], p[0]); !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}

// noIndex returns the reason info is excluded by a NoIndexFile in a
// folder above it, or "". The folders are those of the owner's path when
// the owner is a reader (so every reader's job decides alike), else of
// user's.
func (p *Pipeline) noIndex(ctx context.Context, st *hs.FileState, user hs.UserID, info hs.FileInfo) (string, error) {
	viewer, pth := user, info.Path
	if info.Owner != "" && info.Owner != user {
		if op, ok := st.Paths[info.Owner]; ok && op != "" {
			viewer, pth = info.Owner, op
		}
	}
	for dir := path.Dir(pth); ; dir = path.Dir(dir) {
		has, err := p.marks.has(ctx, p.Files, viewer, dir)
		if err != nil {
			return "", fmt.Errorf("look for %s in %s as %s: %w", NoIndexFile, dir, viewer, err)
		}
		if has {
			return noIndexReason(dir), nil
		}
		if dir == "/" || dir == "." {
			return "", nil
		}
	}
}

// noIndexTTL is how long a folder is known to hold a NoIndexFile or not;
// a change seen by this process clears what it knows at once.
const noIndexTTL = 30 * time.Second

// noIndexCache remembers which folders hold a NoIndexFile, per user, for
// noIndexTTL. Its zero value is ready to use.
type noIndexCache struct {
	mu sync.Mutex
	m  map[string]noIndexMark
}

type noIndexMark struct {
	has bool
	at  time.Time
}

// has reports whether user's folder dir holds a NoIndexFile.
func (c *noIndexCache) has(ctx context.Context, files FileSource, user hs.UserID, dir string) (bool, error) {
	key := string(user) + "\x00" + dir
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && time.Since(e.at) < noIndexTTL {
		return e.has, nil
	}
	_, err := files.Stat(ctx, user, path.Join(dir, NoIndexFile))
	switch {
	case hs.ErrorKind(err) == hs.ENOTFOUND:
	case err != nil:
		return false, err
	}
	has := err == nil
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 100_000 {
		c.m = map[string]noIndexMark{}
	}
	c.m[key] = noIndexMark{has: has, at: time.Now()}
	return has, nil
}

// clear forgets every folder.
func (c *noIndexCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}
