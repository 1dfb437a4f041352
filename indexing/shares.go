package indexing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// ShareSource lists the shares a user has received (one OCS call:
// *nextcloud.Client's shared_with_me, adapted).
type ShareSource interface {
	SharedWith(ctx context.Context, user hs.UserID) ([]hs.Share, error)
}

// ShareLists keeps each user's last seen shares (*kv.ShareLists). Get
// returns ENOTFOUND when none were stored; Put may refuse a list that is
// too long (ETOOLARGE).
type ShareLists interface {
	Get(ctx context.Context, user hs.UserID) ([]hs.Share, error)
	Put(ctx context.Context, user hs.UserID, list []hs.Share) error
}

// StateReader reads one file's state.
type StateReader interface {
	Get(ctx context.Context, id hs.FileID) (hs.FileState, uint64, error)
}

// ShareVisibleWithin is how soon a new share shows in the recipient's
// searches, its files indexed: a share made just after a look at the
// user's shares is found by the first search once the list is
// DefaultShareMaxAge old, which looks again (one OCS call, walks of new
// shared folders: shareLookBudget) and waits up to DefaultShareWait for
// the new files to be indexed.
const ShareVisibleWithin = time.Minute

// shareLookBudget is the time a refresh's own calls are allowed within
// ShareVisibleWithin.
const shareLookBudget = 5 * time.Second

// Defaults of a ShareRefresher whose fields are zero.
const (
	DefaultShareWait   = 5 * time.Second
	DefaultShareMaxAge = ShareVisibleWithin - DefaultShareWait - shareLookBudget
	DefaultShareFiles  = 1000
)

// shareRetry is how long a failed refresh waits before a search tries
// again.
const shareRetry = 5 * time.Second

// After a search found a file the user lost (Expire), their shares are
// looked at before each of their searches for shareHotFor: an unshare is
// often followed by a share again (a new share, other permissions), which
// then shows at the user's next search. One OCS call per search, for one
// user, for a while.
const shareHotFor = 10 * time.Minute

// ShareRefresher brings a user's shares into the index before a search:
// Nextcloud sends no webhook when a file is shared, so without it a new
// share would wait for the reconciliation scan. When the user's share list
// is older than MaxAge, Refresh fetches it (one OCS call), queues the
// files of every share not seen before (walking new shared folders as the
// user, up to MaxFiles files) and of every share that went away, and
// waits up to Wait for the new files to list the user as a reader. The
// periodic scan stays the safety net. It is safe for concurrent use;
// concurrent searches of one user share one refresh.
type ShareRefresher struct {
	Shares  ShareSource // required
	Lists   ShareLists  // required
	Tree    TreeWalker  // required: walks new shared folders
	States  StateReader // required: tells when a new share is indexed
	Enqueue EnqueueFunc // required
	// Rescan, if non-nil, asks for a scan of a user whose shares were never
	// seen before or are too many to keep a list of.
	Rescan func(user hs.UserID)
	// MaxAge is how old a user's share list may be before a search fetches
	// it again; 0 means DefaultShareMaxAge.
	MaxAge time.Duration
	// Wait bounds how long a search waits for new shares to be indexed;
	// 0 means DefaultShareWait.
	Wait time.Duration
	// MaxFiles bounds the files of new shared folders queued and waited
	// for in one refresh (a larger folder is queued whole, without
	// waiting); 0 means DefaultShareFiles.
	MaxFiles int
	Logger   *slog.Logger
	// Now, if non-nil, is the clock that tells when a list is due (tests).
	Now func() time.Time

	mu    sync.Mutex
	users map[hs.UserID]*shareState
}

// shareState is the in-process state of one user's refreshes.
type shareState struct {
	next    time.Time     // no refresh before this
	hot     time.Time     // until then, refresh every shareHotAge
	running chan struct{} // closed when the refresh in progress ends
	err     error         // of the last refresh
}

