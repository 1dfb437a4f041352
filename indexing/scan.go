package indexing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// TreeWalker walks a user's file tree.
type TreeWalker interface {
	Walk(ctx context.Context, user hs.UserID, root string, fn func(hs.FileInfo) error) error
}

// UserLister lists every Nextcloud user.
type UserLister interface {
	ListUsers(ctx context.Context) ([]hs.UserID, error)
}

// StateLister iterates every file state.
type StateLister interface {
	List(ctx context.Context, fn func(hs.FileState) error) error
}

// Scanner is the reconciliation scan: it compares each user's tree with
// the index state and queues what differs, including files the user no
// longer sees (how shares and unshares arrive, since Nextcloud sends no
// webhook for them).
type Scanner struct {
	Tree    TreeWalker
	Users   UserLister
	States  StateLister
	Enqueue EnqueueFunc
	// IndexID is the Pipeline's IndexID: files recorded for another index
	// are queued again. Change it with SetIndexID once the scanner runs.
	IndexID string
	// Rules, if non-nil, returns the exclusion rules in force: a file whose
	// exclusion no longer matches its state (newly excluded, or skipped by
	// a rule that was lifted) is queued again.
	Rules func() Rules
	// Baseline, if non-nil, is called before a user's tree is walked; the
	// commit it returns runs after the walk went through
	// (ShareRefresher.Baseline: the shares the scan has seen).
	Baseline func(ctx context.Context, user hs.UserID) (commit func(ctx context.Context) error, err error)
	// Gone, if set, confirms that a user missing from Nextcloud's list, but
	// whom the index lists as a reader or Records keep something for, no
	// longer exists (*nextcloud.UserDirectory.Gone). A full scan then
	// queues that user's files, so the pipeline drops them as a reader
	// (deleting what nobody else reads), and has every Records forget
	// them (departed.go).
	Gone func(ctx context.Context, user hs.UserID) (bool, error)
	// Records are what the app keeps per user besides the index (bearer
	// tokens and grants, share lists); used with Gone.
	Records []UserRecords
	Logger  *slog.Logger

	mu       sync.Mutex
	progress hs.ScanProgress
	turn     chan struct{} // one scan at a time
	running  bool
	wake     chan struct{}
	pending  map[hs.UserID]bool // requested user scans; "" = everyone
	serving  bool               // Run is starting or running a requested scan
}

const enqueueBatch = 500

// Progress returns the state of the current or last scan.
func (s *Scanner) Progress() hs.ScanProgress {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.progress
}

// ScanAll scans every user. report, if non-nil, receives the fraction of
// users done. Scans run one at a time: a call waits for a running scan.
func (s *Scanner) ScanAll(ctx context.Context, report func(fraction float64)) error {
	users, err := s.Users.ListUsers(ctx)
	if err != nil {
		return fmt.Errorf("scan: list users: %w", err)
	}
	return s.scan(ctx, users, true, report)
}

// ScanUser scans one user's tree.
func (s *Scanner) ScanUser(ctx context.Context, user hs.UserID) error {
	return s.scan(ctx, []hs.UserID{user}, false, nil)
}

// scan scans users; all says they are every user Nextcloud has.
func (s *Scanner) scan(ctx context.Context, users []hs.UserID, all bool, report func(float64)) error {
	s.mu.Lock()
	if s.turn == nil {
		s.turn = make(chan struct{}, 1)
	}
	turn := s.turn
	s.mu.Unlock()
	select {
	case turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-turn }()
	s.mu.Lock()
	s.running = true
	s.progress = hs.ScanProgress{Running: true, Started: time.Now(), UsersTotal: len(users)}
	s.mu.Unlock()
	err := s.scanUsers(ctx, users, all, report)
	s.mu.Lock()
	s.running = false
	s.progress.Running = false
	s.progress.Finished = time.Now()
	s.progress.DurationSecs = s.progress.Finished.Sub(s.progress.Started).Seconds()
	if err != nil {
		s.progress.LastError = hs.ErrorMessage(err)
	}
	s.mu.Unlock()
	return err
}

