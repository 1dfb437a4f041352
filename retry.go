package hybridsearch

import "time"

// DefaultMaxTries is RetryPolicy.MaxTries when it is 0.
const DefaultMaxTries = 8

// defaultBackoff is RetryPolicy.Backoff when it is empty.
var defaultBackoff = [...]time.Duration{5 * time.Second, 15 * time.Second, time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour}

// partialMargin is how many tries before MaxTries the pipeline stops
// asking again for a file's missing vectors, so a file indexed without
// some of them never becomes a dead letter (marked failed) for it.
const partialMargin = 2

// RetryPolicy is how often, and after what delays, an index job that
// failed with a retryable error is tried again. The job queue applies it
// (it gives up after MaxTries, writing a dead letter); the indexing
// pipeline reads it to stop asking for more tries of a file indexed
// without some vectors before the queue gives up (PartialTries). Zero
// fields take the defaults.
type RetryPolicy struct {
	// MaxTries is how many times a job is tried before it becomes a
	// dead letter; default DefaultMaxTries (8).
	MaxTries int
	// Backoff is the delay before retry n (Backoff[n-1]); the last entry
	// repeats. Default 5s, 15s, 1m, 5m, 15m, 30m, 1h.
	Backoff []time.Duration
}

// Tries returns MaxTries, or its default.
func (p RetryPolicy) Tries() int {
	if p.MaxTries > 0 {
		return p.MaxTries
	}
	return DefaultMaxTries
}

// Delay returns the wait before the try that follows try number try
// (counted from 1).
func (p RetryPolicy) Delay(try int) time.Duration {
	b := p.Backoff
	if len(b) == 0 {
		b = defaultBackoff[:]
	}
	return b[min(max(try-1, 0), len(b)-1)]
}

// PartialTries is how many times the pipeline tries a file while some
// of its chunks get no dense vector before it settles for the file as
// it is: two fewer than Tries (6 by default), and at least 1.
func (p RetryPolicy) PartialTries() int {
	return max(p.Tries()-partialMargin, 1)
}
