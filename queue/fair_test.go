package queue

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestTurns(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tr := newTurns(1)
	tr.now = func() time.Time { return now }
	release, _ := tr.take("carol")
	if release == nil {
		t.Fatal("carol's first retry must run")
	}
	// While hers runs, her next retries get turns one pace apart (the
	// first pace, with a quarter to spare); alice's runs at once.
	var turns []time.Time
	for range 3 {
		rel, turn := tr.take("carol")
		if rel != nil {
			t.Fatal("a second retry of carol's ran while one runs")
		}
		turns = append(turns, turn)
	}
	step := firstPace * 5 / 4
	for i, turn := range turns {
		if want := now.Add(time.Duration(i+1) * step); !turn.Equal(want) {
			t.Errorf("turn %d = %s, want %s", i, turn.Sub(now), want.Sub(now))
		}
	}
	if rel, _ := tr.take("alice"); rel == nil {
		t.Error("alice's retry waits for carol's")
	} else {
		rel()
	}
	now = now.Add(10 * time.Millisecond)
	release()
	if len(tr.users) != 1 {
		t.Errorf("%d users kept, want carol only (her turns are ahead)", len(tr.users))
	}
	// Her pace follows how long her retries take.
	if p, want := tr.users["carol"].pace, (3*firstPace+10*time.Millisecond)/4; p != want {
		t.Errorf("pace after a 10 ms retry = %s, want %s", p, want)
	}
	// Once her last turn has passed and nothing runs, she is forgotten.
	now = now.Add(time.Second)
	rel, _ := tr.take("carol")
	now = now.Add(time.Millisecond)
	rel()
	if len(tr.users) != 0 {
		t.Errorf("%d users kept after everything ended, want none", len(tr.users))
	}
}

func TestTurnsPerUser(t *testing.T) {
	for _, tt := range []struct{ workers, perUser, want int }{
		{0, 0, 1}, {4, 0, 1}, {4, 3, 3}, {4, 9, 3}, {1, 0, 1}, {1, 5, 5},
	} {
		o := Options{RetryWorkers: tt.workers, RetryPerUser: tt.perUser}.withDefaults()
		if o.RetryPerUser != tt.want {
			t.Errorf("RetryWorkers %d, RetryPerUser %d: cap %d, want %d", tt.workers, tt.perUser, o.RetryPerUser, tt.want)
		}
	}
}

// TestAwaitTurnKeepsDeliveries: a retry put back for its turn many times
// goes on as a new message with the same attempt, so the deliveries kept
// for lost workers are never used up by waiting.
func TestAwaitTurnKeepsDeliveries(t *testing.T) {
	q, _, _ := mustOpen(t, Options{})
	job := fileJob(7, "NodeWrittenEvent")
	key, _ := JobKey(job)
	if err := q.scheduleRetry(t.Context(), key, job, 3, time.Now()); err != nil {
		t.Fatal(err)
	}
	fetch := func() (jetstream.Msg, *jetstream.MsgMetadata) {
		t.Helper()
		batch, err := q.retrier.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		msg, ok := <-batch.Messages()
		if !ok {
			t.Fatal("no retry delivered")
		}
		md, err := msg.Metadata()
		if err != nil {
			t.Fatal(err)
		}
		return msg, md
	}
	var msg jetstream.Msg
	var md *jetstream.MsgMetadata
	for range retryLaneMaxDeliver / 2 {
		msg, md = fetch()
		if int(md.NumDelivered) < retryLaneMaxDeliver/2 {
			_ = msg.Nak()
		}
	}
	q.awaitTurn(t.Context(), msg, md, key, job, 3, time.Now())
	next, nmd := fetch()
	env, err := decodeEnvelope(next.Data())
	if err != nil {
		t.Fatal(err)
	}
	if nmd.NumDelivered != 1 || nmd.Sequence.Stream == md.Sequence.Stream || env.Attempt != 3 || env.FileID != job.FileID || env.User != job.User {
		t.Errorf("after the turn: delivery %d, seq %d (was %d), attempt %d, job %d/%s; want a new message of attempt 3",
			nmd.NumDelivered, nmd.Sequence.Stream, md.Sequence.Stream, env.Attempt, env.FileID, env.User)
	}
	if n, _ := q.Pending(t.Context()); n != 1 {
		t.Errorf("Pending = %d, want the one retry", n)
	}
}
