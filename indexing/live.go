package indexing

import (
	"slices"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// Live holds what the status says about live updates: whether the app's
// webhooks are registered (SetLive, from the lifecycle) and how late the
// webhooks of the last hour arrived (Delivered, from the webhook intake).
// The zero value is ready; it is safe for concurrent use.
type Live struct {
	// Now, if non-nil, returns the current time (tests).
	Now func() time.Time

	mu      sync.Mutex
	known   bool
	enabled bool
	code    string
	reason  string
	delays  [liveSamples]liveSample // a ring of the newest deliveries
	next    int
	n       int
}

// liveSamples bounds the deliveries the delay figures are computed over:
// the newest ones within liveWindow.
const (
	liveSamples = 8192
	liveWindow  = time.Hour
)

type liveSample struct {
	at    time.Time
	delay float64 // seconds
}

func (l *Live) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// SetLive records whether live updates are on, and if not why (an
// hs.Live* code and a sentence naming the fix).
func (l *Live) SetLive(enabled bool, code, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.known, l.enabled = true, enabled
	l.code, l.reason = "", ""
	if !enabled {
		l.code, l.reason = code, reason
	}
}

// Delivered records a webhook that arrived at arrived for an event at
// event (the envelope's time, whole seconds). A zero event time (none
// given) records nothing; an event time after arrival (clocks apart)
// counts as no delay.
func (l *Live) Delivered(event, arrived time.Time) {
	if event.IsZero() {
		return
	}
	d := max(arrived.Sub(event).Seconds(), 0)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.delays[l.next] = liveSample{at: arrived, delay: d}
	l.next = (l.next + 1) % liveSamples
	l.n = min(l.n+1, liveSamples)
}

// Status returns the live-update status, or nil while the app does not
// know yet whether its webhooks are registered.
func (l *Live) Status() *hs.LiveStatus {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.known {
		return nil
	}
	st := &hs.LiveStatus{Enabled: l.enabled, ReasonCode: l.code, Reason: l.reason}
	var d []float64
	for i := range l.n {
		if s := l.delays[i]; now.Sub(s.at) <= liveWindow {
			d = append(d, s.delay)
		}
	}
	slices.Sort(d)
	st.DeliveriesLastHour = len(d)
	st.DelayP50Seconds, st.DelayP95Seconds = percentile(d, 50), percentile(d, 95)
	return st
}

// percentile is the nearest-rank p-th percentile of sorted d; 0 for none.
func percentile(d []float64, p int) float64 {
	if len(d) == 0 {
		return 0
	}
	rank := (p*len(d) + 99) / 100 // ceil(p/100 * n)
	return d[max(rank, 1)-1]
}
