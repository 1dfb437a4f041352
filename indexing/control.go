package indexing

import (
	"context"
	"fmt"
	"slices"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Control runs the on-demand operations: a reconciliation scan and a retry
// of failed files. Users act on their own files; admins on everyone's.
type Control struct {
	Scanner *Scanner
	States  StateLister
	Enqueue EnqueueFunc
	IsAdmin func(ctx context.Context, user hs.UserID) (bool, error)
}

func (c *Control) authorize(ctx context.Context, user hs.UserID, all bool) error {
	if user == "" {
		return hs.Errorf(hs.EUNAUTHORIZED, "a signed-in user is required")
	}
	if !all {
		return nil
	}
	ok := false
	if c.IsAdmin != nil {
		var err error
		if ok, err = c.IsAdmin(ctx, user); err != nil {
			return err
		}
	}
	if !ok {
		return hs.Errorf(hs.EFORBIDDEN, "only admins may act on every user's files")
	}
	return nil
}

// Scan asks for a reconciliation scan of user's tree, or of every user's
// with all (admins only). It returns at once; progress shows in status.
func (c *Control) Scan(ctx context.Context, user hs.UserID, all bool) error {
	if err := c.authorize(ctx, user, all); err != nil {
		return err
	}
	if all {
		c.Scanner.Request("")
	} else {
		c.Scanner.Request(user)
	}
	return nil
}

// Retry queues again every failed file user can read (every failed file
// with all, admins only), and every indexed file with chunks that have no
// vector, and returns how many were queued.
func (c *Control) Retry(ctx context.Context, user hs.UserID, all bool) (int, error) {
	if err := c.authorize(ctx, user, all); err != nil {
		return 0, err
	}
	var jobs []hs.IndexJob
	now := time.Now()
	err := c.States.List(ctx, func(st hs.FileState) error {
		retry := st.Status == hs.StatusFailed || st.Status == hs.StatusIndexed && st.NoVectors > 0
		if !retry || len(st.Readers) == 0 {
			return nil
		}
		as := user
		if !slices.Contains(st.Readers, user) {
			if !all {
				return nil
			}
			as = st.Readers[0]
		}
		jobs = append(jobs, hs.IndexJob{FileID: st.ID, User: as, Path: st.Paths[as], Reason: hs.ReasonRetry, Time: now})
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("retry: list failed files: %w", err)
	}
	if len(jobs) == 0 {
		return 0, nil
	}
	if err := c.Enqueue(ctx, jobs...); err != nil {
		return 0, fmt.Errorf("retry: queue %d files: %w", len(jobs), err)
	}
	return len(jobs), nil
}
