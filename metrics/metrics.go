// Package metrics holds the app's Prometheus collectors and serves them.
// The other packages do not import it: they report through small
// interfaces or func fields of their own, which main wires to a *Metrics.
// Every name is prefixed hybridsearch_.
package metrics

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every metric name.
const namespace = "hybridsearch"

// latencyBuckets span a cached query (100 µs) to a slow embed batch (1 min).
var latencyBuckets = []float64{.0001, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// Metrics holds the collectors of one process. Its methods are safe for
// concurrent use and do nothing on a nil *Metrics.
type Metrics struct {
	reg *prometheus.Registry

	webhookReceived *prometheus.CounterVec
	webhookRejected *prometheus.CounterVec
	jobs            *prometheus.CounterVec
	files           prometheus.Counter
	chunks          prometheus.Counter
	embedBatchSize  *prometheus.HistogramVec
	embedSeconds    *prometheus.HistogramVec
	embedErrors     *prometheus.CounterVec
	storeSeconds    *prometheus.HistogramVec
	storeErrors     *prometheus.CounterVec
	legSeconds      *prometheus.HistogramVec
	searchSeconds   *prometheus.HistogramVec
	mcpCalls        *prometheus.CounterVec
	mcpSeconds      *prometheus.HistogramVec
}

// New returns a Metrics with its own registry, holding the Go runtime and
// process collectors besides the app's.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		webhookReceived: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_events_received_total",
			Help: "Webhook events accepted and queued, by event class (short name)."}, []string{"event"}),
		webhookRejected: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_events_rejected_total",
			Help: "Webhook requests refused, by reason (invalid, unauthorized, too_large, unavailable, ...)."}, []string{"reason"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "jobs_total",
			Help: "Index jobs handled, by outcome (done, dropped, retry, busy, dead, interrupted)."}, []string{"outcome"}),
		files: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "files_indexed_total",
			Help: "Files whose chunks were written to the index."}),
		chunks: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "chunks_indexed_total",
			Help: "Chunks written to the index."}),
		embedBatchSize: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "embed_batch_size",
			Help: "Inputs per /api/embed request, by Ollama host.", Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128}}, []string{"host"}),
		embedSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "embed_batch_duration_seconds",
			Help: "Duration of /api/embed requests, by Ollama host.", Buckets: latencyBuckets}, []string{"host"}),
		embedErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "embed_errors_total",
			Help: "Failed /api/embed requests, by Ollama host."}, []string{"host"}),
		storeSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "store_operation_duration_seconds",
			Help: "Duration of index store operations, by store kind (local, qdrant) and operation.", Buckets: latencyBuckets}, []string{"store", "op"}),
		storeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "store_errors_total",
			Help: "Failed index store operations, by store kind and operation."}, []string{"store", "op"}),
		legSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "search_leg_duration_seconds",
			Help: "Duration of one search leg's retrieval (semantic includes embedding the query), by leg.", Buckets: latencyBuckets}, []string{"leg"}),
		searchSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "search_duration_seconds",
			Help: "Duration of whole searches, by algorithm (hybrid, semantic, keyword, fuzzy).", Buckets: latencyBuckets}, []string{"algorithm"}),
		mcpCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "mcp_tool_calls_total",
			Help: "MCP tool calls, by tool and outcome (ok or the error kind)."}, []string{"tool", "outcome"}),
		mcpSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "mcp_tool_call_duration_seconds",
			Help: "Duration of MCP tool calls, by tool.", Buckets: latencyBuckets}, []string{"tool"}),
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.webhookReceived, m.webhookRejected, m.jobs, m.files, m.chunks,
		m.embedBatchSize, m.embedSeconds, m.embedErrors, m.storeSeconds, m.storeErrors,
		m.legSeconds, m.searchSeconds, m.mcpCalls, m.mcpSeconds,
	)
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Timeout: 10 * time.Second, MaxRequestsInFlight: 4})
}

// WebhookReceived counts one accepted webhook event.
func (m *Metrics) WebhookReceived(event string) {
	if m != nil {
		m.webhookReceived.WithLabelValues(event).Inc()
	}
}

