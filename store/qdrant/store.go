package qdrant

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// DefaultTimeout bounds each Qdrant call when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Schema is the version of the payload layout the adapter writes. It
// is kept in the collection metadata; a collection of another version is
// refused.
const Schema = 1

// Options configures Open.
type Options struct {
	// URL is the gRPC endpoint, "http://host:6334" or "https://host:6334"
	// (TLS). The port defaults to 6334; empty means http://localhost:6334.
	URL string
	// APIKey, if non-empty, is sent as the api-key of every call.
	APIKey string
	// Collection names the collection; empty means the name derived from
	// Model and Dim (see CollectionName).
	Collection string
	// Dim is the dense dimension. A new collection is created with it and
	// an existing one must have it. Zero adopts an existing collection's
	// dimension and cannot create one.
	Dim int
	// Model names the embedding model. It is kept in the collection
	// metadata, and an existing collection made for another model is
	// refused. Empty skips the model check.
	Model string
	// Timeout bounds every call to Qdrant; zero means DefaultTimeout.
	Timeout time.Duration
	// Logger, if non-nil, receives connection and bootstrap messages; nil
	// means slog.Default().
	Logger *slog.Logger
	// DocFreqTTL is how long SparseDocFreq reuses what it read; zero means
	// DefaultDocFreqTTL, negative reads afresh every time.
	DocFreqTTL time.Duration
}

// Store is the store adapter for a Qdrant server (≥ 1.16; tested against
// the 1.17 API): one collection, one point per chunk with a "dense" cosine
// vector, "bm25" and "trigram" sparse vectors with the IDF modifier, and
// the file's metadata in the payload. It has the method set and contract
// of local.Store, except that writes are not atomic (WriteFile upserts, then
// removes the file's other points), modification times keep whole
// seconds, and among hits tied at the k-th score the server picks which
// are returned (the adapter then orders hits by score, then point id).
// Close it when done.
type Store struct {
	collection string
	dim        int
	timeout    time.Duration
	log        *slog.Logger

	mu     sync.RWMutex // calls hold RLock; Close takes Lock
	client *qc.Client
	closed bool

	dfTTL   time.Duration
	dfMu    sync.Mutex
	dfCache map[string]*docFreqCache // by sparse vector name; see SparseDocFreq
}

// Open connects to Qdrant and bootstraps the collection: it creates it
// when missing (vectors, metadata and payload indexes), or checks an
// existing one's dimension, sparse vectors and metadata (EINVALID naming
// the collection on a mismatch) and adds missing payload indexes. It is
// idempotent and safe when several processes open the same collection at
// once. An unreachable server gives an EUNAVAILABLE error, so the caller
// may retry.
func Open(ctx context.Context, o Options) (*Store, error) {
	cfg, err := qdrantConfig(o)
	if err != nil {
		return nil, err
	}
	if o.Dim < 0 {
		return nil, hs.Errorf(hs.EINVALID, "store: qdrant: negative dimension %d", o.Dim)
	}
	name := o.Collection
	if name == "" {
		if o.Dim == 0 || o.Model == "" {
			return nil, hs.Errorf(hs.EINVALID, "store: qdrant: a collection name, or the model and dimension, are required")
		}
		name = CollectionName(o.Model, o.Dim)
	}
	client, err := qc.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("store: qdrant connect %s: %w", cfg.Host, err)
	}
	q := &Store{collection: name, dim: o.Dim, timeout: o.Timeout, log: o.Logger, client: client}
	if q.timeout <= 0 {
		q.timeout = DefaultTimeout
	}
	q.dfTTL = cmp.Or(o.DocFreqTTL, DefaultDocFreqTTL)
	if q.log == nil {
		q.log = slog.Default()
	}
	if err := q.bootstrap(ctx, o.Model); err != nil {
		client.Close()
		return nil, err
	}
	return q, nil
}

