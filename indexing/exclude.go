package indexing

import (
	"fmt"
	"path"
	"strings"

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
	return ""
}

// Reasons Excluded gives start with one of these.
var ruleReasons = []string{"excluded by path rule ", "excluded by type rule ", "larger than the "}

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
