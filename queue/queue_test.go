package queue

import (
	"context"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/nats-io/nats.go/jetstream"
)

func TestPublishKeepsNewestPerFile(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	for _, ev := range []string{"NodeCreatedEvent", "NodeWrittenEvent", "NodeTouchedEvent"} {
		mustPublish(t, q, fileJob(7, ev))
	}
	mustPublish(t, q, fileJob(8, "NodeWrittenEvent"))
	info, err := q.stream.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := info.State.Msgs, uint64(2); got != want {
		t.Errorf("stream holds %d messages after 3 jobs for file 7 and 1 for file 8, want %d", got, want)
	}
	raw, err := q.stream.GetLastMsgForSubject(t.Context(), subject(fileJob(7, ""), "f.7"))
	if err != nil {
		t.Fatal(err)
	}
	job, err := decodeJob(raw.Data)
	if err != nil {
		t.Fatal(err)
	}
	if job.Event != "NodeTouchedEvent" {
		t.Errorf("waiting job for file 7 has event %q, want the newest, NodeTouchedEvent", job.Event)
	}
	if n, err := q.Pending(t.Context()); err != nil || n != 2 {
		t.Errorf("Pending = %d, %v; want 2", n, err)
	}
}

func TestPublishDropsDuplicates(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	job := fileJob(3, "NodeWrittenEvent")
	mustPublish(t, q, job)
	mustPublish(t, q, job) // Nextcloud delivering the same webhook again
	info, err := q.stream.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.LastSeq != 1 {
		t.Errorf("stream last sequence = %d after a duplicate publish, want 1 (duplicate dropped)", info.State.LastSeq)
	}
	other := job
	other.Time = job.Time.Add(time.Second)
	mustPublish(t, q, other)
	if info, _ = q.stream.Info(t.Context()); info.State.LastSeq != 2 {
		t.Errorf("stream last sequence = %d after a new event, want 2", info.State.LastSeq)
	}
}

func TestPublishPathOnlyJob(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	job := hs.IndexJob{User: "alice", Path: "/gone.md", Event: "NodeDeletedEvent", Reason: hs.ReasonEvent, Time: time.Now()}
	mustPublish(t, q, job)
	key, _ := JobKey(job)
	if _, err := q.stream.GetLastMsgForSubject(t.Context(), "hs.jobs."+key); err != nil {
		t.Errorf("no message on hs.jobs.%s: %v", key, err)
	}
}

func TestPublishInvalidPublishesNothing(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	err := q.Publish(t.Context(), fileJob(1, "NodeWrittenEvent"), hs.IndexJob{User: "alice"})
	if kind := hs.ErrorKind(err); kind != hs.EINVALID {
		t.Fatalf("Publish with a job naming no file: kind %q (%v), want %q", kind, err, hs.EINVALID)
	}
	if n, _ := q.Pending(t.Context()); n != 0 {
		t.Errorf("Pending = %d after a refused batch, want 0", n)
	}
}

func TestPublishUnavailable(t *testing.T) {
	t.Parallel()
	q, s, _ := mustOpen(t, Options{PublishTimeout: 300 * time.Millisecond})
	s.Shutdown()
	start := time.Now()
	err := q.Publish(context.Background(), fileJob(1, "NodeWrittenEvent"))
	if kind := hs.ErrorKind(err); kind != hs.EUNAVAILABLE {
		t.Fatalf("Publish with NATS down: kind %q (%v), want %q", kind, err, hs.EUNAVAILABLE)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Publish with NATS down took %s, want about the 300ms publish timeout", d)
	}
}

func TestPublishMany(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	jobs := make([]hs.IndexJob, 2500) // more than one publish window
	for i := range jobs {
		jobs[i] = fileJob(hs.FileID(i+1), "scan")
	}
	mustPublish(t, q, jobs...)
	if n, err := q.Pending(t.Context()); err != nil || n != len(jobs) {
		t.Errorf("Pending = %d, %v; want %d", n, err, len(jobs))
	}
}

func TestOpenIsIdempotent(t *testing.T) {
	t.Parallel()
	q, _, nc := mustOpen(t, Options{Workers: 2})
	mustPublish(t, q, fileJob(1, "NodeWrittenEvent"))
	for _, o := range []Options{{Workers: 2}, {Workers: 6, AckWait: 7 * time.Second, MaxAckPending: 50}} {
		o.Logger = testLogger(t)
		q2, err := Open(t.Context(), nc, fast(o))
		if err != nil {
			t.Fatalf("Open again with %+v: %v", o, err)
		}
		ci, err := q2.consumer.Info(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if ci.Config.AckWait != fast(o).AckWait || ci.Config.MaxAckPending != q2.opts.MaxAckPending {
			t.Errorf("consumer config AckWait %s MaxAckPending %d, want %s %d",
				ci.Config.AckWait, ci.Config.MaxAckPending, fast(o).AckWait, q2.opts.MaxAckPending)
		}
		if n, _ := q2.Pending(t.Context()); n != 1 {
			t.Errorf("Pending after reopening = %d, want the 1 queued job", n)
		}
	}
	js, _ := jetstream.New(nc)
	names := js.StreamNames(t.Context())
	var got []string
	for n := range names.Name() {
		got = append(got, n)
	}
	if len(got) != 4 { // jobs stream, retry and OCR lanes, dead letters (kv has the other buckets)
		t.Errorf("streams after three Opens = %v, want 4", got)
	}
}

// Jobs of different users for one file do not replace each other: a job
// that adds or drops bob as a reader must survive alice's next event.
func TestPerUserSubjects(t *testing.T) {
	t.Parallel()
	q, _, _ := mustOpen(t, Options{})
	a := fileJob(9, "NodeWrittenEvent")
	b := a
	b.User, b.Event = "bob", "scan"
	mustPublish(t, q, b)
	mustPublish(t, q, a)
	info, err := q.stream.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 2 {
		t.Errorf("stream holds %d messages for two users' jobs on one file, want 2", info.State.Msgs)
	}
}
