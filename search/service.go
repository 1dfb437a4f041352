package search

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// QueryEmbedder embeds a search query, adding the model's query prefix
// (*embedding.Ollama does, and caches the vector).
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// DenseRetriever finds the user's chunks nearest to a vector by cosine
// similarity, best first. It must return only chunks whose readers include
// user, and honour the filter inside the query.
type DenseRetriever interface {
	SearchDense(ctx context.Context, user hs.UserID, vec []float32, k int, f hs.Filter) ([]hs.Hit, error)
}

// SparseRetriever finds the user's chunks with the best scores for a sparse
// query on the named vector ("bm25" or "trigram"), best first. It must
// return only chunks whose readers include user, and honour the filter
// inside the query.
type SparseRetriever interface {
	SearchSparse(ctx context.Context, user hs.UserID, vector string, q hs.SparseVector, k int, f hs.Filter) ([]hs.Hit, error)
}

// AccessChecker looks a file up by id as a user (Nextcloud's own access
// check, *nextcloud.Client). An error of kind ENOTFOUND means the user
// cannot reach the file (any more).
type AccessChecker interface {
	FindByID(ctx context.Context, user hs.UserID, id hs.FileID) (hs.FileInfo, error)
}

// DefaultAccessCacheTTL is how long an access check's answer is reused
// when Options.AccessCacheTTL is zero.
const DefaultAccessCacheTTL = 30 * time.Second

// Options configure New.
type Options struct {
	// Embedder embeds queries for the semantic leg; nil turns the semantic
	// leg off ("semantic search is off"), and hybrid searches answer from
	// keyword and fuzzy alone.
	Embedder QueryEmbedder
	// Dense and Sparse are the store (store.Local or store.Qdrant); both
	// are required.
	Dense  DenseRetriever
	Sparse SparseRetriever
	// Access re-checks each result page against Nextcloud. Nil skips the
	// check, which is only right in tests: an unshared file would then
	// stay findable until the next reconciliation scan.
	Access AccessChecker
	// Requeue, if non-nil, queues files the acting user turned out to have
	// lost (reason hs.ReasonVerify), so their index entry is corrected
	// before the next scan.
	Requeue func(ctx context.Context, jobs ...hs.IndexJob) error
	// NextcloudURL is the base of result links ("https://cloud.example.com");
	// empty gives links relative to the Nextcloud root ("/index.php/f/12").
	NextcloudURL string
	// AccessCacheTTL is how long a file's access check is reused for the
	// same user; 0 means DefaultAccessCacheTTL, negative turns caching off.
	AccessCacheTTL time.Duration
	// Logger receives warnings (requeue failures, refused checks); nil
	// means slog.Default().
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now. For tests of the
	// access cache.
	Now func() time.Time
}

// Service answers searches. It is safe for concurrent use.
type Service struct {
	embed   QueryEmbedder
	dense   DenseRetriever
	sparse  SparseRetriever
	access  AccessChecker
	requeue func(ctx context.Context, jobs ...hs.IndexJob) error
	baseURL string
	log     *slog.Logger
	now     func() time.Time
	cache   *accessCache // nil when caching is off
	// defaults are the admin's fusion and weights (SetDefaults).
	defaults atomic.Pointer[Defaults]
}

// New returns a Service. It returns an EINVALID error when Dense or Sparse
// is missing.
func New(o Options) (*Service, error) {
	if o.Dense == nil || o.Sparse == nil {
		return nil, hs.Errorf(hs.EINVALID, "search: the store (Dense and Sparse) is required")
	}
	s := &Service{
		embed:   o.Embedder,
		dense:   o.Dense,
		sparse:  o.Sparse,
		access:  o.Access,
		requeue: o.Requeue,
		baseURL: strings.TrimRight(o.NextcloudURL, "/"),
		log:     o.Logger,
		now:     o.Now,
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	ttl := o.AccessCacheTTL
	if ttl == 0 {
		ttl = DefaultAccessCacheTTL
	}
	if ttl > 0 {
		s.cache = newAccessCache(ttl)
	}
	return s, nil
}

// Search runs req for user and returns one page of documents, best first.
//
// It returns an EINVALID error for a request that breaks a rule (see
// Validate) or an empty user, an EUNAVAILABLE error when none of the legs
// the request needs could run (the reasons are in the message), and the
// context's error when ctx ends. A leg that fails while others run is not
// an error: the result lists it in Skipped. Results are grouped per
// document and re-checked against Nextcloud (Options.Access) before they
// are returned.
func (s *Service) Search(ctx context.Context, user hs.UserID, req hs.SearchRequest) (hs.SearchResult, error) {
	start := time.Now()
	if user == "" {
		return hs.SearchResult{}, hs.Errorf(hs.EINVALID, "search: no acting user")
	}
	p, err := newPlan(s.withDefaults(req))
	if err != nil {
		return hs.SearchResult{}, err
	}
	legs := s.retrieve(ctx, user, p)
	if err := ctx.Err(); err != nil {
		return hs.SearchResult{}, fmt.Errorf("search: %w", err)
	}
	res, err := s.finish(ctx, user, p, legs)
	if err != nil {
		return hs.SearchResult{}, err
	}
	res.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

// finish is everything after retrieval: fusion, boosts, grouping, access
// checks and excerpts.
func (s *Service) finish(ctx context.Context, user hs.UserID, p *plan, legs [3]legResult) (hs.SearchResult, error) {
	lists, skipped, err := p.lists(legs)
	if err != nil {
		return hs.SearchResult{}, err
	}
	docs := p.rank(lists, legs)
	page, ver, err := s.verify(ctx, user, docs, p.topK)
	if err != nil {
		return hs.SearchResult{}, err
	}
	res := hs.SearchResult{
		Query:        p.text,
		Algorithm:    p.algorithm,
		Fusion:       p.fusion,
		Weights:      p.weights,
		Results:      s.render(p, page),
		Skipped:      skipped,
		Verification: ver,
	}
	if p.fusion == hs.FusionAuto {
		res.Shape = p.query.Shape.String()
	}
	return res, nil
}
