package nextcloud

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// sharesPath is the OCS sharing API.
const sharesPath = "/ocs/v2.php/apps/files_sharing/api/v1/shares"

// Share types.
const (
	ShareUser      = 0
	ShareGroup     = 1
	ShareLink      = 3
	ShareEmail     = 4
	ShareFederated = 6
	ShareTeam      = 7
	ShareTalk      = 10
	ShareDeck      = 12
)

// Share is one share as the sharing API reports it.
type Share struct {
	ID                   string
	ShareType            int
	ShareWith            string // user, group, ... the share goes to
	ShareWithDisplayName string
	Owner                hs.UserID // uid_owner: who shared it
	FileOwner            hs.UserID // uid_file_owner: who owns the file
	Path                 string    // in the viewer's tree (the recipient's for shared_with_me)
	ItemType             string    // "file" or "folder"
	FileID               hs.FileID // item_source / file_source
	FileTarget           string    // path in the recipient's tree
	Permissions          int
	MIME                 string
	Created              time.Time  // stime
	Expiration           *time.Time // nil when the share does not expire
	HideDownload         bool
}

// UnmarshalJSON reads the loosely typed share object of the sharing API.
func (s *Share) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*s = Share{
		ID:                   jsonString(raw["id"]),
		ShareType:            int(jsonInt(raw["share_type"])),
		ShareWith:            jsonString(raw["share_with"]),
		ShareWithDisplayName: jsonString(raw["share_with_displayname"]),
		Owner:                hs.UserID(jsonString(raw["uid_owner"])),
		FileOwner:            hs.UserID(jsonString(raw["uid_file_owner"])),
		Path:                 jsonString(raw["path"]),
		ItemType:             jsonString(raw["item_type"]),
		FileID:               hs.FileID(jsonInt(raw["file_source"])),
		FileTarget:           jsonString(raw["file_target"]),
		Permissions:          int(jsonInt(raw["permissions"])),
		MIME:                 jsonString(raw["mimetype"]),
		HideDownload:         jsonBool(raw["hide_download"]),
	}
	if s.FileID == 0 {
		s.FileID = hs.FileID(jsonInt(raw["item_source"]))
	}
	if ts := jsonInt(raw["stime"]); ts > 0 {
		s.Created = time.Unix(ts, 0).UTC()
	}
	if exp := jsonString(raw["expiration"]); exp != "" {
		// "2024-05-31 00:00:00", in the server's time zone.
		if t, err := time.Parse(time.DateTime, exp); err == nil {
			s.Expiration = &t
		}
	}
	return nil
}

// SharedWithMe returns the shares user has received.
func (c *Client) SharedWithMe(ctx context.Context, user hs.UserID) ([]Share, error) {
	if err := requireUser("shared with me", user); err != nil {
		return nil, err
	}
	var shares []Share
	q := url.Values{"shared_with_me": {"true"}}
	if err := c.ocs(ctx, user, http.MethodGet, sharesPath, q, nil, &shares); err != nil {
		return nil, err
	}
	return shares, nil
}

// SharesOf returns the shares on p (and reshares by others) as its owner
// user sees them. ENOTFOUND if user has no such path.
func (c *Client) SharesOf(ctx context.Context, user hs.UserID, p string) ([]Share, error) {
	if err := requireUser("shares of", user); err != nil {
		return nil, err
	}
	clean, err := cleanPath(p)
	if err != nil {
		return nil, err
	}
	var shares []Share
	q := url.Values{"path": {clean}, "reshares": {"true"}}
	if err := c.ocs(ctx, user, http.MethodGet, sharesPath, q, nil, &shares); err != nil {
		return nil, err
	}
	return shares, nil
}

// SharedWith returns the shares user has received (SharedWithMe, one OCS
// call), each at the path user sees it at, for the share refresh before a
// search.
func (c *Client) SharedWith(ctx context.Context, user hs.UserID) ([]hs.Share, error) {
	shares, err := c.SharedWithMe(ctx, user)
	if err != nil {
		return nil, err
	}
	out := make([]hs.Share, 0, len(shares))
	for _, s := range shares {
		if s.FileID <= 0 {
			continue
		}
		p := s.Path
		if p == "" {
			p = s.FileTarget
		}
		if p != "" {
			if clean, err := cleanPath(p); err == nil {
				p = clean
			}
		}
		out = append(out, hs.Share{ID: s.ID, FileID: s.FileID, Path: p, IsDir: s.ItemType == "folder"})
	}
	return out, nil
}

// SharedAbove tells who reaches the file at p (in user's tree) through a
// share of a folder above it, from Nextcloud's inherited shares (GET
// …/shares/inherited?path=p as user, one call: [SRV]
// apps/files_sharing/lib/Controller/ShareAPIController.php
// getInheritedShares lists the shares on every folder above p in its
// owner's tree, whoever made them). users are named outright: the
// recipients of user shares, and every sharer and file owner. folders are
// the shared folders whose recipients the answer does not name (group,
// team, Talk and other shares); link, e-mail and federated shares reach
// no user of this Nextcloud. user needs the share permission on p
// (Nextcloud fails the call otherwise).
func (c *Client) SharedAbove(ctx context.Context, user hs.UserID, p string) (users []hs.UserID, folders []hs.FileID, err error) {
	if err := requireUser("shared above", user); err != nil {
		return nil, nil, err
	}
	clean, err := cleanPath(p)
	if err != nil {
		return nil, nil, err
	}
	var shares []Share
	if err := c.ocs(ctx, user, http.MethodGet, sharesPath+"/inherited", url.Values{"path": {clean}}, nil, &shares); err != nil {
		return nil, nil, err
	}
	seenUser := map[hs.UserID]bool{}
	addUser := func(u hs.UserID) {
		if u != "" && !seenUser[u] {
			seenUser[u] = true
			users = append(users, u)
		}
	}
	seenFolder := map[hs.FileID]bool{}
	for _, s := range shares {
		addUser(s.Owner)
		addUser(s.FileOwner)
		switch s.ShareType {
		case ShareUser:
			addUser(hs.UserID(s.ShareWith))
		case ShareLink, ShareEmail, ShareFederated:
		default:
			if s.FileID > 0 && !seenFolder[s.FileID] {
				seenFolder[s.FileID] = true
				folders = append(folders, s.FileID)
			}
		}
	}
	return users, folders, nil
}