// scanUsers scans each user in turn. One user's failure (a broken home
// storage, a user deleted meanwhile) is logged and recorded in the
// progress, and the others are scanned all the same; it is returned only
// when every user failed, so one user never holds back the rest (the
// app's initialization among them). After a scan of every user, users
// Nextcloud no longer has are forgotten.
func (s *Scanner) scanUsers(ctx context.Context, users []hs.UserID, all bool, report func(float64)) error {
	known, others, states, err := s.readerIndex(ctx, users, all)
	if err != nil {
		return err
	}
	if all && states == 0 {
		s.mu.Lock()
		s.progress.Initial = true
		s.mu.Unlock()
	}
	if all {
		defer s.forgetDeparted(ctx, users, others)
	}
	var errs []error
	for i, user := range users {
		if err := s.scanOne(ctx, user, known[user]); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.logger().Warn("scan of a user failed", "user_id", user, "error", err)
			errs = append(errs, fmt.Errorf("scan %s: %w", user, err))
			s.mu.Lock()
			s.progress.LastError = hs.ErrorMessage(errs[len(errs)-1])
			s.mu.Unlock()
		}
		s.mu.Lock()
		s.progress.UsersDone = i + 1
		s.mu.Unlock()
		if report != nil {
			report(float64(i+1) / float64(len(users)))
		}
	}
	if len(errs) > 0 && len(errs) == len(users) {
		return errors.Join(errs...)
	}
	return nil
}