// Refresh brings user's shares into the index if the list was last looked
// at more than MaxAge ago (or Expire was called), and returns once the new
// shares are indexed or Wait has passed. Errors are those of Nextcloud or
// the queue; a search goes on without the refresh then.
func (r *ShareRefresher) Refresh(ctx context.Context, user hs.UserID) error {
	if user == "" {
		return nil
	}
	r.mu.Lock()
	if r.users == nil {
		r.users = map[hs.UserID]*shareState{}
	}
	st := r.users[user]
	if st == nil {
		st = &shareState{}
		r.users[user] = st
	}
	if st.running != nil {
		wait := st.running
		r.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
		r.mu.Lock()
		err := st.err
		r.mu.Unlock()
		return err
	}
	if r.now().Before(st.next) {
		r.mu.Unlock()
		return nil
	}
	done := make(chan struct{})
	st.running = done
	r.mu.Unlock()

	err := r.refresh(ctx, user)
	r.mu.Lock()
	st.running, st.err = nil, err
	switch now := r.now(); {
	case err != nil:
		st.next = now.Add(shareRetry)
	case now.Before(st.hot):
		st.next = now
	default:
		st.next = now.Add(r.maxAge())
	}
	r.mu.Unlock()
	close(done)
	return err
}

// Baseline fetches user's shares before a reconciliation scan of their
// tree; commit, called once the scan went through, stores them as seen,
// so later refreshes know what is new. (Shares made during the scan are
// not in the list and count as new: queued once more, never missed.)
func (r *ShareRefresher) Baseline(ctx context.Context, user hs.UserID) (commit func(ctx context.Context) error, err error) {
	list, err := r.Shares.SharedWith(ctx, user)
	if err != nil {
		return nil, fmt.Errorf("shares of %s: %w", user, err)
	}
	return func(ctx context.Context) error {
		err := r.Lists.Put(ctx, user, list)
		if hs.ErrorKind(err) == hs.ETOOLARGE {
			return nil // refreshes fall back to the scan for this user
		}
		return err
	}, nil
}

// Expire makes the next Refresh of user look at their shares again, and
// every one after it for a while (a search found a file the user lost: a
// share changed, and may be made again).
func (r *ShareRefresher) Expire(user hs.UserID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.users == nil {
		r.users = map[hs.UserID]*shareState{}
	}
	st := r.users[user]
	if st == nil {
		st = &shareState{}
		r.users[user] = st
	}
	st.next, st.hot = time.Time{}, r.now().Add(shareHotFor)
}

// refresh is one refresh of user's shares.
func (r *ShareRefresher) refresh(ctx context.Context, user hs.UserID) error {
	now, err := r.Shares.SharedWith(ctx, user)
	if err != nil {
		return fmt.Errorf("shares of %s: %w", user, err)
	}
	before, err := r.Lists.Get(ctx, user)
	first := hs.ErrorKind(err) == hs.ENOTFOUND
	if err != nil && !first {
		return fmt.Errorf("shares of %s: %w", user, err)
	}
	if first {
		// Never seen (no scan has run since the list was kept): a scan
		// finds what is not indexed yet; the list only tells later
		// refreshes what is new.
		if err := r.store(ctx, user, now); err != nil {
			return err
		}
		r.rescan(user)
		return nil
	}
	added, removed := diffShares(before, now)
	if len(added) == 0 && len(removed) == 0 {
		return nil
	}
	jobs, wait, err := r.jobs(ctx, user, added, removed)
	if err != nil {
		return err
	}
	if len(jobs) > 0 {
		if err := r.Enqueue(ctx, jobs...); err != nil {
			return fmt.Errorf("queue %d shared files of %s: %w", len(jobs), user, err)
		}
	}
	if err := r.store(ctx, user, now); err != nil {
		return err
	}
	r.logger().Info("new shares queued", "user_id", user, "added", len(added), "removed", len(removed), "jobs", len(jobs))
	r.await(ctx, user, wait)
	return nil
}

// store saves user's share list; a list too long to keep is left out, and
// the scan covers that user instead.
func (r *ShareRefresher) store(ctx context.Context, user hs.UserID, list []hs.Share) error {
	err := r.Lists.Put(ctx, user, list)
	switch {
	case hs.ErrorKind(err) == hs.ETOOLARGE:
		r.logger().Warn("too many shares to keep a list; the scan covers them", "user_id", user, "shares", len(list))
		r.rescan(user)
		return nil
	case err != nil:
		return fmt.Errorf("save shares of %s: %w", user, err)
	}
	return nil
}

