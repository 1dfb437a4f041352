package indexing

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"sync"
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
// (*queue.ShareLists).
type ShareListIndex interface {
	Users(ctx context.Context) ([]hs.UserID, error)
	Get(ctx context.Context, user hs.UserID) ([]hs.Share, error)
}

// RecipientFinder names the users other than user who reach the file at p
// (in user's tree) through a share of a folder above it (*Reach).
type RecipientFinder interface {
	Recipients(ctx context.Context, user hs.UserID, p string) ([]hs.UserID, error)
}

// Limits of a Reach.
const (
	// DefaultReachMaxAge is how long an answer is kept for the files of
	// one folder.
	DefaultReachMaxAge = 30 * time.Second
	// reachEntries bounds the answers kept.
	reachEntries = 4096
	// reachListScan bounds the share lists read to find the members of a
	// group share; past it they are left to their share refresh.
	reachListScan = 10000
)

// Reach finds who a file new in a folder reaches through shares of the
// folders above it, so the pipeline indexes it for them at once: Nextcloud
// fires an upload's webhook for the uploader's path only, and a share
// made earlier brings no event at all. One call to Nextcloud answers for
// every file of a folder for MaxAge, so an upload of a thousand files
// costs one. Members of a group (or other) share, which Nextcloud does not
// name, are the users whose kept share list holds the shared folder. It
// is safe for concurrent use.
type Reach struct {
	Shares SharesAbove    // required
	Lists  ShareListIndex // optional: finds members of group shares
	// MaxAge: 0 means DefaultReachMaxAge.
	MaxAge time.Duration
	Logger *slog.Logger

	mu    sync.Mutex
	cache map[reachKey]reachEntry
}

type reachKey struct {
	user hs.UserID
	dir  string
}

type reachEntry struct {
	at    time.Time
	users []hs.UserID
}

// Recipients returns the users other than user who reach the file at p
// in user's tree through a share of a folder above it, sorted.
func (r *Reach) Recipients(ctx context.Context, user hs.UserID, p string) ([]hs.UserID, error) {
	key := reachKey{user, path.Dir(path.Clean("/" + p))}
	now := time.Now()
	r.mu.Lock()
	if e, ok := r.cache[key]; ok && now.Sub(e.at) < r.maxAge() {
		r.mu.Unlock()
		return e.users, nil
	}
	r.mu.Unlock()
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
	users = slices.Compact(slices.DeleteFunc(users, func(u hs.UserID) bool { return u == user || u == "" }))
	r.remember(key, reachEntry{at: now, users: users})
	return users, nil
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

// remember keeps e, dropping stale answers (or all) when full.
func (r *Reach) remember(key reachKey, e reachEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache == nil {
		r.cache = map[reachKey]reachEntry{}
	}
	if len(r.cache) >= reachEntries {
		for k, old := range r.cache {
			if e.at.Sub(old.at) >= r.maxAge() {
				delete(r.cache, k)
			}
		}
		if len(r.cache) >= reachEntries {
			clear(r.cache)
		}
	}
	r.cache[key] = e
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
func (p *Pipeline) reachRecipients(ctx context.Context, user hs.UserID, info hs.FileInfo, st *hs.FileState) {
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
		users, err := p.Recipients.Recipients(ctx, as, pth)
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