// CollectionName returns the default collection of a model and dimension,
// "hybrid_search_<model>_<dim>", the model lowercased with every run of
// other characters than letters and digits turned into one "_".
func CollectionName(model string, dim int) string {
	var b strings.Builder
	b.WriteString("hybrid_search_")
	under := true
	for _, r := range strings.ToLower(model) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	if !under {
		b.WriteByte('_')
	}
	b.WriteString(strconv.Itoa(dim))
	return b.String()
}

// qdrantConfig turns the options into a client configuration.
func qdrantConfig(o Options) (*qc.Config, error) {
	raw := o.URL
	if raw == "" {
		raw = "http://localhost:6334"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return nil, hs.Errorf(hs.EINVALID, "store: qdrant: URL %q is not http(s)://host[:port]", raw)
	}
	port := 6334
	if p := u.Port(); p != "" {
		port, err = strconv.Atoi(p)
		if err != nil || port <= 0 || port > 65535 {
			return nil, hs.Errorf(hs.EINVALID, "store: qdrant: URL %q has a bad port", raw)
		}
	}
	return &qc.Config{
		Host:   u.Hostname(),
		Port:   port,
		APIKey: o.APIKey,
		UseTLS: u.Scheme == "https",
		// Open reads and logs the version itself, under its timeout.
		SkipCompatibilityCheck: true,
		PoolSize:               1,
		// Pages are sized to stay under 4 MiB (see pageBytes); the raised
		// limit is a margin for a single point larger than estimated.
		GrpcOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxRecvBytes))},
	}, nil
}

// bootstrap checks the server and makes sure the collection is usable.
func (q *Store) bootstrap(ctx context.Context, model string) error {
	var version string
	err := q.call(ctx, "health check", func(ctx context.Context, c *qc.Client) error {
		r, err := c.HealthCheck(ctx)
		version = r.GetVersion()
		return err
	})
	if err != nil {
		return err
	}
	q.log.Info("store: connected to qdrant", slog.String("version", version), slog.String("collection", q.collection))
	if v, err := qc.ParseVersion(version); err == nil && (v.Major < 1 || v.Major == 1 && v.Minor < 16) {
		q.log.Warn("store: qdrant is older than 1.16; collection metadata may be lost", slog.String("version", version))
	}
	var exists bool
	err = q.call(ctx, "collection exists "+q.collection, func(ctx context.Context, c *qc.Client) (err error) {
		exists, err = c.CollectionExists(ctx, q.collection)
		return err
	})
	if err != nil {
		return err
	}
	if !exists {
		if err := q.create(ctx, model); err != nil {
			return err
		}
	}
	return q.check(ctx, model)
}

// create creates the collection. Losing a race with another process that
// creates it at the same time is not an error.
func (q *Store) create(ctx context.Context, model string) error {
	if q.dim <= 0 {
		return hs.Errorf(hs.EINVALID, "store: qdrant collection %q does not exist and no dimension is set to create it", q.collection)
	}
	idf := func() *qc.SparseVectorParams {
		return &qc.SparseVectorParams{Modifier: qc.Modifier_Idf.Enum()}
	}
	req := &qc.CreateCollection{
		CollectionName: q.collection,
		// Qdrant's multitenancy guidance: every search filters on readers,
		// so no global graph (m=0) but one per reader (payload_m=16, built
		// for the readers index only, is_tenant).
		HnswConfig: &qc.HnswConfigDiff{M: qc.PtrOf(uint64(0)), PayloadM: qc.PtrOf(uint64(TenantPayloadM))},
		VectorsConfig: qc.NewVectorsConfigMap(map[string]*qc.VectorParams{
			store.VectorDense: {Size: uint64(q.dim), Distance: qc.Distance_Cosine},
		}),
		SparseVectorsConfig: qc.NewSparseVectorsConfig(map[string]*qc.SparseVectorParams{
			store.VectorBM25: idf(), store.VectorTrigram: idf(),
		}),
		Metadata: map[string]*qc.Value{
			"model":  qc.NewValueString(model),
			"dim":    qc.NewValueInt(int64(q.dim)),
			"schema": qc.NewValueInt(Schema),
		},
	}
	err := q.call(ctx, "create collection "+q.collection, func(ctx context.Context, c *qc.Client) error {
		return c.CreateCollection(ctx, req)
	})
	if err == nil {
		q.log.Info("store: created qdrant collection", slog.String("collection", q.collection), slog.Int("dim", q.dim))
		return nil
	}
	var exists bool
	if e := q.call(ctx, "collection exists "+q.collection, func(ctx context.Context, c *qc.Client) (err error) {
		exists, err = c.CollectionExists(ctx, q.collection)
		return err
	}); e != nil || !exists {
		return err
	}
	return nil // another process created it
}

