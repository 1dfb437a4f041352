package queue

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// BenchmarkPublish measures webhook intake: one Publish of one job per
// event, waiting for the server's ack on durable file storage, from 16
// concurrent callers. It reports events/s and the p50/p99 latency of one
// Publish (the goal is at least 5,000 events/s with p99 at most 20 ms).
func BenchmarkPublish(b *testing.B) {
	q, _, _ := mustOpen(b, Options{Logger: discardLogger()})
	ctx := context.Background()
	var mu sync.Mutex
	lat := make([]time.Duration, 0, b.N)
	var next sync.Mutex
	id := hs.FileID(0)
	b.SetParallelism(8) // 8 × GOMAXPROCS callers, like concurrent webhooks
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		mine := make([]time.Duration, 0, 1024)
		for pb.Next() {
			next.Lock()
			id++
			job := hs.IndexJob{FileID: id, User: "alice", Path: "/bench.md", Event: "NodeWrittenEvent",
				Reason: hs.ReasonEvent, Time: time.Now()}
			next.Unlock()
			t0 := time.Now()
			if err := q.Publish(ctx, job); err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	reportLatency(b, lat, elapsed)
}

// BenchmarkPublishBatch measures a reconciliation scan queueing many files
// in one Publish call.
func BenchmarkPublishBatch(b *testing.B) {
	q, _, _ := mustOpen(b, Options{Logger: discardLogger()})
	const batch = 500
	jobs := make([]hs.IndexJob, batch)
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		for j := range jobs {
			jobs[j] = hs.IndexJob{FileID: hs.FileID(i*batch + j + 1), User: "alice", Reason: hs.ReasonScan, Time: time.Now()}
		}
		if err := q.Publish(context.Background(), jobs...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/time.Since(start).Seconds(), "jobs/s")
}

func reportLatency(b *testing.B, lat []time.Duration, elapsed time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "events/s")
	b.ReportMetric(p(0.50), "p50_ms")
	b.ReportMetric(p(0.99), "p99_ms")
	b.Logf("%d publishes: %.0f events/s, p50 %.2f ms, p99 %.2f ms", len(lat), float64(len(lat))/elapsed.Seconds(), p(0.50), p(0.99))
}
