package queue

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// TestOCRLaneDoesNotBlockFreshWork: a job that needs OCR moves to the OCR
// lane, where it runs with IndexJob.OCR set and takes its time (a long
// scan); a text file queued behind it is done at once; an OCR job that
// fails is retried on the OCR lane, not the retry lane.
func TestOCRLaneDoesNotBlockFreshWork(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{Workers: 1, OCRWorkers: 1})
	release := make(chan struct{})
	ocrStarted := make(chan struct{}, 1)
	done := make(chan hs.FileID, 4)
	var ocrRuns, flakyRuns atomic.Int64
	startRun(t, q, func(ctx context.Context, job hs.IndexJob) error {
		switch {
		case job.FileID == 1 && !job.OCR: // a scan, on the fresh lane
			return hs.WrapError(hs.EUNAVAILABLE, hs.ErrNeedsOCR, "needs OCR")
		case job.FileID == 1:
			ocrRuns.Add(1)
			ocrStarted <- struct{}{}
			select { // a 300-page scan
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		case job.FileID == 3 && !job.OCR:
			return hs.WrapError(hs.EUNAVAILABLE, hs.ErrNeedsOCR, "needs OCR")
		case job.FileID == 3:
			if flakyRuns.Add(1) == 1 {
				return hs.Errorf(hs.EUNAVAILABLE, "ollama down")
			}
		}
		done <- job.FileID
		return nil
	})
	mustPublish(t, q, fileJob(1, "NodeCreatedEvent"))
	select {
	case <-ocrStarted:
	case <-time.After(10 * time.Second):
		t.Fatal("the scan never reached the OCR lane")
	}
	mustPublish(t, q, fileJob(2, "NodeCreatedEvent"))
	select {
	case id := <-done:
		if id != 2 {
			t.Fatalf("done = %d, want the text file 2", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a text file waited behind a scan being recognised")
	}
	close(release)
	if id := <-done; id != 1 {
		t.Fatalf("done = %d, want the scan 1", id)
	}
	mustPublish(t, q, fileJob(3, "NodeCreatedEvent"))
	select {
	case id := <-done:
		if id != 3 {
			t.Fatalf("done = %d, want 3", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a failed OCR job was not retried")
	}
	if n := ocrRuns.Load(); n != 1 {
		t.Errorf("the scan was recognised %d times, want 1", n)
	}
	if n := flakyRuns.Load(); n != 2 {
		t.Errorf("the flaky OCR job ran %d times on the OCR lane, want 2", n)
	}
	awaitTrue(t, 5*time.Second, "nothing pending", func() bool {
		n, err := q.Pending(t.Context())
		return err == nil && n == 0
	})
}
