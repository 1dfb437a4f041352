package indexing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Pipeline brings one file's index entry in step with Nextcloud per job.
// Required fields: Files, Extract, Chunk, Sparse, Store, States. Embed may
// be nil (no semantic leg); Lease may be nil (a single worker).
type Pipeline struct {
	Files   FileSource
	Extract Extractor
	Chunk   Chunker
	Sparse  SparseFunc
	Embed   Embedder
	Store   ChunkWriter
	States  StateStore
	Lease   Leaser
	// Users, if non-nil, is asked when Nextcloud refuses a call as the
	// job's user: a job for a user that does not exist is dropped at once
	// instead of being retried.
	Users   UserChecker
	Enqueue EnqueueFunc // for folder fan-out; nil disables it
	// Rescan, if non-nil, asks for a reconciliation scan of a user's tree
	// (a deleted folder's files cannot be found by id any more).
	Rescan func(user hs.UserID)
	Rules  Rules
	// Recipients, if non-nil, names who a file reaches through shares of
	// folders above it (*Reach): a file a webhook brings to a user's path
	// is then added for them and its owner, at their own paths (reach.go).
	Recipients RecipientFinder
	// CurrentRules, if non-nil, is asked for the rules on every job instead
	// of Rules, so they can change while the pipeline runs (admin settings).
	CurrentRules func() Rules
	// NotesFolder is the Notes app's folder in each user's tree; default "/Notes".
	NotesFolder string
	// IndexID names the index written to (store kind, embedding model and
	// analyzer version). A file state from another index (the model or the
	// analyzer changed, or semantic search was turned on) is treated as not
	// indexed.
	IndexID string
	// Retry is the queue's retry policy (give it the one the queue has).
	// A file some of whose chunks cannot be embedded (it is indexed for
	// keyword and fuzzy search meanwhile) is tried Retry.PartialTries()
	// times (6 by default, below the queue's 8): Process returns an
	// EUNAVAILABLE error until then, so the queue retries with its
	// backoff, and nil after, before the queue would give up and mark the
	// file failed; a change of the file or a retry request tries again.
	Retry hs.RetryPolicy

	Logger *slog.Logger
	Now    func() time.Time

	embedded, reused, processed atomic.Int64
	marks                       noIndexCache
}

// Counters returns the running totals.
func (p *Pipeline) Counters() hs.Counters {
	return hs.Counters{Processed: p.processed.Load(), Embedded: p.embedded.Load(), Reused: p.reused.Load()}
}

// leaseTTL is how long a file's lease outlives a crashed worker; a live
// holder keeps refreshing it.
const leaseTTL = 30 * time.Second

// Process handles one job. It returns nil when the file's state is final
// (indexed, skipped or failed with a recorded reason), and an error of kind
// EUNAVAILABLE or ECONFLICT when the job should be retried later.
func (p *Pipeline) Process(ctx context.Context, job hs.IndexJob) error {
	p.processed.Add(1)
	if job.User == "" {
		return hs.Errorf(hs.EINVALID, "index job for file %d has no user", job.FileID)
	}
	id := job.FileID
	if id == 0 {
		info, err := p.Files.Stat(ctx, job.User, job.Path)
		if hs.ErrorKind(err) == hs.ENOTFOUND {
			return nil // gone before we looked; a Before* event or the scan covers it
		}
		if p.missingUser(ctx, job.User, err) {
			return errNoUser(job.User)
		}
		if err != nil {
			return fmt.Errorf("stat %s as %s: %w", job.Path, job.User, err)
		}
		id = info.ID
	}
	if path.Base(job.Path) == NoIndexFile || path.Base(job.OldPath) == NoIndexFile {
		// A folder's exclusion changed: the scan finds the files it
		// excludes or brings back.
		p.marks.clear()
		if p.Rescan != nil {
			p.Rescan(job.User)
		}
	}
	if p.Lease != nil {
		release, err := p.Lease.Lease(ctx, fmt.Sprintf("file.%d", id), leaseTTL)
		if err != nil {
			return err
		}
		defer release()
	}
	st, err := p.state(ctx, id)
	if err != nil {
		return err
	}
	info, err := p.Files.FindByID(ctx, job.User, id)
	switch {
	case hs.ErrorKind(err) == hs.ENOTFOUND:
		return p.dropReader(ctx, st, job)
	case p.missingUser(ctx, job.User, err):
		if slices.Contains(st.Readers, job.User) {
			// A deleted user: they can see nothing any more.
			if err := p.dropReader(ctx, st, hs.IndexJob{FileID: id, User: job.User}); err != nil {
				return err
			}
		}
		return errNoUser(job.User)
	case err != nil:
		return fmt.Errorf("find file %d as %s: %w", id, job.User, err)
	case info.IsDir:
		return p.fanOut(ctx, job.User, info)
	}
	fresh := !slices.Contains(st.Readers, job.User) || st.Paths[job.User] != info.Path
	if err := p.sync(ctx, st, job.User, info, job.Reason == hs.ReasonRetry, job.OCR); err != nil {
		return err
	}
	if fresh && job.Reason == hs.ReasonEvent && slices.Contains(st.Readers, job.User) {
		p.reachRecipients(ctx, job.User, info, st, job.Time)
	}
	return nil
}