// payloadIndexes are the payload fields the adapter filters on, with the
// index each gets.
var payloadIndexes = []struct {
	field  string
	typ    qc.FieldType
	schema qc.PayloadSchemaType
}{
	{TenantField, qc.FieldType_FieldTypeKeyword, qc.PayloadSchemaType_Keyword},
	{"file_id", qc.FieldType_FieldTypeInteger, qc.PayloadSchemaType_Integer},
	{"mime", qc.FieldType_FieldTypeKeyword, qc.PayloadSchemaType_Keyword},
	{"type", qc.FieldType_FieldTypeKeyword, qc.PayloadSchemaType_Keyword},
	{"mtime", qc.FieldType_FieldTypeInteger, qc.PayloadSchemaType_Integer},
	{"path_prefixes", qc.FieldType_FieldTypeKeyword, qc.PayloadSchemaType_Keyword},
	{"reader_prefixes", qc.FieldType_FieldTypeKeyword, qc.PayloadSchemaType_Keyword},
	{"hash", qc.FieldType_FieldTypeKeyword, qc.PayloadSchemaType_Keyword},
}

// TenantPayloadM is the payload_m of new collections: the links per point
// of each reader's own HNSW graph.
const TenantPayloadM = 16

// TenantField is the payload field every search filters on: the users who
// can read a point. Its index is the tenant index.
const TenantField = "readers"

// indexParams returns the parameters of field's payload index: the tenant
// index (is_tenant, with its per-tenant HNSW graphs) for the readers, and
// no extra HNSW links for every other field (enable_hnsw=false): nothing
// searches by them alone, they only narrow a reader's results.
func indexParams(field string, typ qc.FieldType) *qc.PayloadIndexParams {
	switch {
	case field == TenantField:
		return qc.NewPayloadIndexParamsKeyword(&qc.KeywordIndexParams{IsTenant: qc.PtrOf(true), EnableHnsw: qc.PtrOf(true)})
	case typ == qc.FieldType_FieldTypeKeyword:
		return qc.NewPayloadIndexParamsKeyword(&qc.KeywordIndexParams{EnableHnsw: qc.PtrOf(false)})
	case typ == qc.FieldType_FieldTypeInteger:
		return qc.NewPayloadIndexParamsInt(&qc.IntegerIndexParams{Lookup: qc.PtrOf(true), Range: qc.PtrOf(true), EnableHnsw: qc.PtrOf(false)})
	}
	return nil
}

