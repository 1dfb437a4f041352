package hybridsearch

import (
	"errors"
	"time"
)

// JobReason says why a file is to be looked at again.
type JobReason string

// Job reasons.
const (
	ReasonEvent   JobReason = "event"   // a webhook named the file
	ReasonScan    JobReason = "scan"    // the reconciliation scan found a difference
	ReasonVerify  JobReason = "verify"  // search found the user lost access
	ReasonRetry   JobReason = "retry"   // an admin asked to retry a failed file
	ReasonRequest JobReason = "request" // a user or admin asked for a re-index
	ReasonShare   JobReason = "share"   // the user's list of shares showed a new one
)

// IndexJob is a trigger to bring one file's index entry in step with
// Nextcloud. It carries hints only: the worker re-reads the current state.
type IndexJob struct {
	FileID  FileID    `json:"file_id,omitempty"`  // 0 when the event carried no id
	User    UserID    `json:"user"`               // a user who could see the file
	Path    string    `json:"path,omitempty"`     // path in User's tree, starting with "/"
	OldPath string    `json:"old_path,omitempty"` // for renames: where it was
	Event   string    `json:"event,omitempty"`    // short event name, e.g. "NodeWrittenEvent"
	Reason  JobReason `json:"reason"`
	Time    time.Time `json:"time"`
	// NotBefore, if set, is the earliest time the job should run: a
	// BeforeNodeDeletedEvent arrives before the delete has happened.
	NotBefore time.Time `json:"not_before,omitzero"`
	// OCR says the job runs on the OCR lane, where text is recognised in
	// scans and images; elsewhere such a file ends with ErrNeedsOCR.
	OCR bool `json:"ocr,omitempty"`
}

// ErrNeedsOCR is returned by a job's handler when the file needs text
// recognition, which runs on the queue's OCR lane (IndexJob.OCR) so that a
// long scan never holds back other files.
var ErrNeedsOCR = errors.New("needs OCR")
