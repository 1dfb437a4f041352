package indexing

import (
	"context"
	"log/slog"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// StateUpdater reads and compare-and-sets per-file state (*kv.States).
type StateUpdater interface {
	Get(ctx context.Context, id hs.FileID) (hs.FileState, uint64, error)
	Update(ctx context.Context, st hs.FileState, rev uint64) error
}

// Failures records in the file states what a job the queue gave up on
// (its dead letter is written) means for its file: indexing is the only
// writer of file state, the queue only reports.
type Failures struct {
	States StateUpdater
	Logger *slog.Logger // nil means slog.Default()
	Now    func() time.Time
}

// GaveUp is the queue's Options.GaveUp: it sets an existing file state to
// StatusFailed with cause and the tries made. A file with no state yet is
// left alone (the dead letter records it), and so is a file indexed for
// its readers whose job failed because Nextcloud refused that job's user
// (EUNAUTHORIZED: a reader just deleted, whom the user list still vouched
// for): the file is fine for its other readers, and its entry must stay
// in step with later changes of who reads it (the pipeline writes readers
// to the index of indexed files only). A failure of the file itself (a
// new version that cannot be read) still marks it failed, for the admin
// to see. Errors are logged: the job is a dead letter either way.
func (f *Failures) GaveUp(ctx context.Context, job hs.IndexJob, cause error, attempts int) {
	if job.FileID <= 0 {
		return
	}
	log := f.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("file_id", job.FileID, "user_id", job.User)
	st, rev, err := f.States.Get(ctx, job.FileID)
	if err != nil {
		if hs.ErrorKind(err) != hs.ENOTFOUND {
			log.Warn("file state not marked failed", slog.Any("error", err))
		}
		return
	}
	if st.Status == hs.StatusIndexed && hs.ErrorKind(cause) == hs.EUNAUTHORIZED {
		log.Info("file stays indexed for its other readers; the dead letter records the refused job")
		return
	}
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	st.Status, st.Error, st.Attempts, st.Updated = hs.StatusFailed, cause.Error(), attempts, now().UTC()
	if err := f.States.Update(ctx, st, rev); err != nil {
		log.Warn("file state not marked failed", slog.Any("error", err))
	}
}
