package app

import (
	"context"
	"log/slog"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/handlers"
)

// storeKind names the store of c for the metrics: "qdrant" or "local".
func storeKind(c Config) string {
	if c.QdrantURL != "" {
		return "qdrant"
	}
	return "local"
}

// observedStore times the store operations the pipeline and the search
// legs call, and counts the files and chunks written. It passes
// everything else through.
type observedStore struct {
	indexStore
	kind    string
	observe func(store, op string, d time.Duration, err error)
	indexed func(files, chunks int)
}

func (s *observedStore) done(op string, start time.Time, err error) error {
	s.observe(s.kind, op, time.Since(start), err)
	return err
}

func (s *observedStore) WriteFile(ctx context.Context, meta hs.FileMeta, points []hs.Point) error {
	err := s.done("write_file", time.Now(), s.indexStore.WriteFile(ctx, meta, points))
	if err == nil {
		s.indexed(1, len(points))
	}
	return err
}

func (s *observedStore) UpsertPoints(ctx context.Context, meta hs.FileMeta, points []hs.Point) error {
	return s.done("upsert_points", time.Now(), s.indexStore.UpsertPoints(ctx, meta, points))
}

// TrimFile ends the write of a file written batch by batch: keep is its
// number of chunks.
func (s *observedStore) TrimFile(ctx context.Context, id hs.FileID, keep int) error {
	err := s.done("trim_file", time.Now(), s.indexStore.TrimFile(ctx, id, keep))
	if err == nil {
		s.indexed(1, keep)
	}
	return err
}

func (s *observedStore) UpdateFileMeta(ctx context.Context, meta hs.FileMeta) error {
	return s.done("update_file_meta", time.Now(), s.indexStore.UpdateFileMeta(ctx, meta))
}

func (s *observedStore) DeleteFile(ctx context.Context, id hs.FileID) error {
	return s.done("delete_file", time.Now(), s.indexStore.DeleteFile(ctx, id))
}

func (s *observedStore) VectorsByHash(ctx context.Context, hashes []string) (map[string][]float32, error) {
	start := time.Now()
	v, err := s.indexStore.VectorsByHash(ctx, hashes)
	return v, s.done("vectors_by_hash", start, err)
}

func (s *observedStore) SearchDense(ctx context.Context, user hs.UserID, vec []float32, k int, f hs.Filter) ([]hs.Hit, error) {
	start := time.Now()
	hits, err := s.indexStore.SearchDense(ctx, user, vec, k, f)
	return hits, s.done("search_dense", start, err)
}

func (s *observedStore) SearchSparse(ctx context.Context, user hs.UserID, vector string, q hs.SparseVector, k int, f hs.Filter) ([]hs.Hit, error) {
	start := time.Now()
	hits, err := s.indexStore.SearchSparse(ctx, user, vector, q, k, f)
	return hits, s.done("search_sparse", start, err)
}

func (s *observedStore) ReadChunks(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error) {
	start := time.Now()
	read, err := s.indexStore.ReadChunks(ctx, user, hits)
	return read, s.done("read_chunks", start, err)
}

func (s *observedStore) ReadTerms(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error) {
	start := time.Now()
	read, err := s.indexStore.ReadTerms(ctx, user, hits)
	return read, s.done("read_terms", start, err)
}

// ops are the operator endpoints: the metrics and the readiness checks
// (NATS, the store and Nextcloud must answer; the embedder is reported).
func (m *App) ops() *handlers.Ops {
	return &handlers.Ops{
		Metrics: m.Metrics.Handler(),
		Checks: []handlers.ReadyCheck{
			{Name: "nats", Fatal: true, Run: m.checkNATS},
			{Name: "store", Fatal: true, Run: m.engines.storeHealth},
			{Name: "nextcloud", Fatal: true, Run: m.pingNextcloud},
			{Name: "embedder", Run: m.engines.embedderHealth},
		},
	}
}

// listenOps serves the operator endpoints alone on METRICS_ADDR (the
// worker's only listener; beside the HaRP socket for serve), if set.
func (m *App) listenOps() error {
	if m.Config.MetricsAddr == "" {
		return nil
	}
	return m.http.listenOps(m.Config.MetricsAddr, handlers.OpsHandler(m.ops()), m.Logger)
}

// OpsAddr returns where METRICS_ADDR listens ("" when it is not set).
func (m *App) OpsAddr() string { return m.http.opsAddr() }

// requestIDHandler adds the request id of a log call's context
// (hs.RequestIDFromContext) to its record as request_id.
type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := hs.RequestIDFromContext(ctx); id != "" {
		r = r.Clone()
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(as)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}