// readerIndex maps each scanned user to the states listing them as
// reader and, with others, every other reader to the files listing them;
// it also counts the states.
func (s *Scanner) readerIndex(ctx context.Context, users []hs.UserID, others bool) (map[hs.UserID]map[hs.FileID]hs.FileState, map[hs.UserID][]hs.FileID, int, error) {
	want := map[hs.UserID]map[hs.FileID]hs.FileState{}
	for _, u := range users {
		want[u] = map[hs.FileID]hs.FileState{}
	}
	rest := map[hs.UserID][]hs.FileID{}
	n := 0
	err := s.States.List(ctx, func(st hs.FileState) error {
		n++
		for _, r := range st.Readers {
			if m, ok := want[r]; ok {
				m[st.ID] = st
			} else if others {
				rest[r] = append(rest[r], st.ID)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("scan: read index state: %w", err)
	}
	return want, rest, n, nil
}

// scanOne walks one user's tree and queues every difference from known,
// the states that list the user as a reader.
func (s *Scanner) scanOne(ctx context.Context, user hs.UserID, known map[hs.FileID]hs.FileState) error {
	var batch []hs.IndexJob
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := s.Enqueue(ctx, batch...); err != nil {
			return fmt.Errorf("enqueue: %w", err)
		}
		s.mu.Lock()
		s.progress.Queued += len(batch)
		s.mu.Unlock()
		batch = batch[:0]
		return nil
	}
	var commit func(ctx context.Context) error
	if s.Baseline != nil {
		var err error
		if commit, err = s.Baseline(ctx, user); err != nil {
			s.logger().Warn("shares not read before the scan", "user_id", user, "error", err)
		}
	}
	now := time.Now()
	seen := map[hs.FileID]bool{}
	s.mu.Lock()
	indexID := s.IndexID
	s.mu.Unlock()
	var rules *Rules
	if s.Rules != nil {
		r := s.Rules()
		rules = &r
	}
	// A folder's NoIndexFile may come after its subfolders in the walk:
	// files are decided once the whole tree was seen.
	var files []hs.FileInfo
	marked := map[string]bool{}
	err := s.Tree.Walk(ctx, user, "/", func(f hs.FileInfo) error {
		if f.IsDir {
			return nil
		}
		if path.Base(f.Path) == NoIndexFile {
			marked[path.Dir(f.Path)] = true
		}
		files = append(files, hs.FileInfo{ID: f.ID, Path: f.Path, ETag: f.ETag, MIME: f.MIME, Size: f.Size, Owner: f.Owner})
		return nil
	})
	if err != nil {
		return fmt.Errorf("walk: %w", err)
	}
	for _, f := range files {
		seen[f.ID] = true
		s.mu.Lock()
		s.progress.FilesSeen++
		s.mu.Unlock()
		st, ok := known[f.ID]
		if ok && st.ETag == f.ETag && st.Index == indexID && st.Paths[user] == f.Path && slices.Contains(st.Readers, user) && st.Status != hs.StatusPending && !ruleChanged(rules, st, f, noIndexOf(marked, user, st, f)) {
			continue
		}
		batch = append(batch, hs.IndexJob{FileID: f.ID, User: user, Path: f.Path, Reason: hs.ReasonScan, Time: now})
		if len(batch) >= enqueueBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	for id, st := range known {
		if !seen[id] {
			batch = append(batch, hs.IndexJob{FileID: id, User: user, Path: st.Paths[user], Reason: hs.ReasonScan, Time: now})
			if len(batch) >= enqueueBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if commit != nil {
		if err := commit(ctx); err != nil {
			s.logger().Warn("shares seen by the scan not saved", "user_id", user, "error", err)
		}
	}
	return nil
}

// noIndexOf is the NoIndexFile reason of f in user's tree, marked being
// the folders holding one. Only the owner's tree decides (as the pipeline
// does); for a file user does not own, the recorded reason stands.
func noIndexOf(marked map[string]bool, user hs.UserID, st hs.FileState, f hs.FileInfo) string {
	if f.Owner != "" && f.Owner != user {
		if IsNoIndexReason(st.Error) {
			return st.Error
		}
		return ""
	}
	return noIndexIn(marked, f.Path)
}

// ruleChanged reports whether the rules, and noIndex (a NoIndexFile
// reason, or ""), now decide differently about f than its state records.
func ruleChanged(rules *Rules, st hs.FileState, f hs.FileInfo, noIndex string) bool {
	reason := ""
	if rules != nil {
		reason = rules.Excluded(f)
	}
	if reason == "" {
		reason = noIndex
	}
	byRule := st.Status == hs.StatusSkipped && IsRuleReason(st.Error)
	return reason != "" && (!byRule || st.Error != reason) || reason == "" && byRule
}

// SetIndexID changes the index the scanner compares states with, from the
// next user it scans (the embedding model changed).
func (s *Scanner) SetIndexID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.IndexID = id
}

// Request asks for a scan of user ("" = every user) soon, from Run's loop.
// Repeated requests before the scan starts are merged.
func (s *Scanner) Request(user hs.UserID) {
	s.mu.Lock()
	if s.pending == nil {
		s.pending = map[hs.UserID]bool{}
	}
	s.pending[user] = true
	if s.wake == nil {
		s.wake = make(chan struct{}, 1)
	}
	wake := s.wake
	s.mu.Unlock()
	select {
	case wake <- struct{}{}:
	default:
	}
}

// Run scans every interval (0 = only on request) and serves Request calls
// until ctx is done.
func (s *Scanner) Run(ctx context.Context, interval time.Duration) {
	s.mu.Lock()
	if s.wake == nil {
		s.wake = make(chan struct{}, 1)
	}
	wake := s.wake
	s.mu.Unlock()
	var tick <-chan time.Time
	if interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			s.Request("")
		case <-wake:
			s.mu.Lock()
			req := s.pending
			s.pending = nil
			s.serving = true
			s.mu.Unlock()
			var err error
			if req[""] {
				err = s.ScanAll(ctx, nil)
			} else {
				users := make([]hs.UserID, 0, len(req))
				for u := range req {
					users = append(users, u)
				}
				slices.Sort(users)
				err = s.scan(ctx, users, false, nil)
			}
			s.mu.Lock()
			s.serving = false
			s.mu.Unlock()
			if err != nil && ctx.Err() == nil {
				s.logger().Warn("reconciliation scan failed", "error", err)
			}
		}
	}
}

// Idle reports whether no scan is running, starting or requested.
func (s *Scanner) Idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.running && !s.serving && len(s.pending) == 0
}

func (s *Scanner) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}
