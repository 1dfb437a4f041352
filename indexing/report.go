package indexing

import (
	"context"
	"errors"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Check probes one component; nil means healthy.
type Check func(ctx context.Context) error

// Reporter answers "how far is indexing, and is everything healthy?" for
// the status API and the status command.
type Reporter struct {
	Version  string
	States   StateLister
	Pending  func(ctx context.Context) (int, error) // jobs waiting or in flight
	Scanner  *Scanner                               // may be nil
	Pipeline *Pipeline                              // may be nil
	Checks   map[string]Check                       // by component: "nats", "nextcloud", "store", "embedder"
	// Embedders, if non-nil, reports each embedding host's health. The
	// "embedder" component is then healthy while any host is (unless a
	// check of that name says otherwise), and while none is the queue
	// reads "paused": nothing that needs vectors can be indexed.
	Embedders func(ctx context.Context) []hs.HostHealth
	// IsAdmin, if non-nil, decides who may ask for every user's status and
	// who sees the instance's figures; nil means nobody.
	IsAdmin func(ctx context.Context, user hs.UserID) (bool, error)
	// Live, if non-nil, reports whether file changes arrive as webhooks
	// (*Live.Status); every user sees it.
	Live func() *hs.LiveStatus
	// Rebuild, if non-nil, returns the new index being filled while
	// another serves searches, or nil: the status then tells its
	// progress (IndexStatus.Rebuild) besides the serving index's.
	Rebuild func() *Rebuild

	mu     sync.Mutex
	sample struct {
		at        time.Time
		processed int64
	}
	rate float64 // jobs per second over the last sampling window
}

// pausedNoEmbedder is hs.QueueStatus.PausedReason while no embedding host
// answers.
const pausedNoEmbedder = "no embedding host answers"

// Status reports for user; with all, every user's counts (admins only).
// Admins also see the instance's figures (the whole queue, its rate, the
// scan, the pipeline's counters); other users see only their own files:
// the queue figure is their own pending files, and error texts name no
// internal addresses (see hs.RedactEndpoints).
func (r *Reporter) Status(ctx context.Context, user hs.UserID, all bool) (hs.IndexStatus, error) {
	if user == "" {
		return hs.IndexStatus{}, hs.Errorf(hs.EUNAUTHORIZED, "status needs a signed-in user")
	}
	admin := false
	if r.IsAdmin != nil {
		ok, err := r.IsAdmin(ctx, user)
		if err != nil && all {
			return hs.IndexStatus{}, err
		}
		admin = ok && err == nil
	}
	if all && !admin {
		return hs.IndexStatus{}, hs.Errorf(hs.EFORBIDDEN, "only admins may see every user's status")
	}
	rep := hs.IndexStatus{Problems: []hs.Problem{}}
	if r.States != nil {
		var err error
		var rb *Rebuild
		if r.Rebuild != nil {
			rb = r.Rebuild()
		}
		if rep, err = summarize(ctx, r.States, user, all, rb); err != nil {
			return hs.IndexStatus{}, err
		}
	}
	rep.Version, rep.User = r.Version, user
	if r.Live != nil {
		rep.Live = r.Live()
	}
	rep.Components, rep.Embedders = r.health(ctx)
	emb, ok := rep.Components["embedder"]
	embedderDown := ok && !emb.OK
	if !admin {
		rep.Queue = hs.QueueStatus{Pending: rep.Files.Pending}
		rep.Embedders = nil
		if r.Scanner != nil {
			// While the first full scan runs, a user's own counts cannot
			// tell how much is still to come: say that it runs.
			if p := r.Scanner.Progress(); p.Running && p.Initial {
				rep.Scan = &hs.ScanProgress{Running: true, Initial: true, Started: p.Started}
			}
		}
		pause(&rep.Queue, embedderDown)
		redactReport(&rep)
		finish(&rep)
		return rep, nil
	}
	if r.Pending != nil {
		n, err := r.Pending(ctx)
		if err != nil {
			rep.Queue.Error = hs.ErrorMessage(err)
		}
		rep.Queue.Pending = n
	}
	if r.Pipeline != nil {
		c := r.Pipeline.Counters()
		rep.Counters = &c
		rep.Queue.JobsPerSecond = r.observe(c.Processed)
		if rep.Queue.Pending > 0 && rep.Queue.JobsPerSecond > 0 {
			rep.Queue.ETASeconds = float64(rep.Queue.Pending) / rep.Queue.JobsPerSecond
		}
	}
	if r.Scanner != nil {
		p := r.Scanner.Progress()
		rep.Scan = &p
	}
	pause(&rep.Queue, embedderDown)
	finish(&rep)
	return rep, nil
}

// finish fills in the figures derived from the rest of rep: progress
// and overall health.
func finish(rep *hs.IndexStatus) {
	f := rep.Files
	rep.Progress = 1
	if total := f.Indexed + f.Skipped + f.Failed + f.Pending; total > 0 {
		rep.Progress = float64(f.Indexed+f.Skipped+f.Failed) / float64(total)
	}
	rep.Healthy = rep.Queue.Error == ""
	for _, c := range rep.Components {
		rep.Healthy = rep.Healthy && c.OK
	}
}

// pause marks q paused while work waits and no embedder answers.
func pause(q *hs.QueueStatus, embedderDown bool) {
	if embedderDown && q.Pending > 0 {
		q.Paused, q.PausedReason, q.ETASeconds = true, pausedNoEmbedder, 0
	}
}

// componentStatus is the status a check's answer gives: healthy, healthy
// with a note (*hs.ComponentNote), or failing with its message and code.
func componentStatus(err error) hs.ComponentStatus {
	var note *hs.ComponentNote
	switch {
	case err == nil:
		return hs.ComponentStatus{OK: true}
	case errors.As(err, &note):
		return hs.ComponentStatus{OK: true, Code: note.Code, Note: note.Message, Detail: note.Detail}
	}
	return hs.ComponentStatus{Error: hs.ErrorMessage(err), Code: hs.ErrorCode(err)}
}

// redactReport removes what is the admins' business from a report meant
// for a user who is not: the components' texts (what to install, which
// setting is wrong), which the codes stand in for, and internal addresses
// from the texts about the user's own files.
func redactReport(rep *hs.IndexStatus) {
	for name, c := range rep.Components {
		c.Note, c.Detail = "", nil
		if !c.OK {
			c.Error = "not working; an administrator can see why"
		}
		rep.Components[name] = c
	}
	for i := range rep.Problems {
		rep.Problems[i].Error = hs.RedactEndpoints(rep.Problems[i].Error)
	}
}

// observe updates the processing rate from the running job count.
func (r *Reporter) observe(processed int64) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if r.sample.at.IsZero() {
		r.sample.at, r.sample.processed = now, processed
		return 0
	}
	if d := now.Sub(r.sample.at); d >= 2*time.Second {
		r.rate = float64(processed-r.sample.processed) / d.Seconds()
		r.sample.at, r.sample.processed = now, processed
	}
	return r.rate
}

// health runs every check and asks the embedding hosts, concurrently,
// each bounded to 3 s.
func (r *Reporter) health(ctx context.Context) (map[string]hs.ComponentStatus, []hs.HostHealth) {
	var hosts []hs.HostHealth
	var wg sync.WaitGroup
	if r.Embedders != nil {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			hosts = r.Embedders(cctx)
		})
	}
	out := r.components(ctx)
	wg.Wait()
	if len(hosts) > 0 {
		c := hs.ComponentStatus{Error: pausedNoEmbedder, Code: hs.ComponentNoEmbeddingHost}
		for _, h := range hosts {
			if h.OK {
				c = hs.ComponentStatus{OK: true}
				break
			}
		}
		if !c.OK && hosts[0].Error != "" {
			c.Error = hosts[0].Error
		}
		if prev, ok := out["embedder"]; !ok || prev.OK && !c.OK {
			out["embedder"] = c
		}
	}
	return out, hosts
}

// components runs every check concurrently, each bounded to 3 s.
func (r *Reporter) components(ctx context.Context) map[string]hs.ComponentStatus {
	out := map[string]hs.ComponentStatus{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, check := range r.Checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			st := componentStatus(check(cctx))
			mu.Lock()
			out[name] = st
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}
