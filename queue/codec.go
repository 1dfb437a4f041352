package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// codecVersion is the version of the job encoding; a message with another
// version is refused (Termed) by Run.
const codecVersion = 1

// envelope is a job on the wire: the IndexJob's fields plus "v", and on
// the retry lane the attempt it is and when it is due.
type envelope struct {
	V int `json:"v"`
	hs.IndexJob
	// Attempt is the number of the attempt a retry-lane message is for
	// (2 for the first retry); 0 on the fresh lane.
	Attempt int `json:"attempt,omitempty"`
	// Due is when a retry-lane message may run.
	Due time.Time `json:"due,omitzero"`
}

func encodeJob(job hs.IndexJob) ([]byte, error) {
	return json.Marshal(envelope{V: codecVersion, IndexJob: job})
}

func decodeJob(data []byte) (hs.IndexJob, error) {
	e, err := decodeEnvelope(data)
	return e.IndexJob, err
}

func decodeEnvelope(data []byte) (envelope, error) {
	var e envelope
	if err := json.Unmarshal(data, &e); err != nil {
		return envelope{}, fmt.Errorf("decode job: %w", err)
	}
	if e.V != codecVersion {
		return envelope{}, fmt.Errorf("decode job: version %d, want %d", e.V, codecVersion)
	}
	return e, nil
}

// JobKey returns the key that names a job's file everywhere in the queue:
// "f.<file id>" when the job has a file id, otherwise "p.<hash>" where hash
// is the first 16 hex digits of SHA-256(user + "\x00" + path). The job's
// subject is "hs.jobs." + key; dead letters and the handlers' leases (kv.Store.Lease) use the key.
// A job with neither a file id nor a path is EINVALID.
func JobKey(job hs.IndexJob) (string, error) {
	switch {
	case job.FileID > 0:
		return "f." + strconv.FormatInt(int64(job.FileID), 10), nil
	case job.FileID < 0:
		return "", hs.Errorf(hs.EINVALID, "queue: job: negative file id %d", job.FileID)
	case job.Path == "":
		return "", hs.Errorf(hs.EINVALID, "queue: job: no file id and no path")
	}
	sum := sha256.Sum256([]byte(string(job.User) + "\x00" + job.Path))
	return "p." + hex.EncodeToString(sum[:8]), nil
}

// subject returns the subject a job is published on: "hs.jobs.<key>",
// and for file-id keys one subject per (file, user) — "hs.jobs.f.<id>.u.<16
// hex of SHA-256(user)>" — so the newest trigger per file and user waits:
// a job that adds or removes one reader of a shared file is never replaced
// by another user's event for the same file. The per-file lease keeps the
// jobs of one file from running at the same time.
func subject(job hs.IndexJob, key string) string {
	return laneSubject(subjectRoot, job, key)
}

// retrySubject is subject on the retry lane ("hs.retry....").
func retrySubject(job hs.IndexJob, key string) string {
	return laneSubject(retryRoot, job, key)
}

// ocrSubject is subject on the OCR lane ("hs.ocr....").
func ocrSubject(job hs.IndexJob, key string) string {
	return laneSubject(ocrRoot, job, key)
}

func laneSubject(root string, job hs.IndexJob, key string) string {
	if job.FileID > 0 {
		sum := sha256.Sum256([]byte(job.User))
		return root + "." + key + ".u." + hex.EncodeToString(sum[:8])
	}
	return root + "." + key
}

// fileKey is the JobKey of a file id.
func fileKey(id hs.FileID) string {
	return "f." + strconv.FormatInt(int64(id), 10)
}

// MsgID returns the JetStream message id Publish sets on a job: hex digits
// of SHA-256 over the job's identifying fields (event, file id, path, old
// path, user, reason and time). Two publishes of the same job within the
// stream's two-minute duplicate window store one message, so Nextcloud
// delivering one webhook twice queues it once. Jobs that should not be
// merged must differ in one of these fields, usually Time.
func MsgID(job hs.IndexJob) string {
	h := sha256.New()
	for _, f := range []string{
		"v1", job.Event, strconv.FormatInt(int64(job.FileID), 10), job.Path, job.OldPath,
		string(job.User), string(job.Reason), job.Time.UTC().Format(time.RFC3339Nano),
	} {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// unavailable marks err as EUNAVAILABLE unless it already has a kind or is
// the caller's own cancellation.
func unavailable(err error) error {
	var e *hs.Error
	if err == nil || errors.As(err, &e) || errors.Is(err, context.Canceled) {
		return err
	}
	return hs.WrapError(hs.EUNAVAILABLE, err, "queue unavailable")
}
