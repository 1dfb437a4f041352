package indexing

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// SharesAbove tells who reaches a file through shares of the folders above
// it (*nextcloud.Client): users named outright (user shares' recipients,
// sharers, the owner), and shared folders whose recipients it does not
// name (group and other shares).
type SharesAbove interface {
	SharedAbove(ctx context.Context, user hs.UserID, p string) ([]hs.UserID, []hs.FileID, error)
}

// ShareListIndex reads the share lists the app keeps per user
// (*kv.ShareLists).
type ShareListIndex interface {
	Users(ctx context.Context) ([]hs.UserID, error)
	Get(ctx context.Context, user hs.UserID) ([]hs.Share, error)
}

// RecipientFinder names the users other than user who reach the file at p
// (in user's tree) through a share of a folder above it (*Reach), as
// Nextcloud tells at a look that began after since (when the file's event
// arrived), so a share made before the event is seen.
type RecipientFinder interface {
	Recipients(ctx context.Context, user hs.UserID, p string, since time.Time) ([]hs.UserID, error)
}

// Limits of a Reach.
const (
	// DefaultReachMaxAge is how long an answer is kept for the files of
	// one folder whose events came before it was asked for.
	DefaultReachMaxAge = 30 * time.Second
	// ReachClockSkew is how much the clocks of the processes that take
	// webhooks and run jobs may differ: a look serves the events of other
	// jobs that arrived at least this long before it began.
	ReachClockSkew = 250 * time.Millisecond
	// reachEntries bounds the answers kept.
	reachEntries = 4096
	// reachListScan bounds the share lists read to find the members of a
	// group share; past it they are left to their share refresh.
	reachListScan = 10000
)

// Reach finds who a file new in a folder reaches through shares of the
// folders above it, so the pipeline indexes it for them at once: Nextcloud
// fires an upload's webhook for the uploader's path only, and a share
// made earlier brings no event at all. Nextcloud cannot tell an app that
// shares changed, so a file's event is answered from a look at the
// folder's shares that began after the event arrived: a share made
// before the upload is always seen. Events waiting
// in the queue share one look (an upload of a thousand files queued
// before the first is processed costs one call to Nextcloud), and so do
// events of one folder processed while a look that began after them is
// under way. Members of a group (or other) share, which Nextcloud does
// not name, are the users whose kept share list holds the shared folder.
// It is safe for concurrent use.
type Reach struct {
	Shares SharesAbove    // required
	Lists  ShareListIndex // optional: finds members of group shares
	// MaxAge bounds how long an answer serves events that came before it;
	// 0 means DefaultReachMaxAge.
	MaxAge time.Duration
	Logger *slog.Logger

	mu    sync.Mutex
	cache map[reachKey]*reachLook
	looks atomic.Int64 // looks at Nextcloud made
}

type reachKey struct {
	user hs.UserID
	dir  string
}

// reachLook is one look at a folder's shares: under way until done is
// closed, then users or err.
type reachLook struct {
	asked time.Time // when it began
	done  chan struct{}
	users []hs.UserID
	err   error
}