// WebhookRejected counts one refused webhook request.
func (m *Metrics) WebhookRejected(reason string) {
	if m != nil {
		m.webhookRejected.WithLabelValues(reason).Inc()
	}
}

// Job counts one index job's outcome.
func (m *Metrics) Job(outcome string) {
	if m != nil {
		m.jobs.WithLabelValues(outcome).Inc()
	}
}

// Indexed counts files and chunks written to the index.
func (m *Metrics) Indexed(files, chunks int) {
	if m != nil {
		m.files.Add(float64(files))
		m.chunks.Add(float64(chunks))
	}
}

// EmbedBatch records one /api/embed request to host.
func (m *Metrics) EmbedBatch(host string, size int, d time.Duration, err error) {
	if m == nil {
		return
	}
	m.embedBatchSize.WithLabelValues(host).Observe(float64(size))
	m.embedSeconds.WithLabelValues(host).Observe(d.Seconds())
	if failed(err) {
		m.embedErrors.WithLabelValues(host).Inc()
	}
}

// StoreOp records one index store operation.
func (m *Metrics) StoreOp(store, op string, d time.Duration, err error) {
	if m == nil {
		return
	}
	m.storeSeconds.WithLabelValues(store, op).Observe(d.Seconds())
	if failed(err) {
		m.storeErrors.WithLabelValues(store, op).Inc()
	}
}

// failed reports whether err counts as an error: a call cancelled because
// its caller went away (a search whose client disconnected) does not.
func failed(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled)
}

// SearchLeg records one search leg's retrieval.
func (m *Metrics) SearchLeg(leg string, d time.Duration) {
	if m != nil {
		m.legSeconds.WithLabelValues(leg).Observe(d.Seconds())
	}
}

// Search records one whole search.
func (m *Metrics) Search(algorithm string, d time.Duration) {
	if m != nil {
		m.searchSeconds.WithLabelValues(algorithm).Observe(d.Seconds())
	}
}

// MCPCall records one MCP tool call.
func (m *Metrics) MCPCall(tool, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.mcpCalls.WithLabelValues(tool, outcome).Inc()
	m.mcpSeconds.WithLabelValues(tool).Observe(d.Seconds())
}

// BacklogFunc reports the jobs waiting or running and when the oldest of
// them was queued (zero when none).
type BacklogFunc func(ctx context.Context) (jobs int, oldest time.Time, err error)

// WatchBacklog exports f's answer, asked at each scrape, as
// hybridsearch_queue_depth and hybridsearch_queue_oldest_job_age_seconds.
// Call it once.
func (m *Metrics) WatchBacklog(f BacklogFunc) {
	if m != nil {
		m.reg.MustRegister(backlog{f: f})
	}
}

var (
	depthDesc = prometheus.NewDesc(namespace+"_queue_depth", "Index jobs waiting or in progress (fresh and retry lanes).", nil, nil)
	ageDesc   = prometheus.NewDesc(namespace+"_queue_oldest_job_age_seconds", "Age of the oldest job still in the queue (0 when empty).", nil, nil)
	upDesc    = prometheus.NewDesc(namespace+"_queue_up", "1 when the queue answered the last scrape, else 0.", nil, nil)
)

// backlogTimeout bounds the queue look-up of one scrape.
const backlogTimeout = 3 * time.Second

// backlog collects the queue gauges at scrape time.
type backlog struct{ f BacklogFunc }

func (b backlog) Describe(ch chan<- *prometheus.Desc) { ch <- depthDesc; ch <- ageDesc; ch <- upDesc }

func (b backlog) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), backlogTimeout)
	defer cancel()
	n, oldest, err := b.f(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, 0)
		return
	}
	age := 0.0
	if !oldest.IsZero() {
		age = max(time.Since(oldest).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(depthDesc, prometheus.GaugeValue, float64(n))
	ch <- prometheus.MustNewConstMetric(ageDesc, prometheus.GaugeValue, age)
}