// missingUser reports whether err, from a call as user, came from a user
// that does not exist in Nextcloud (AppAPI refuses the login).
func (p *Pipeline) missingUser(ctx context.Context, user hs.UserID, err error) bool {
	if p.Users == nil || hs.ErrorKind(err) != hs.EUNAUTHORIZED {
		return false
	}
	ok, cerr := p.Users.UserExists(ctx, user)
	return cerr == nil && !ok
}

// errNoUser is the permanent error of a job whose user does not exist.
func errNoUser(user hs.UserID) error {
	return hs.Errorf(hs.ENOTFOUND, "user %q does not exist in Nextcloud", user)
}

func (p *Pipeline) state(ctx context.Context, id hs.FileID) (*hs.FileState, error) {
	st, _, err := p.States.Get(ctx, id)
	switch {
	case hs.ErrorKind(err) == hs.ENOTFOUND:
		return &hs.FileState{ID: id, Paths: map[hs.UserID]string{}}, nil
	case err != nil:
		return nil, fmt.Errorf("file state %d: %w", id, err)
	}
	if st.Paths == nil {
		st.Paths = map[hs.UserID]string{}
	}
	return &st, nil
}

// sync makes the index match info, which user can see.
// On the OCR lane (ocr) text is also recognised in images and scans;
// elsewhere such a file returns an error wrapping hs.ErrNeedsOCR, which
// moves the job to that lane.
func (p *Pipeline) sync(ctx context.Context, st *hs.FileState, user hs.UserID, info hs.FileInfo, retry, ocr bool) error {
	if st.IndexedPath == "" && st.Status == hs.StatusIndexed {
		p.adoptLegacy(ctx, st, info)
	}
	changed := addReader(st, user, info.Path)
	reason := p.rules().Excluded(info)
	if reason == "" {
		var err error
		if reason, err = p.noIndex(ctx, st, user, info); err != nil {
			return p.pending(ctx, st, info, err)
		}
	}
	if reason != "" {
		return p.finish(ctx, st, info, hs.StatusSkipped, reason)
	}
	ruleLifted := st.Status == hs.StatusSkipped && IsRuleReason(st.Error) // and it no longer applies
	if st.ETag == info.ETag && st.Index == p.IndexID && !ruleLifted && (st.Status == hs.StatusIndexed && !p.vectorsDue(st, retry) || st.Status == hs.StatusSkipped || st.Status == hs.StatusFailed && !retry) {
		if !changed && st.Modified.Equal(info.Modified) {
			return nil // nothing new
		}
		st.Modified = info.Modified
		if st.Status != hs.StatusIndexed {
			return p.putState(ctx, st)
		}
		if err := p.saveEntry(ctx, st, info, retry); !errors.Is(err, errNoChunks) {
			return err
		}
		// The store lacks the chunks to rename: index the content.
	}
	if !p.Extract.Supported(path.Base(info.Path), info.MIME) {
		return p.finish(ctx, st, info, hs.StatusSkipped, "unsupported file type "+info.MIME)
	}
	text, err := p.extract(ctx, user, info, ocr)
	if errors.Is(err, hs.ErrNeedsOCR) {
		return p.awaitOCR(ctx, st, info, err)
	}
	if err != nil {
		switch hs.ErrorKind(err) {
		case hs.EINVALID, hs.ETOOLARGE:
			return p.finish(ctx, st, info, hs.StatusFailed, hs.ErrorMessage(err))
		case hs.ENOTFOUND:
			return p.dropReader(ctx, st, hs.IndexJob{User: user, FileID: info.ID})
		}
		return p.pending(ctx, st, info, err)
	}
	meta := p.meta(st, info, text.Title)
	w, err := p.write(ctx, meta, p.chunksOf(meta.ID, text))
	if err != nil {
		return p.pending(ctx, st, info, err)
	}
	if w.chunks == 0 {
		return p.finish(ctx, st, info, hs.StatusSkipped, "no text to index")
	}
	st.Title = text.Title
	return p.indexed(ctx, st, info, meta, w, retry)
}

