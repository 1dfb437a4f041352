package indexing

import (
	"context"
	"fmt"
	"slices"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Rebuild is a new index being filled (another embedding model, or
// semantic search turned on or off) while the previous one serves
// searches. A file state names the index it was written to
// (FileState.Index), so the states tell how far the new index has come.
type Rebuild struct {
	Model string // the new index's embedding model; "" when it has none
	To    string // the new index's IndexID
	// Since is when the full scan that queues every file for the new
	// index began; zero until it has. A file of the previous index whose
	// indexing in the new one failed since then is left to its retries.
	Since time.Time
}

// count adds st to p: a file the new index holds, or one the previous
// index serves (indexed there) that the new index still has to catch up
// on, unless its try in the new index failed (retrying). Other files
// (pending, skipped or failed in the previous index) are not waited for.
func (rb Rebuild) count(p *hs.RebuildProgress, st hs.FileState) {
	switch {
	case st.Index == rb.To:
		p.Total++
		if st.Status != hs.StatusPending {
			p.Done++
		}
	case st.Status == hs.StatusIndexed:
		p.Total++
		if rb.retrying(st) {
			p.Done++
			p.Retrying++
		}
	}
}

// retrying reports whether st, of a file the previous index holds, records
// a failed try in the new index: an error recorded after Since, other than
// the wait for the OCR lane (a try under way).
func (rb Rebuild) retrying(st hs.FileState) bool {
	return !rb.Since.IsZero() && !st.Updated.Before(rb.Since) && st.Error != "" && st.Error != WaitingForOCR
}

// finish sets p's Progress.
func finishRebuild(p *hs.RebuildProgress) {
	p.Progress = 1
	if p.Total > 0 {
		p.Progress = float64(p.Done) / float64(p.Total)
	}
}

// RebuildStatus reads every file state and tells how far rb has come over
// all files.
func RebuildStatus(ctx context.Context, states StateLister, rb Rebuild) (hs.RebuildProgress, error) {
	p := hs.RebuildProgress{Model: rb.Model}
	err := states.List(ctx, func(st hs.FileState) error {
		rb.count(&p, st)
		return nil
	})
	if err != nil {
		return hs.RebuildProgress{}, fmt.Errorf("rebuild progress: %w", err)
	}
	finishRebuild(&p)
	return p, nil
}

// CaughtUp reports whether the new index holds what the previous one
// serves: Done equals Total.
func CaughtUp(p hs.RebuildProgress) bool { return p.Done >= p.Total }

// summarizeRebuild counts st toward rb's progress in sum when user reads
// it (or for all).
func summarizeRebuild(sum *hs.IndexStatus, rb *Rebuild, st hs.FileState, user hs.UserID, all bool) {
	if rb == nil || !all && !slices.Contains(st.Readers, user) {
		return
	}
	rb.count(sum.Rebuild, st)
}
