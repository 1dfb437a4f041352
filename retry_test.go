package hybridsearch_test

import (
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

func TestRetryPolicy(t *testing.T) {
	tests := []struct {
		name         string
		p            hs.RetryPolicy
		tries        int
		partialTries int
		delays       []time.Duration // Delay(1), Delay(2), ...
	}{
		{name: "defaults: the queue gives up after 8, missing vectors after 6", tries: 8, partialTries: 6,
			delays: []time.Duration{5 * time.Second, 15 * time.Second, time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, time.Hour}},
		{name: "custom, the last delay repeats", p: hs.RetryPolicy{MaxTries: 5, Backoff: []time.Duration{time.Second, 2 * time.Second}}, tries: 5, partialTries: 3,
			delays: []time.Duration{time.Second, 2 * time.Second, 2 * time.Second}},
		{name: "one try still gives missing vectors one", p: hs.RetryPolicy{MaxTries: 1}, tries: 1, partialTries: 1,
			delays: []time.Duration{5 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Tries(); got != tt.tries {
				t.Errorf("Tries() = %d, want %d", got, tt.tries)
			}
			if got := tt.p.PartialTries(); got != tt.partialTries {
				t.Errorf("PartialTries() = %d, want %d", got, tt.partialTries)
			}
			for i, want := range tt.delays {
				if got := tt.p.Delay(i + 1); got != want {
					t.Errorf("Delay(%d) = %v, want %v", i+1, got, want)
				}
			}
		})
	}
}
