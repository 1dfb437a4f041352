package search

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// maxChecks bounds the access checks in flight for one search.
const maxChecks = 8

// access is the outcome of one access check.
type access uint8

const (
	accessUnknown access = iota // Nextcloud did not answer (EUNAVAILABLE, EINTERNAL, ...)
	accessOK                    // the user can reach the file
	accessLost                  // Nextcloud says the user cannot reach it (ENOTFOUND)
	accessDenied                // Nextcloud refused the check itself (EUNAUTHORIZED, EINVALID)
)

// verify returns the first topK documents of docs that user can still
// reach. Each is checked with Access.FindByID (concurrently, answers cached
// for a short while). A document the user lost is dropped and queued for
// re-indexing, and the page is filled from the documents after it. When
// Nextcloud does not answer, a document is kept unverified only if the
// index lists user among its readers. Without an AccessChecker the first
// topK documents are returned unchecked. It fails only when ctx ends.
func (s *Service) verify(ctx context.Context, user hs.UserID, docs []*docGroup, topK int) ([]*docGroup, hs.Verification, error) {
	var ver hs.Verification
	if s.access == nil {
		return docs[:min(topK, len(docs))], ver, nil
	}
	var page []*docGroup
	var lost []hs.IndexJob
	for next := 0; len(page) < topK && next < len(docs); {
		batch := docs[next:min(len(docs), next+topK-len(page))]
		next += len(batch)
		outcomes, err := s.check(ctx, user, batch)
		if err != nil {
			return nil, hs.Verification{}, err
		}
		for i, d := range batch {
			switch outcomes[i] {
			case accessOK:
				ver.Checked++
				page = append(page, d)
			case accessLost:
				ver.Checked++
				ver.Dropped++
				lost = append(lost, hs.IndexJob{FileID: d.meta.ID, User: user, Reason: hs.ReasonVerify, Time: s.now()})
			case accessDenied:
				ver.Dropped++
			case accessUnknown:
				if slices.Contains(d.meta.Readers, user) {
					page = append(page, d)
					ver.Unverified = append(ver.Unverified, d.meta.ID)
				} else {
					ver.Dropped++
				}
			}
		}
	}
	if len(lost) > 0 && s.requeue != nil {
		if err := s.requeue(ctx, lost...); err != nil {
			s.log.Warn("Could not queue files a user lost access to.", "user_id", user, "file_count", len(lost), slog.Any("error", err))
		}
	}
	return page, ver, nil
}

// check runs the access checks of docs concurrently, with cached answers
// where there are any, and fills in each document's path as user sees it.
func (s *Service) check(ctx context.Context, user hs.UserID, docs []*docGroup) ([]access, error) {
	out := make([]access, len(docs))
	sem := make(chan struct{}, maxChecks)
	var wg sync.WaitGroup
	for i, d := range docs {
		if e, ok := s.cache.get(user, d.meta.ID, s.now()); ok {
			out[i], d.path = e.access, e.path
			continue
		}
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			info, err := s.access.FindByID(ctx, user, d.meta.ID)
			switch kind := hs.ErrorKind(err); {
			case err == nil:
				out[i], d.path = accessOK, info.Path
			case kind == hs.ENOTFOUND:
				out[i] = accessLost
			case kind == hs.EUNAUTHORIZED || kind == hs.EINVALID:
				out[i] = accessDenied
				s.log.Warn("Nextcloud refused an access check; the file is left out.", "user_id", user, "file_id", d.meta.ID, slog.Any("error", err))
				return
			default:
				out[i] = accessUnknown
				return
			}
			s.cache.put(user, d.meta.ID, cacheEntry{access: out[i], path: d.path}, s.now())
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("search: verify access: %w", err)
	}
	return out, nil
}

// accessCache keeps access answers (reachable, with the user's path, or
// lost) for a short while, so paging and repeated searches do not ask
// Nextcloud again. A nil *accessCache caches nothing.
type accessCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[accessKey]cacheEntry
}

type accessKey struct {
	user hs.UserID
	id   hs.FileID
}

type cacheEntry struct {
	access access
	path   string
	until  time.Time
}

// maxCacheEntries bounds the cache; past it, expired entries are swept,
// and if that is not enough it starts over.
const maxCacheEntries = 100_000

func newAccessCache(ttl time.Duration) *accessCache {
	return &accessCache{ttl: ttl, m: make(map[accessKey]cacheEntry)}
}

func (c *accessCache) get(user hs.UserID, id hs.FileID, now time.Time) (cacheEntry, bool) {
	if c == nil {
		return cacheEntry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[accessKey{user, id}]
	if !ok || !now.Before(e.until) {
		return cacheEntry{}, false
	}
	return e, true
}

func (c *accessCache) put(user hs.UserID, id hs.FileID, e cacheEntry, now time.Time) {
	if c == nil {
		return
	}
	e.until = now.Add(c.ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCacheEntries {
		for k, old := range c.m {
			if !now.Before(old.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCacheEntries {
			clear(c.m)
		}
	}
	c.m[accessKey{user, id}] = e
}