// check verifies an existing collection against the options, adopts its
// dimension when none is set and creates missing payload indexes.
func (q *Store) check(ctx context.Context, model string) error {
	var info *qc.CollectionInfo
	err := q.call(ctx, "get collection "+q.collection, func(ctx context.Context, c *qc.Client) (err error) {
		info, err = c.GetCollectionInfo(ctx, q.collection)
		return err
	})
	if err != nil {
		return err
	}
	if err := q.checkConfig(info, model); err != nil {
		return err
	}
	if err := q.migrateHNSW(ctx, info.GetConfig().GetHnswConfig()); err != nil {
		return err
	}
	for _, ix := range payloadIndexes {
		have, ok := info.GetPayloadSchema()[ix.field]
		if ok && have.GetDataType() != ix.schema {
			return hs.Errorf(hs.EINVALID, "store: qdrant collection %q indexes %q as %s, want %s",
				q.collection, ix.field, have.GetDataType(), ix.schema)
		}
		want := indexParams(ix.field, ix.typ)
		if ok && indexParamsMatch(have.GetParams(), want) {
			continue
		}
		if ok {
			// An index made before these parameters (the tenant index
			// without is_tenant, the others with HNSW links): creating it
			// again with other parameters replaces it in place; Qdrant
			// rebuilds it in each segment (lib/segment/src/index/
			// struct_payload_index.rs, build_index: the same schema is a
			// no-op, another is built and applied).
			q.log.Info("store: qdrant payload index updated to the tenant layout", slog.String("collection", q.collection), slog.String("field", ix.field))
		}
		req := &qc.CreateFieldIndexCollection{
			CollectionName: q.collection,
			Wait:           qc.PtrOf(true),
			FieldName:      ix.field,
			FieldType:      ix.typ.Enum(),
		}
		req.FieldIndexParams = want
		if err := q.call(ctx, "create index "+ix.field, func(ctx context.Context, c *qc.Client) error {
			_, err := c.CreateFieldIndex(ctx, req)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// migrateHNSW gives a collection made before the tenant layout (or with
// other HNSW settings) m=0 and payload_m=TenantPayloadM: Qdrant changes
// them in place (UpdateCollection with an hnsw_config diff, the PATCH
// /collections/{name} of its API) and rebuilds the HNSW indexes in the
// background, the points staying searchable meanwhile.
func (q *Store) migrateHNSW(ctx context.Context, h *qc.HnswConfigDiff) error {
	if h.GetM() == 0 && h.GetPayloadM() == TenantPayloadM {
		return nil
	}
	req := &qc.UpdateCollection{CollectionName: q.collection,
		HnswConfig: &qc.HnswConfigDiff{M: qc.PtrOf(uint64(0)), PayloadM: qc.PtrOf(uint64(TenantPayloadM))}}
	if err := q.call(ctx, "update collection "+q.collection, func(ctx context.Context, c *qc.Client) error {
		return c.UpdateCollection(ctx, req)
	}); err != nil {
		return err
	}
	q.log.Info("store: qdrant collection moved to one HNSW graph per reader (m=0, payload_m=16); qdrant rebuilds its index in the background",
		slog.String("collection", q.collection), slog.Uint64("was_m", h.GetM()), slog.Uint64("was_payload_m", h.GetPayloadM()))
	return nil
}

// indexParamsMatch reports whether an index's parameters have what want
// sets, an unset one taking Qdrant's default (enable_hnsw, lookup and
// range true, is_tenant false: collections.proto of go-client v1.17.1).
func indexParamsMatch(have, want *qc.PayloadIndexParams) bool {
	or := func(b *bool, def bool) bool {
		if b == nil {
			return def
		}
		return *b
	}
	switch w := want.GetIndexParams().(type) {
	case *qc.PayloadIndexParams_KeywordIndexParams:
		h := have.GetKeywordIndexParams()
		if h == nil {
			h = &qc.KeywordIndexParams{}
		}
		return or(h.IsTenant, false) == or(w.KeywordIndexParams.IsTenant, false) && or(h.EnableHnsw, true) == or(w.KeywordIndexParams.EnableHnsw, true)
	case *qc.PayloadIndexParams_IntegerIndexParams:
		h := have.GetIntegerIndexParams()
		if h == nil {
			h = &qc.IntegerIndexParams{}
		}
		return or(h.Lookup, true) == or(w.IntegerIndexParams.Lookup, true) && or(h.Range, true) == or(w.IntegerIndexParams.Range, true) &&
			or(h.EnableHnsw, true) == or(w.IntegerIndexParams.EnableHnsw, true)
	}
	return true
}

// checkConfig compares the collection's vectors and metadata with what the
// adapter writes.
func (q *Store) checkConfig(info *qc.CollectionInfo, model string) error {
	bad := func(format string, args ...any) error {
		return hs.Errorf(hs.EINVALID, "store: qdrant collection %q "+format, append([]any{q.collection}, args...)...)
	}
	params := info.GetConfig().GetParams()
	dense := params.GetVectorsConfig().GetParamsMap().GetMap()[store.VectorDense]
	switch {
	case dense == nil:
		return bad("has no %q vector", store.VectorDense)
	case dense.GetDistance() != qc.Distance_Cosine:
		return bad("measures %q by %s, not Cosine", store.VectorDense, dense.GetDistance())
	case q.dim > 0 && int(dense.GetSize()) != q.dim:
		return bad("has dimension %d, not %d: it was made for another model", dense.GetSize(), q.dim)
	}
	q.dim = int(dense.GetSize())
	for _, name := range []string{store.VectorBM25, store.VectorTrigram} {
		sp := params.GetSparseVectorsConfig().GetMap()[name]
		if sp == nil || sp.GetModifier() != qc.Modifier_Idf {
			return bad("has no %q sparse vector with the store.IDF modifier", name)
		}
	}
	md := info.GetConfig().GetMetadata()
	if got := intValue(md["schema"]); got != Schema {
		return bad("has payload schema %d, not %d", got, Schema)
	}
	if got := intValue(md["dim"]); got != int64(q.dim) {
		return bad("metadata says dimension %d, the vectors have %d", got, q.dim)
	}
	if got := md["model"].GetStringValue(); model != "" && got != model {
		return bad("was made for model %q, not %q", got, model)
	}
	return nil
}

// Stats counts the collection's points and files and reports its
// dimension.
func (q *Store) Stats(ctx context.Context) (store.Stats, error) {
	st := store.Stats{Dim: q.dim}
	var n uint64
	err := q.call(ctx, "stats", func(ctx context.Context, c *qc.Client) (err error) {
		n, err = c.Count(ctx, &qc.CountPoints{CollectionName: q.collection, Exact: qc.PtrOf(true)})
		return err
	})
	if err != nil {
		return store.Stats{}, err
	}
	if n == 0 {
		return st, nil
	}
	st.Points = int(n)
	// One facet hit per file: exact, in one request, from the file_id index.
	err = q.call(ctx, "stats", func(ctx context.Context, c *qc.Client) error {
		hits, err := c.Facet(ctx, &qc.FacetCounts{
			CollectionName: q.collection, Key: "file_id", Limit: qc.PtrOf(n), Exact: qc.PtrOf(true),
		})
		st.Files = len(hits)
		return err
	})
	if err != nil {
		return store.Stats{}, err
	}
	return st, nil
}

// Health returns nil while Qdrant answers its health check.
func (q *Store) Health(ctx context.Context) error {
	return q.call(ctx, "health check", func(ctx context.Context, c *qc.Client) error {
		_, err := c.HealthCheck(ctx)
		return err
	})
}

// Close closes the connection; later calls fail with EUNAVAILABLE.
// Closing twice is not an error.
func (q *Store) Close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return nil
	}
	q.closed = true
	if err := q.client.Close(); err != nil {
		return fmt.Errorf("store: qdrant close: %w", err)
	}
	return nil
}

// call runs fn under the per-call timeout and maps its error (see
// qdrantError). op names the operation in the error.
func (q *Store) call(ctx context.Context, op string, fn func(ctx context.Context, c *qc.Client) error) error {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		return hs.Errorf(hs.EUNAVAILABLE, "store: qdrant %s: store closed", op)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: qdrant %s: %w", op, err)
	}
	cctx, cancel := context.WithTimeout(ctx, q.timeout)
	defer cancel()
	if err := fn(cctx, q.client); err != nil {
		return qdrantError(ctx, op, err)
	}
	return nil
}