// Recipients returns the users other than user who reach the file at p
// in user's tree through a share of a folder above it, sorted, from a
// look at Nextcloud that began after since (the event's arrival; zero
// means now): an earlier look under way or done serves if it began at
// least ReachClockSkew after since, else Nextcloud is asked.
func (r *Reach) Recipients(ctx context.Context, user hs.UserID, p string, since time.Time) ([]hs.UserID, error) {
	key := reachKey{user, path.Dir(path.Clean("/" + p))}
	now := time.Now()
	if since.IsZero() || since.After(now) {
		since = now
	}
	r.mu.Lock()
	if l, ok := r.cache[key]; ok && !l.asked.Before(since.Add(ReachClockSkew)) && now.Sub(l.asked) < r.maxAge() {
		r.mu.Unlock()
		select {
		case <-l.done:
			return l.users, l.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	// A look of its own: it begins after the event arrived, whatever the
	// clocks say, as the job was queued by then.
	l := &reachLook{asked: now, done: make(chan struct{})}
	r.remember(key, l)
	r.mu.Unlock()
	l.users, l.err = r.look(ctx, user, p)
	close(l.done)
	if l.err != nil {
		r.mu.Lock()
		if r.cache[key] == l {
			delete(r.cache, key)
		}
		r.mu.Unlock()
	}
	return l.users, l.err
}

// Looks returns how many times Nextcloud was asked.
func (r *Reach) Looks() int64 { return r.looks.Load() }

// look asks Nextcloud who reaches the file at p in user's tree.
func (r *Reach) look(ctx context.Context, user hs.UserID, p string) ([]hs.UserID, error) {
	r.looks.Add(1)
	named, folders, err := r.Shares.SharedAbove(ctx, user, p)
	if err != nil {
		return nil, fmt.Errorf("shares above %s of %s: %w", p, user, err)
	}
	users := slices.Clone(named)
	if len(folders) > 0 {
		members, err := r.members(ctx, folders)
		if err != nil {
			return nil, err
		}
		users = append(users, members...)
	}
	slices.Sort(users)
	return slices.Compact(slices.DeleteFunc(users, func(u hs.UserID) bool { return u == user || u == "" })), nil
}

// members returns the users whose kept share list holds one of folders.
func (r *Reach) members(ctx context.Context, folders []hs.FileID) ([]hs.UserID, error) {
	if r.Lists == nil {
		return nil, nil
	}
	all, err := r.Lists.Users(ctx)
	if err != nil {
		return nil, fmt.Errorf("share lists: %w", err)
	}
	if len(all) > reachListScan {
		r.logger().Info("group share members left to their share refresh: too many share lists to read", "lists", len(all))
		return nil, nil
	}
	var out []hs.UserID
	for _, u := range all {
		list, err := r.Lists.Get(ctx, u)
		if hs.ErrorKind(err) == hs.ENOTFOUND {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("share list of %s: %w", u, err)
		}
		if slices.ContainsFunc(list, func(s hs.Share) bool { return slices.Contains(folders, s.FileID) }) {
			out = append(out, u)
		}
	}
	return out, nil
}

// remember keeps l, dropping stale looks (or all) when full. Callers
// hold r.mu.
func (r *Reach) remember(key reachKey, l *reachLook) {
	if r.cache == nil {
		r.cache = map[reachKey]*reachLook{}
	}
	if len(r.cache) >= reachEntries {
		for k, old := range r.cache {
			if l.asked.Sub(old.asked) >= r.maxAge() {
				delete(r.cache, k)
			}
		}
		if len(r.cache) >= reachEntries {
			clear(r.cache)
		}
	}
	r.cache[key] = l
}

func (r *Reach) maxAge() time.Duration {
	if r.MaxAge > 0 {
		return r.MaxAge
	}
	return DefaultReachMaxAge
}

func (r *Reach) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

// inlineReach bounds the users a new file is checked for within its own
// job; the others are queued, a job each.
const inlineReach = 20

// reachRecipients makes the file info, new at user's path (its state st
// just saved), reach everyone it is shared with through a folder above
// it: its owner (whose path brought no event when someone else wrote the
// file) and the users Recipients names, asked as user and as the owner.
// Each is looked up as themselves, within this job (it holds the file's
// lease): who sees the file becomes a reader at their own path, who does
// not (a group they left) is skipped. Past inlineReach users, and for any
// lookup that fails, a job is queued instead. Nothing here fails the job:
// their share refresh or the scan is the safety net.
func (p *Pipeline) reachRecipients(ctx context.Context, user hs.UserID, info hs.FileInfo, st *hs.FileState, since time.Time) {
	seen := map[hs.UserID]bool{user: true}
	var cands []hs.UserID
	add := func(users ...hs.UserID) {
		for _, u := range users {
			if u != "" && !seen[u] && !slices.Contains(st.Readers, u) {
				seen[u] = true
				cands = append(cands, u)
			}
		}
	}
	ask := func(as hs.UserID, pth string) {
		if p.Recipients == nil {
			return
		}
		users, err := p.Recipients.Recipients(ctx, as, pth, since)
		if err != nil {
			p.logger().Info("who else a new file reaches is not known; their share refresh or the scan adds them",
				"file_id", info.ID, "user_id", as, "error", err)
		}
		add(users...)
	}
	add(info.Owner)
	ask(user, info.Path)
	now := p.now()
	var jobs []hs.IndexJob
	var added []hs.UserID
	for i := 0; i < len(cands); i++ { // the owner's answer may add more
		u := cands[i]
		if i >= inlineReach {
			jobs = append(jobs, hs.IndexJob{FileID: info.ID, User: u, Reason: hs.ReasonShare, Time: now})
			continue
		}
		theirs, err := p.Files.FindByID(ctx, u, info.ID)
		switch {
		case hs.ErrorKind(err) == hs.ENOTFOUND:
			continue
		case err != nil:
			jobs = append(jobs, hs.IndexJob{FileID: info.ID, User: u, Reason: hs.ReasonShare, Time: now})
			continue
		}
		addReader(st, u, theirs.Path)
		added = append(added, u)
		if u == info.Owner {
			ask(u, theirs.Path)
		}
	}
	if len(added) > 0 {
		if err := p.saveReaders(ctx, st, info); err != nil {
			p.logger().Warn("new readers of a file not saved; queued instead", "file_id", info.ID, "error", err)
			for _, u := range added {
				jobs = append(jobs, hs.IndexJob{FileID: info.ID, User: u, Reason: hs.ReasonShare, Time: now})
			}
		}
	}
	if len(jobs) == 0 || p.Enqueue == nil {
		return
	}
	if err := p.Enqueue(ctx, jobs...); err != nil {
		p.logger().Warn("a new file not queued for the users it reaches; their share refresh or the scan adds them",
			"file_id", info.ID, "users", len(jobs), "error", err)
	}
}

// saveReaders writes st's readers to the index and saves st.
func (p *Pipeline) saveReaders(ctx context.Context, st *hs.FileState, info hs.FileInfo) error {
	if st.Status == hs.StatusIndexed {
		return p.saveEntryOrForget(ctx, st, info)
	}
	return p.putState(ctx, st)
}
