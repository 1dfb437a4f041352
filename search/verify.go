package search

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
)

// verify returns the first topK documents of docs that user can still
// reach, each with the path user sees it at. Nextcloud is asked once per
// page (Access.FindByIDs: one SEARCH as the user), never from a cache, so
// a file unshared or deleted a moment ago is gone from the very next
// search. A document the user lost is dropped and queued for re-indexing,
// and the page is filled from the documents after it. A document whose
// current path is outside the request's path prefix (moved since it was
// indexed) is left out too. When Nextcloud does not answer, a document is
// kept unverified only if the index lists user among its readers with a
// path of theirs, which is then the path shown: nothing the user could
// not see before. Without an AccessChecker the first topK documents are
// returned unchecked, at the user's indexed path. It fails only when ctx
// ends.
func (s *Service) verify(ctx context.Context, user hs.UserID, docs []*docGroup, topK int, prefix string) ([]*docGroup, hs.Verification, error) {
	var ver hs.Verification
	if s.access == nil {
		var page []*docGroup
		for _, d := range docs {
			if len(page) == topK {
				break
			}
			if d.path = d.meta.PathOf(user); d.path != "" {
				page = append(page, d)
			}
		}
		return page, ver, nil
	}
	var page []*docGroup
	var lost []hs.IndexJob
	for next := 0; len(page) < topK && next < len(docs); {
		batch := docs[next:min(len(docs), next+topK-len(page))]
		next += len(batch)
		found, outcome, err := s.check(ctx, user, batch)
		if err != nil {
			return nil, hs.Verification{}, err
		}
		for _, d := range batch {
			switch {
			case outcome == accessOK && found[d.meta.ID].ID != 0:
				ver.Checked++
				info := found[d.meta.ID]
				d.path, d.owner, d.changed = info.Path, info.Owner, info.Modified
				if prefix != "" && !underFolder(d.path, prefix) {
					continue // moved out of the folder asked for since it was indexed
				}
				page = append(page, d)
			case outcome == accessOK:
				ver.Checked++
				ver.Dropped++
				d.lost = true
				lost = append(lost, hs.IndexJob{FileID: d.meta.ID, User: user, Reason: hs.ReasonVerify, Time: s.now()})
			case outcome == accessDenied:
				ver.Dropped++
				d.lost = true
			case slices.Contains(d.meta.Readers, user) && d.meta.PathOf(user) != "":
				d.path = d.meta.PathOf(user)
				page = append(page, d)
				ver.Unverified = append(ver.Unverified, d.meta.ID)
			default:
				ver.Dropped++
				d.lost = true
			}
		}
	}
	if len(lost) > 0 && s.refresh != nil {
		s.refresh.Expire(user) // a share may have changed: look again next time
	}
	if len(lost) > 0 && s.requeue != nil {
		if err := s.requeue(ctx, lost...); err != nil {
			s.log.Warn("Could not queue files a user lost access to.", "user_id", user, "file_count", len(lost), slog.Any("error", err))
		}
	}
	return page, ver, nil
}

// access is the outcome of one access check of a batch.
type access uint8

const (
	accessUnknown access = iota // Nextcloud did not answer (EUNAVAILABLE, EINTERNAL, ...)
	accessOK                    // Nextcloud answered: the files found are reachable, the others lost
	accessDenied                // Nextcloud refused the check itself (EUNAUTHORIZED, EINVALID)
)

// check asks Nextcloud which of docs user can reach, in one request.
func (s *Service) check(ctx context.Context, user hs.UserID, docs []*docGroup) (map[hs.FileID]hs.FileInfo, access, error) {
	ids := make([]hs.FileID, len(docs))
	for i, d := range docs {
		ids[i] = d.meta.ID
	}
	found, err := s.access.FindByIDs(ctx, user, ids)
	if cerr := ctx.Err(); cerr != nil {
		return nil, accessUnknown, fmt.Errorf("search: verify access: %w", cerr)
	}
	switch kind := hs.ErrorKind(err); {
	case err == nil:
		return found, accessOK, nil
	case kind == hs.EUNAUTHORIZED || kind == hs.EINVALID:
		s.log.Warn("Nextcloud refused an access check; the files are left out.", "user_id", user, "file_count", len(ids), slog.Any("error", err))
		return nil, accessDenied, nil
	default:
		s.log.Warn("Nextcloud did not answer an access check; showing what the index lists for the user.", "user_id", user, "file_count", len(ids), slog.Any("error", err))
		return nil, accessUnknown, nil
	}
}

// underFolder reports whether the file at p is the folder (or file)
// prefix or inside it, as the stores match Filter.PathPrefix.
func underFolder(p, prefix string) bool {
	p, prefix = path.Clean("/"+p), path.Clean("/"+prefix)
	return prefix == "/" || p == prefix || strings.HasPrefix(p, prefix+"/")
}
