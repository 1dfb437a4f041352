package queue

import (
	"strings"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestJobKey(t *testing.T) {
	tests := []struct {
		name     string
		job      hs.IndexJob
		want     string
		wantKind string
	}{
		{"file id", hs.IndexJob{FileID: 437, User: "alice", Path: "/a.md"}, "f.437", ""},
		{"path only", hs.IndexJob{User: "alice", Path: "/x.md"}, "p.", ""},
		{"nothing", hs.IndexJob{User: "alice"}, "", hs.EINVALID},
		{"negative id", hs.IndexJob{FileID: -1}, "", hs.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JobKey(tt.job)
			if kind := hs.ErrorKind(err); kind != tt.wantKind {
				t.Fatalf("JobKey(%+v) error kind = %q (%v), want %q", tt.job, kind, err, tt.wantKind)
			}
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("JobKey(%+v) = %q, want prefix %q", tt.job, got, tt.want)
			}
		})
	}
	a, _ := JobKey(hs.IndexJob{User: "alice", Path: "/x.md"})
	b, _ := JobKey(hs.IndexJob{User: "bob", Path: "/x.md"})
	if a == b || len(a) != len("p.")+16 {
		t.Errorf("path keys %q and %q: want distinct, 16 hex digits", a, b)
	}
}

func TestMsgID(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	base := hs.IndexJob{FileID: 5, User: "bob", Path: "/a b.txt", Event: "NodeWrittenEvent", Reason: hs.ReasonEvent, Time: at}
	tests := []struct {
		name string
		job  hs.IndexJob
		same bool
	}{
		{"identical", base, true},
		{"same instant in another zone", func() hs.IndexJob { j := base; j.Time = at.In(time.FixedZone("x", 3600)); return j }(), true},
		{"other time", func() hs.IndexJob { j := base; j.Time = at.Add(time.Second); return j }(), false},
		{"other event", func() hs.IndexJob { j := base; j.Event = "NodeTouchedEvent"; return j }(), false},
		{"other user", func() hs.IndexJob { j := base; j.User = "carol"; return j }(), false},
		{"other reason", func() hs.IndexJob { j := base; j.Reason = hs.ReasonRetry; return j }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MsgID(tt.job) == MsgID(base); got != tt.same {
				t.Errorf("MsgID equal to base = %v, want %v", got, tt.same)
			}
		})
	}
}

func TestCodec(t *testing.T) {
	job := hs.IndexJob{FileID: 9, User: "alice", Path: "/n.md", OldPath: "/o.md", Event: "NodeRenamedEvent",
		Reason: hs.ReasonEvent, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	data, err := encodeJob(job)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"v":1`) {
		t.Errorf("encoded job %s has no version field", data)
	}
	got, err := decodeJob(data)
	if err != nil {
		t.Fatal(err)
	}
	if got != job {
		t.Errorf("decodeJob(encodeJob(job)) = %+v, want %+v", got, job)
	}
	for _, bad := range []string{`{"v":2,"file_id":1}`, `{"file_id":1}`, `not json`} {
		if _, err := decodeJob([]byte(bad)); err == nil {
			t.Errorf("decodeJob(%s) succeeded, want an error", bad)
		}
	}
}
