package indexing_test

import (
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/indexing"
)

func TestLiveStatus(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	l := &indexing.Live{Now: func() time.Time { return now }}
	if st := l.Status(); st != nil {
		t.Fatalf("before anything is known: %+v, want nil", st)
	}
	l.SetLive(false, hs.LiveWebhookListenersDisabled, "run occ app:enable webhook_listeners")
	if st := l.Status(); st == nil || st.Enabled || st.ReasonCode != hs.LiveWebhookListenersDisabled || st.Reason == "" {
		t.Fatalf("off: %+v", st)
	}
	l.SetLive(true, "ignored", "ignored")
	// Two hours of deliveries: the older hour does not count. Within the
	// last hour the delays are 1..100 s.
	for i := 1; i <= 100; i++ {
		old := now.Add(-2 * time.Hour)
		l.Delivered(old.Add(-time.Hour), old) // an hour late, two hours ago
		at := now.Add(-time.Duration(i) * time.Second)
		l.Delivered(at.Add(-time.Duration(i)*time.Second), at)
	}
	l.Delivered(time.Time{}, now)            // no event time: not counted
	l.Delivered(now.Add(5*time.Second), now) // the sender's clock is ahead: no delay
	st := l.Status()
	if !st.Enabled || st.ReasonCode != "" || st.Reason != "" {
		t.Errorf("on: %+v", st)
	}
	if st.DeliveriesLastHour != 101 || st.DelayP50Seconds != 50 || st.DelayP95Seconds != 95 {
		t.Errorf("figures = %d deliveries, p50 %.0f s, p95 %.0f s; want 101, 50, 95", st.DeliveriesLastHour, st.DelayP50Seconds, st.DelayP95Seconds)
	}
	// Memory is bounded: only the newest deliveries are kept.
	for i := 0; i < 20000; i++ {
		l.Delivered(now.Add(-3*time.Second), now)
	}
	if st := l.Status(); st.DeliveriesLastHour != 8192 || st.DelayP95Seconds != 3 {
		t.Errorf("after 20,000 deliveries: %+v", st)
	}
}
