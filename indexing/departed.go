package indexing

import (
	"context"
	"maps"
	"slices"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// UserRecords are records the app keeps per user besides the index
// (*kv.TokenStore: bearer tokens and OAuth grants; *kv.ShareLists).
type UserRecords interface {
	// Users lists the users records are kept for.
	Users(ctx context.Context) ([]hs.UserID, error)
	// Forget deletes every record of user.
	Forget(ctx context.Context, user hs.UserID) error
}

// forgetDeparted ends what the app keeps of users deleted in Nextcloud,
// after a scan of every user (listed): each user the index lists as a
// reader (others, with their files) or Records keep something for, who
// is not listed and whom Gone confirms gone, has their files queued (the
// pipeline, refused as that user, drops them as a reader and deletes the
// files nobody else reads) and their records forgotten. Failures are
// logged: the next full scan tries again.
func (s *Scanner) forgetDeparted(ctx context.Context, listed []hs.UserID, others map[hs.UserID][]hs.FileID) {
	if s.Gone == nil || ctx.Err() != nil {
		return
	}
	known := map[hs.UserID]bool{}
	for u := range others {
		known[u] = true
	}
	for _, r := range s.Records {
		users, err := r.Users(ctx)
		if err != nil {
			s.logger().Warn("users with records not listed; deleted users keep them until the next scan", "error", err)
			continue
		}
		for _, u := range users {
			known[u] = true
		}
	}
	for _, u := range listed {
		delete(known, u)
	}
	for _, user := range slices.Sorted(maps.Keys(known)) {
		gone, err := s.Gone(ctx, user)
		if err != nil {
			s.logger().Warn("could not tell whether a user was deleted", "user_id", user, "error", err)
			continue
		}
		if !gone {
			continue
		}
		if err := s.forget(ctx, user, others[user]); err != nil {
			s.logger().Warn("a deleted user is not fully forgotten; the next scan tries again", "user_id", user, "error", err)
			continue
		}
		s.mu.Lock()
		s.progress.UsersGone++
		s.mu.Unlock()
		s.logger().Info("user deleted in Nextcloud: files queued to drop them, tokens and share list deleted",
			"user_id", user, "files", len(others[user]))
	}
}

// forget queues a job as user for each of files and has every Records
// forget user.
func (s *Scanner) forget(ctx context.Context, user hs.UserID, files []hs.FileID) error {
	now := time.Now()
	for batch := range slices.Chunk(files, enqueueBatch) {
		jobs := make([]hs.IndexJob, len(batch))
		for i, id := range batch {
			jobs[i] = hs.IndexJob{FileID: id, User: user, Reason: hs.ReasonScan, Time: now}
		}
		if err := s.Enqueue(ctx, jobs...); err != nil {
			return err
		}
	}
	for _, r := range s.Records {
		if err := r.Forget(ctx, user); err != nil {
			return err
		}
	}
	return nil
}