// jobs returns the jobs for added and removed shares, and the files a
// search waits for: those of the added shares, up to MaxFiles.
func (r *ShareRefresher) jobs(ctx context.Context, user hs.UserID, added, removed []hs.Share) ([]hs.IndexJob, []hs.FileID, error) {
	at := time.Now()
	job := func(id hs.FileID, p string) hs.IndexJob {
		return hs.IndexJob{FileID: id, User: user, Path: p, Reason: hs.ReasonShare, Time: at}
	}
	var jobs []hs.IndexJob
	var wait []hs.FileID
	for _, s := range removed {
		// The pipeline finds the user cannot reach it and drops them as a
		// reader (a folder's files: at their next search or scan).
		jobs = append(jobs, job(s.FileID, ""))
	}
	budget := r.maxFiles()
	for _, s := range added {
		if !s.IsDir {
			jobs = append(jobs, job(s.FileID, s.Path))
			wait = append(wait, s.FileID)
			continue
		}
		var files []hs.FileInfo
		errFull := errors.New("folder too large to wait for")
		err := r.Tree.Walk(ctx, user, s.Path, func(f hs.FileInfo) error {
			if f.IsDir {
				return nil
			}
			if len(files) >= budget {
				return errFull
			}
			files = append(files, f)
			return nil
		})
		switch {
		case errors.Is(err, errFull):
			// Too many to wait for: the pipeline fans the folder out.
			jobs = append(jobs, job(s.FileID, s.Path))
		case hs.ErrorKind(err) == hs.ENOTFOUND:
			// Gone again already.
		case err != nil:
			return nil, nil, fmt.Errorf("walk shared folder %s of %s: %w", s.Path, user, err)
		default:
			for _, f := range files {
				jobs = append(jobs, job(f.ID, f.Path))
				wait = append(wait, f.ID)
			}
			budget -= len(files)
		}
	}
	return jobs, wait, nil
}

// await polls the states of ids until each lists user as a reader, or
// Wait has passed, or ctx ends.
func (r *ShareRefresher) await(ctx context.Context, user hs.UserID, ids []hs.FileID) {
	wait := r.Wait
	if wait <= 0 {
		wait = DefaultShareWait
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for len(ids) > 0 {
		ids = slices.DeleteFunc(ids, func(id hs.FileID) bool {
			st, _, err := r.States.Get(ctx, id)
			return err == nil && slices.Contains(st.Readers, user) && st.Status != hs.StatusPending
		})
		if len(ids) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			r.logger().Info("new shares not indexed within the wait; the search goes on", "user_id", user, "files", len(ids))
			return
		case <-tick.C:
		}
	}
}

// diffShares returns the shares of now that before lacks and the shares
// of before that now lacks, by share id and file.
func diffShares(before, now []hs.Share) (added, removed []hs.Share) {
	type key struct {
		id   string
		file hs.FileID
	}
	had := make(map[key]bool, len(before))
	for _, s := range before {
		had[key{s.ID, s.FileID}] = true
	}
	has := make(map[key]bool, len(now))
	for _, s := range now {
		k := key{s.ID, s.FileID}
		has[k] = true
		if !had[k] {
			added = append(added, s)
		}
	}
	for _, s := range before {
		if !has[key{s.ID, s.FileID}] {
			removed = append(removed, s)
		}
	}
	return added, removed
}

func (r *ShareRefresher) rescan(user hs.UserID) {
	if r.Rescan != nil {
		r.Rescan(user)
	}
}

func (r *ShareRefresher) maxAge() time.Duration {
	if r.MaxAge > 0 {
		return r.MaxAge
	}
	return DefaultShareMaxAge
}

func (r *ShareRefresher) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *ShareRefresher) maxFiles() int {
	if r.MaxFiles > 0 {
		return r.MaxFiles
	}
	return DefaultShareFiles
}

func (r *ShareRefresher) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}