// indexed records that the file's points were written as meta (w tells
// how it went) and, for a file with chunks the embedder could not take,
// returns the error that has the queue try it again (partial).
func (p *Pipeline) indexed(ctx context.Context, st *hs.FileState, info hs.FileInfo, meta hs.FileMeta, w written, retry bool) error {
	// Another try at the same content, in the same index: a file's tries
	// in an index before do not count in a new one.
	again := st.NoVectors > 0 && st.ETag == info.ETag && st.Index == p.IndexID && !retry
	setFile(st, info)
	st.Chunks = w.chunks
	st.Status, st.Index, st.IndexedPath = hs.StatusIndexed, p.IndexID, meta.Path
	if w.miss.count == 0 {
		st.Error, st.Attempts, st.NoVectors = "", 0, 0
		return p.putState(ctx, st)
	}
	return p.partial(ctx, st, w, again)
}

// saveEntry saves the state of an indexed file whose content did not
// change, and brings its points in step: their metadata (readers, paths,
// modification time) alone, or, when the path they were written under is
// no longer the file's (a rename or move), what the name feeds too
// (rename).
func (p *Pipeline) saveEntry(ctx context.Context, st *hs.FileState, info hs.FileInfo, retry bool) error {
	if st.IndexedPath == "" {
		p.adoptLegacy(ctx, st, info)
	}
	if canonicalPath(st, info) == st.IndexedPath {
		err := p.Store.UpdateFileMeta(ctx, p.meta(st, info, ""))
		if err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
			return fmt.Errorf("update file %d: %w", info.ID, err)
		}
		return p.putState(ctx, st)
	}
	meta, w, err := p.rename(ctx, st, info)
	if errors.Is(err, errNoChunks) {
		return err
	}
	if err != nil {
		return p.pending(ctx, st, info, err)
	}
	return p.indexed(ctx, st, info, meta, w, retry)
}

// adoptLegacy fills in what a state written before they were kept lacks:
// the path its points were written under (taken to be the path it has
// now) and the document's own title, which the stored points carry when
// it is not the name's.
func (p *Pipeline) adoptLegacy(ctx context.Context, st *hs.FileState, info hs.FileInfo) {
	st.IndexedPath = canonicalPath(st, info)
	if st.Title != "" || p.isNote(st.IndexedPath) {
		return
	}
	pts, err := p.Store.FilePoints(ctx, st.ID, false)
	if err != nil {
		p.logger().Info("the title a file was indexed under is not known; its name gives it", "file_id", st.ID, "error", err)
		return
	}
	if len(pts) > 0 && pts[0].File.Title != nameTitle(st.IndexedPath) {
		st.Title = pts[0].File.Title
	}
}

// saveEntryOrForget is saveEntry for a job that cannot index the file's
// content (it changes readers only): a file whose chunks the store lacks
// is marked for indexing by the next job or scan.
func (p *Pipeline) saveEntryOrForget(ctx context.Context, st *hs.FileState, info hs.FileInfo) error {
	err := p.saveEntry(ctx, st, info, false)
	if !errors.Is(err, errNoChunks) {
		return err
	}
	st.ETag = "" // its content is indexed again
	return p.putState(ctx, st)
}

// partial records a file indexed with some chunks lacking a dense vector
// and returns an EUNAVAILABLE error, so the queue tries it again after
// its backoff, until Retry.PartialTries() tries were made; again says this try
// follows an earlier one of the same content.
func (p *Pipeline) partial(ctx context.Context, st *hs.FileState, w written, again bool) error {
	if !again {
		st.Attempts = 0
	}
	st.Attempts++
	st.NoVectors = w.miss.count
	st.Error = noVectorsMessage(w.miss.count, w.chunks, w.miss.reason)
	if err := p.putState(ctx, st); err != nil {
		return err
	}
	if st.Attempts >= p.vectorRetries() {
		p.logger().Warn("file indexed without some vectors; no more automatic retries",
			"file_id", st.ID, "no_vectors", st.NoVectors, "chunk_count", st.Chunks, "attempts", st.Attempts, slog.Any("error", w.miss.reason))
		return nil
	}
	return hs.WrapError(hs.EUNAVAILABLE, w.miss.reason, fmt.Sprintf("file %d indexed without %d vectors (try %d of %d)", st.ID, st.NoVectors, st.Attempts, p.vectorRetries()))
}

