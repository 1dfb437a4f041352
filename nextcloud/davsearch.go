package nextcloud

import (
	"context"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// searchSelect is the property list of our SEARCH requests.
const searchSelect = `<d:select><d:prop>
  <d:getlastmodified/><d:getetag/><d:getcontenttype/><d:resourcetype/><d:getcontentlength/>
  <oc:fileid/><oc:size/><oc:permissions/><oc:owner-id/>
 </d:prop></d:select>`

// davSearch runs an RFC 5323 SEARCH over user's whole files tree. where is
// the inner XML of <d:where>, orderBy of <d:orderby>; limit <= 0 means none.
func (c *Client) davSearch(ctx context.Context, user hs.UserID, where, orderBy string, limit int) ([]hs.FileInfo, error) {
	if err := requireUser("search", user); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<d:searchrequest xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">
<d:basicsearch>
 `)
	b.WriteString(searchSelect)
	// The scope is an href: the uid is path-escaped like every other
	// path segment we send (Sabre normalizes and decodes it again).
	b.WriteString("\n <d:from><d:scope><d:href>/files/")
	_ = xml.EscapeText(&b, []byte(escapeSegment(string(user))))
	b.WriteString("</d:href><d:depth>infinity</d:depth></d:scope></d:from>\n <d:where>")
	b.WriteString(where)
	b.WriteString("</d:where>\n <d:orderby>")
	b.WriteString(orderBy)
	b.WriteString("</d:orderby>\n")
	if limit > 0 {
		fmt.Fprintf(&b, " <d:limit><d:nresults>%d</d:nresults></d:limit>\n", limit)
	}
	b.WriteString("</d:basicsearch>\n</d:searchrequest>\n")
	r := &request{method: "SEARCH", path: davRoot, user: user,
		body: []byte(b.String()), ctype: "text/xml; charset=utf-8"}
	return c.multistatus(ctx, r, user)
}

// FindByID returns file id as user sees it (SEARCH oc:fileid eq id over
// user's tree), so a shared file comes back at the recipient's path.
// ENOTFOUND if user cannot see it: this is Nextcloud's own access check.
func (c *Client) FindByID(ctx context.Context, user hs.UserID, id hs.FileID) (hs.FileInfo, error) {
	if id <= 0 {
		return hs.FileInfo{}, errorf(hs.EINVALID, "find file %d: invalid id", id)
	}
	where := fmt.Sprintf(`<d:eq><d:prop><oc:fileid/></d:prop><d:literal>%d</d:literal></d:eq>`, id)
	infos, err := c.davSearch(ctx, user, where, "", 0)
	if err != nil {
		return hs.FileInfo{}, err
	}
	for _, fi := range infos {
		if fi.ID == id {
			return fi, nil
		}
	}
	return hs.FileInfo{}, errorf(hs.ENOTFOUND, "find file %d as %s: not visible", id, user)
}

// MaxFindIDs is how many file ids FindByIDs asks for in one SEARCH: its
// where clause is one <d:or> of that many <d:eq>, inside the 100
// operators Nextcloud's FileSearchBackend allows in a query
// (docs/nextcloud-protocol.md §7.2).
const MaxFindIDs = 50

// FindByIDs returns the files among ids that user can see, as user sees
// them (paths in user's tree), keyed by id, in one SEARCH per MaxFindIDs
// ids: Nextcloud's own access check for a whole page of search results.
// An id missing from the map is one user cannot reach. Ids that are not
// positive are EINVALID.
func (c *Client) FindByIDs(ctx context.Context, user hs.UserID, ids []hs.FileID) (map[hs.FileID]hs.FileInfo, error) {
	out := make(map[hs.FileID]hs.FileInfo, len(ids))
	for _, id := range ids {
		if id <= 0 {
			return nil, errorf(hs.EINVALID, "find file %d: invalid id", id)
		}
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	for start := 0; start < len(ids); start += MaxFindIDs {
		batch := ids[start:min(start+MaxFindIDs, len(ids))]
		var where strings.Builder
		if len(batch) > 1 {
			where.WriteString("<d:or>")
		}
		for _, id := range batch {
			fmt.Fprintf(&where, `<d:eq><d:prop><oc:fileid/></d:prop><d:literal>%d</d:literal></d:eq>`, id)
		}
		if len(batch) > 1 {
			where.WriteString("</d:or>")
		}
		infos, err := c.davSearch(ctx, user, where.String(), "", 0)
		if err != nil {
			return nil, err
		}
		for _, fi := range infos {
			if _, found := slices.BinarySearch(batch, fi.ID); found {
				out[fi.ID] = fi
			}
		}
	}
	return out, nil
}

// ModifiedSince returns the files (not folders) in user's tree modified
// after since, oldest first, at most limit of them (limit <= 0: all).
func (c *Client) ModifiedSince(ctx context.Context, user hs.UserID, since time.Time, limit int) ([]hs.FileInfo, error) {
	where := fmt.Sprintf(`<d:and>
  <d:gt><d:prop><d:getlastmodified/></d:prop><d:literal>%d</d:literal></d:gt>
  <d:not><d:is-collection/></d:not>
 </d:and>`, since.Unix())
	order := `<d:order><d:prop><d:getlastmodified/></d:prop><d:ascending/></d:order>`
	infos, err := c.davSearch(ctx, user, where, order, limit)
	if err != nil {
		return nil, err
	}
	files := infos[:0]
	for _, fi := range infos {
		if !fi.IsDir {
			files = append(files, fi)
		}
	}
	slices.SortStableFunc(files, func(a, b hs.FileInfo) int { return a.Modified.Compare(b.Modified) })
	return files, nil
}
