package nextcloud

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"path"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// davRoot is the WebDAV root; files live under davRoot + "files/<uid>".
const davRoot = "/remote.php/dav/"

// propfindBody asks for every property FileInfo needs.
const propfindBody = `<?xml version="1.0" encoding="UTF-8"?>
<d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">
 <d:prop>
  <d:getlastmodified/><d:getetag/><d:getcontenttype/><d:resourcetype/><d:getcontentlength/>
  <oc:fileid/><oc:size/><oc:permissions/><oc:owner-id/>
 </d:prop>
</d:propfind>
`

// cleanPath returns p as an absolute, clean path in a user's files tree
// ("/" for the root). It refuses paths that climb out with "..".
func cleanPath(p string) (string, error) {
	for seg := range strings.SplitSeq(p, "/") {
		if seg == ".." {
			return "", errorf(hs.EINVALID, "path %q: \"..\" is not allowed", p)
		}
	}
	return path.Clean("/" + p), nil
}

// davFilesPath returns the escaped WebDAV path of p (clean, absolute) in
// user's files tree.
func davFilesPath(user hs.UserID, p string) string {
	var b strings.Builder
	b.WriteString(davRoot + "files/")
	b.WriteString(escapeSegment(string(user)))
	if p != "/" {
		for seg := range strings.SplitSeq(strings.TrimPrefix(p, "/"), "/") {
			b.WriteString("/")
			b.WriteString(escapeSegment(seg))
		}
	}
	return b.String()
}

// escapeSegment escapes one path segment so that Sabre reads it back
// exactly ("+" and ";" included).
func escapeSegment(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' ||
			strings.IndexByte("-._~!$&'()*,=:@", ch) >= 0 {
			b.WriteByte(ch)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[ch>>4])
		b.WriteByte(hex[ch&15])
	}
	return b.String()
}

// propfind runs PROPFIND with depth "0" or "1" on p as user.
func (c *Client) propfind(ctx context.Context, user hs.UserID, p, depth string) ([]hs.FileInfo, error) {
	if err := requireUser("propfind", user); err != nil {
		return nil, err
	}
	clean, err := cleanPath(p)
	if err != nil {
		return nil, err
	}
	r := &request{method: "PROPFIND", path: davFilesPath(user, clean), user: user,
		header: http.Header{"Depth": {depth}}, body: []byte(propfindBody), ctype: "application/xml; charset=utf-8"}
	return c.multistatus(ctx, r, user)
}

// multistatus sends r, expects 207 and parses the answer.
func (c *Client) multistatus(ctx context.Context, r *request, user hs.UserID) ([]hs.FileInfo, error) {
	status, _, b, err := c.call(ctx, r)
	if err != nil {
		return nil, err
	}
	if status != http.StatusMultiStatus {
		if status >= 200 && status < 300 {
			return nil, errorf(hs.EINTERNAL, "%s: status %d, want 207", r.op(), status)
		}
		return nil, statusError(r.op(), status, sabreMessage(b))
	}
	infos, err := parseMultistatus(b, user)
	if err != nil {
		return nil, errorf(hs.EINTERNAL, "%s: %w", r.op(), err)
	}
	return infos, nil
}

// Stat returns what user sees at path p (PROPFIND Depth 0). ENOTFOUND if
// user cannot see it.
func (c *Client) Stat(ctx context.Context, user hs.UserID, p string) (hs.FileInfo, error) {
	infos, err := c.propfind(ctx, user, p, "0")
	if err != nil {
		return hs.FileInfo{}, err
	}
	if len(infos) == 0 {
		return hs.FileInfo{}, errorf(hs.ENOTFOUND, "stat %s: no such file", p)
	}
	return infos[0], nil
}

// List returns the entries of folder p as user sees them (PROPFIND Depth
// 1), without the folder itself. Listing a file returns nothing.
func (c *Client) List(ctx context.Context, user hs.UserID, p string) ([]hs.FileInfo, error) {
	_, children, err := c.list(ctx, user, p)
	return children, err
}

// list returns the folder p itself (if reported) and its children.
func (c *Client) list(ctx context.Context, user hs.UserID, p string) (*hs.FileInfo, []hs.FileInfo, error) {
	clean, err := cleanPath(p)
	if err != nil {
		return nil, nil, err
	}
	infos, err := c.propfind(ctx, user, clean, "1")
	if err != nil {
		return nil, nil, err
	}
	var self *hs.FileInfo
	children := make([]hs.FileInfo, 0, len(infos))
	for i := range infos {
		if infos[i].Path == clean {
			self = &infos[i]
			continue
		}
		children = append(children, infos[i])
	}
	return self, children, nil
}

// Walk calls fn for every file and folder below root that user can see,
// depth first, a folder before its contents, listing one folder per
// request (Depth 1, as Nextcloud advises over Depth infinity). If root is
// a file, fn sees root itself. If fn returns fs.SkipDir for a folder, its
// contents are skipped; any other error stops the walk and is returned.
func (c *Client) Walk(ctx context.Context, user hs.UserID, root string, fn func(hs.FileInfo) error) error {
	self, children, err := c.list(ctx, user, root)
	if err != nil {
		return err
	}
	if self != nil && !self.IsDir {
		return fn(*self)
	}
	return c.walk(ctx, user, children, fn)
}

func (c *Client) walk(ctx context.Context, user hs.UserID, entries []hs.FileInfo, fn func(hs.FileInfo) error) error {
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return hs.WrapError(hs.EUNAVAILABLE, err, "nextcloud: walk: canceled")
		}
		if err := fn(e); err != nil {
			if e.IsDir && errors.Is(err, fs.SkipDir) {
				continue
			}
			return err
		}
		if !e.IsDir {
			continue
		}
		_, children, err := c.list(ctx, user, e.Path)
		if hs.ErrorKind(err) == hs.ENOTFOUND {
			continue // removed while we walked
		}
		if err != nil {
			return err
		}
		if err := c.walk(ctx, user, children, fn); err != nil {
			return err
		}
	}
	return nil
}