// vectorsDue reports whether an indexed file's missing vectors are to be
// tried again now: on a retry request, or while tries remain.
func (p *Pipeline) vectorsDue(st *hs.FileState, retry bool) bool {
	return st.NoVectors > 0 && (retry || st.Attempts < p.vectorRetries())
}

func (p *Pipeline) vectorRetries() int { return p.Retry.PartialTries() }

// finish records a final non-indexed outcome and removes stale chunks.
func (p *Pipeline) finish(ctx context.Context, st *hs.FileState, info hs.FileInfo, status, reason string) error {
	if err := p.Store.DeleteFile(ctx, info.ID); err != nil {
		return fmt.Errorf("delete chunks of %d: %w", info.ID, err)
	}
	setFile(st, info)
	st.Status, st.Error, st.Chunks, st.Index = status, reason, 0, p.IndexID
	p.logger().Info("file not indexed", "file_id", info.ID, "status", status, "reason", reason)
	return p.putState(ctx, st)
}

// WaitingForOCR is the Error of a file state while its job waits on the
// queue's OCR lane.
const WaitingForOCR = "waiting for text recognition (OCR)"

// awaitOCR records that the file waits for the OCR lane and returns err
// (which wraps hs.ErrNeedsOCR) for the queue to move the job there.
func (p *Pipeline) awaitOCR(ctx context.Context, st *hs.FileState, info hs.FileInfo, err error) error {
	if st.Status == "" {
		st.Status = hs.StatusPending
	}
	st.Error = WaitingForOCR
	if perr := p.putState(ctx, st); perr != nil {
		p.logger().Warn("recording the wait for OCR failed", "file_id", info.ID, "error", perr)
	}
	return err
}

// pending records a transient failure (so status can say why) and returns
// err for the queue to retry.
func (p *Pipeline) pending(ctx context.Context, st *hs.FileState, info hs.FileInfo, err error) error {
	st.Attempts++
	st.Error = hs.ErrorMessage(err)
	if st.Status == "" {
		st.Status = hs.StatusPending
	}
	if perr := p.putState(ctx, st); perr != nil {
		p.logger().Warn("recording pending state failed", "file_id", info.ID, "error", perr)
	}
	if k := hs.ErrorKind(err); k != hs.EUNAVAILABLE && k != hs.ECONFLICT {
		return hs.WrapError(hs.EUNAVAILABLE, err, hs.ErrorMessage(err))
	}
	return err
}

func (p *Pipeline) putState(ctx context.Context, st *hs.FileState) error {
	st.Updated = p.now()
	if err := p.States.Put(ctx, *st); err != nil {
		return fmt.Errorf("save state of %d: %w", st.ID, err)
	}
	return nil
}

// dropReader removes job.User from the file's readers, re-checks the other
// readers, and deletes the file from the index when nobody can see it.
func (p *Pipeline) dropReader(ctx context.Context, st *hs.FileState, job hs.IndexJob) error {
	if len(st.Readers) == 0 {
		if strings.Contains(job.Event, "Delete") && p.Rescan != nil {
			p.Rescan(job.User) // maybe a folder: its files are found by the scan
		}
		return nil
	}
	removeReader(st, job.User)
	for _, other := range slices.Clone(st.Readers) {
		if _, err := p.Files.FindByID(ctx, other, st.ID); hs.ErrorKind(err) == hs.ENOTFOUND || p.missingUser(ctx, other, err) {
			// Gone for them, or they are gone (a deleted owner's files
			// go with them): either way not a reader any more.
			removeReader(st, other)
		} else if err != nil {
			return fmt.Errorf("re-check reader %s of %d: %w", other, st.ID, err)
		}
	}
	if len(st.Readers) == 0 {
		if err := p.Store.DeleteFile(ctx, st.ID); err != nil {
			return fmt.Errorf("delete file %d: %w", st.ID, err)
		}
		if err := p.States.Delete(ctx, st.ID); err != nil && hs.ErrorKind(err) != hs.ENOTFOUND {
			return fmt.Errorf("delete state %d: %w", st.ID, err)
		}
		return nil
	}
	if st.Status == hs.StatusIndexed {
		return p.saveEntryOrForget(ctx, st, hs.FileInfo{ID: st.ID, ETag: st.ETag, MIME: st.MIME, Size: st.Size, Modified: st.Modified})
	}
	return p.putState(ctx, st)
}

// fanOut turns a folder job (a folder was moved, copied or restored) into
// one job per file inside it.
func (p *Pipeline) fanOut(ctx context.Context, user hs.UserID, dir hs.FileInfo) error {
	if p.Enqueue == nil {
		return nil
	}
	var jobs []hs.IndexJob
	queue := []string{dir.Path}
	for len(queue) > 0 {
		entries, err := p.Files.List(ctx, user, queue[0])
		queue = queue[1:]
		if hs.ErrorKind(err) == hs.ENOTFOUND {
			continue
		}
		if err != nil {
			return fmt.Errorf("list %s as %s: %w", dir.Path, user, err)
		}
		for _, e := range entries {
			if e.IsDir {
				queue = append(queue, e.Path)
				continue
			}
			jobs = append(jobs, hs.IndexJob{FileID: e.ID, User: user, Path: e.Path, Reason: hs.ReasonEvent, Time: p.now()})
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	if err := p.Enqueue(ctx, jobs...); err != nil {
		return fmt.Errorf("enqueue %d files of %s: %w", len(jobs), dir.Path, err)
	}
	return nil
}

// meta builds the store metadata of a file from its state and info: its
// title is title, else the document's own (st.Title), else its name's.
func (p *Pipeline) meta(st *hs.FileState, info hs.FileInfo, title string) hs.FileMeta {
	pth := canonicalPath(st, info)
	if title == "" {
		title = st.Title
	}
	if title == "" {
		title = nameTitle(pth)
	}
	typ := hs.DocFile
	if p.isNote(pth) {
		typ = hs.DocNote
		title = nameTitle(pth) // the Notes app's title
	}
	return hs.FileMeta{
		ID: info.ID, Path: pth, Title: title, MIME: info.MIME, Type: typ, Modified: info.Modified,
		ETag: info.ETag, Size: info.Size, Readers: slices.Clone(st.Readers), Paths: maps.Clone(st.Paths),
	}
}

func (p *Pipeline) isNote(pth string) bool {
	folder := p.NotesFolder
	if folder == "" {
		folder = "/Notes"
	}
	if !strings.HasPrefix(pth, strings.TrimSuffix(folder, "/")+"/") {
		return false
	}
	switch strings.ToLower(path.Ext(pth)) {
	case ".md", ".txt", ".markdown", ".org", ".note":
		return true
	}
	return false
}

// rules returns the exclusion rules in force.
func (p *Pipeline) rules() Rules {
	if p.CurrentRules != nil {
		return p.CurrentRules()
	}
	return p.Rules
}

func (p *Pipeline) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *Pipeline) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.Default()
}

// nameTitle is the title a file's name gives: its base name without the
// extension.
func nameTitle(pth string) string {
	return strings.TrimSuffix(path.Base(pth), path.Ext(pth))
}

// canonicalPath is the path shown for a file, and whose title and words
// are indexed: the owner's view when the owner is a reader, else the one
// its points were written under while a reader still sees it there, else
// the first reader's.
func canonicalPath(st *hs.FileState, info hs.FileInfo) string {
	if info.Owner != "" {
		if pth, ok := st.Paths[info.Owner]; ok {
			return pth
		}
	}
	if st.IndexedPath != "" {
		for _, r := range st.Readers {
			if st.Paths[r] == st.IndexedPath {
				return st.IndexedPath
			}
		}
	}
	for _, r := range st.Readers {
		if pth, ok := st.Paths[r]; ok {
			return pth
		}
	}
	return info.Path
}

func setFile(st *hs.FileState, info hs.FileInfo) {
	st.ETag, st.MIME, st.Size, st.Modified = info.ETag, info.MIME, info.Size, info.Modified
}

// addReader records that user sees the file at pth; it reports a change.
func addReader(st *hs.FileState, user hs.UserID, pth string) bool {
	changed := false
	if i, found := slices.BinarySearch(st.Readers, user); !found {
		st.Readers = slices.Insert(st.Readers, i, user)
		changed = true
	}
	if st.Paths[user] != pth {
		st.Paths[user] = pth
		changed = true
	}
	return changed
}

func removeReader(st *hs.FileState, user hs.UserID) {
	if i, found := slices.BinarySearch(st.Readers, user); found {
		st.Readers = slices.Delete(st.Readers, i, i+1)
	}
	delete(st.Paths, user)
}
