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

// ChunkReader reads back the chunks of hits that a search left without
// their text (hs.Filter.OmitText): those of points that still exist and
// that user may read, in order. It must not return chunks user may not
// read.
type ChunkReader interface {
	ReadChunks(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error)
}

// TermReader reads back the chunks of hits with their keyword (bm25)
// vectors, for pseudo-relevance feedback: those of points that still
// exist and that user may read, in order, each with Point.Chunk and
// Point.BM25 as stored. It must not return chunks user may not read.
type TermReader interface {
	ReadTerms(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error)
}

// AccessChecker looks files up by id as a user (Nextcloud's own access
// check, *nextcloud.Client): it returns those the user can reach, as the
// user sees them; an id missing from the answer is one the user cannot
// reach (any more). A search asks once per result page.
type AccessChecker interface {
	FindByIDs(ctx context.Context, user hs.UserID, ids []hs.FileID) (map[hs.FileID]hs.FileInfo, error)
}

// Refresher brings a user's view of the index up to date before a search
// (*indexing.ShareRefresher: shares Nextcloud sends no webhook for).
// Expire makes its next Refresh look again.
type Refresher interface {
	Refresh(ctx context.Context, user hs.UserID) error
	Expire(user hs.UserID)
}

// Options configure New.
type Options struct {
	// Embedder embeds queries for the semantic leg; nil turns the semantic
	// leg off ("semantic search is off"), and hybrid searches answer from
	// keyword and fuzzy alone.
	Embedder QueryEmbedder
	// Dense and Sparse are the store (local.Store or qdrant.Store); both
	// are required.
	Dense  DenseRetriever
	Sparse SparseRetriever
	// Chunks, if non-nil, is the same store's ChunkReader: the legs then
	// retrieve hits without text, and a search reads only the chunks a
	// check or its page shows (about 40 of 300 candidates). Nil: every
	// hit carries its text.
	Chunks ChunkReader
	// Terms, if non-nil, is the same store's TermReader: feedback then
	// reads its chunks' stored term weights instead of analysing their
	// text again (about 0.3 ms instead of 4 per search).
	Terms TermReader
	// Access re-checks each result page against Nextcloud, on every
	// search (no answer is cached). Nil skips the check, which is only
	// right in tests: an unshared file would then stay findable until the
	// next reconciliation scan.
	Access AccessChecker
	// Refresh, if non-nil, runs before every search (it returns at once
	// unless the user's shares are due a look); a search goes on when it
	// fails. A search that finds files the user lost expires it.
	Refresh Refresher
	// Requeue, if non-nil, queues files the acting user turned out to have
	// lost (reason hs.ReasonVerify), so their index entry is corrected
	// before the next scan.
	Requeue func(ctx context.Context, jobs ...hs.IndexJob) error
	// NextcloudURL is the base of result links ("https://cloud.example.com");
	// empty gives links relative to the Nextcloud root ("/index.php/f/12").
	NextcloudURL string
	// Logger receives warnings (requeue failures, refused checks); nil
	// means slog.Default().
	Logger *slog.Logger
	// Now returns the current time (of requeued jobs); nil means time.Now.
	Now func() time.Time
	// Rules are the request rules and defaults (hs.SearchRules.Check);
	// the zero value means hs.DefaultSearchRules().
	Rules hs.SearchRules
	// ObserveLeg, if non-nil, is told how long each leg's retrieval took
	// (the semantic leg's includes embedding the query); ObserveSearch how
	// long each whole search took, by algorithm.
	ObserveLeg    func(leg string, d time.Duration)
	ObserveSearch func(algorithm string, d time.Duration)
	// Feedback, if non-nil, replaces DefaultFeedback, the parameters of
	// pseudo-relevance feedback on the keyword leg; a zero Feedback turns
	// it off even for requests that ask for it.
	Feedback *Feedback
}

// Service answers searches. It is safe for concurrent use.
type Service struct {
	embed     QueryEmbedder
	dense     DenseRetriever
	sparse    SparseRetriever
	chunks    ChunkReader
	terms     TermReader
	access    AccessChecker
	refresh   Refresher
	requeue   func(ctx context.Context, jobs ...hs.IndexJob) error
	baseURL   string
	log       *slog.Logger
	now       func() time.Time
	samples   *sampleCache    // the users' chunk samples of the semantic baseline
	refs      *referenceCache // the reference texts' vectors, for users with few chunks
	obsLeg    func(leg string, d time.Duration)
	obsSearch func(algorithm string, d time.Duration)
	fb        Feedback // pseudo-relevance feedback (feedback.go)
	// base are the rules of Options; rules are those in force: base with
	// the admin's defaults (SetDefaults).
	base  hs.SearchRules
	rules atomic.Pointer[hs.SearchRules]
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
		chunks:  o.Chunks,
		terms:   o.Terms,
		access:  o.Access,
		refresh: o.Refresh,
		requeue: o.Requeue,
		baseURL: strings.TrimRight(o.NextcloudURL, "/"),
		log:     o.Logger,
		now:     o.Now,
		base:    o.Rules.OrDefault(),

		obsLeg:    o.ObserveLeg,
		obsSearch: o.ObserveSearch,
		fb:        DefaultFeedback(),
	}
	if o.Feedback != nil {
		s.fb = *o.Feedback
	}
	s.rules.Store(&s.base)
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.samples = &sampleCache{now: s.now}
	s.refs = &referenceCache{now: s.now}
	return s, nil
}

// Rules returns the request rules the service checks requests against
// now, with the admin's defaults (SetDefaults).
func (s *Service) Rules() hs.SearchRules {
	return *s.rules.Load()
}

// Search runs req for user and returns one page of documents, best first.
//
// It returns an EINVALID error for a request that breaks a rule (see
// hs.SearchRules.Check), an empty user, or a request for the semantic leg alone when
// no embedding model is configured, an EUNAVAILABLE error when none of the legs
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
	p, err := s.plan(req)
	if err != nil {
		return hs.SearchResult{}, err
	}
	if s.refresh != nil {
		if err := s.refresh.Refresh(ctx, user); err != nil && ctx.Err() == nil {
			s.log.Warn("Could not look for new shares; searching without them.", "user_id", user, slog.Any("error", err))
		}
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
	if s.obsSearch != nil {
		s.obsSearch(p.algorithm, time.Since(start))
	}
	return res, nil
}

// plan checks req (newPlan) and refuses what can never run here: only the
// semantic leg asked for without an embedder. Such a request cannot
// succeed on a retry, so it is the caller's to change (400, and a
// permanent MCP tool error), not a 503. Search and Viz share it.
func (s *Service) plan(req hs.SearchRequest) (*plan, error) {
	p, err := newPlan(s.Rules(), req)
	if err != nil {
		return nil, err
	}
	if s.embed == nil && p.weight(hs.AlgorithmKeyword) <= 0 && p.weight(hs.AlgorithmFuzzy) <= 0 {
		return nil, hs.Errorf(hs.EINVALID, "search: %s; use the hybrid, keyword or fuzzy algorithm", errSemanticOff.Message)
	}
	return p, nil
}

// finish is everything after retrieval: fusion, boosts, grouping, weak
// matches, access checks, counts and excerpts.
func (s *Service) finish(ctx context.Context, user hs.UserID, p *plan, legs [3]legResult) (hs.SearchResult, error) {
	lists, skipped, err := p.lists(legs)
	if err != nil {
		return hs.SearchResult{}, err
	}
	p.semantic = legs[0].base
	rules := s.Rules()
	strong, weak := p.split(p.rank(lists, legs), legs, rules.WeakRelevance)
	res := hs.SearchResult{
		Query:     p.text,
		Algorithm: p.algorithm,
		Fusion:    p.fusion,
		Weights:   p.weights,
		Skipped:   skipped,
		Offset:    p.offset,
	}
	res.Corrections, res.CorrectedQuery = p.corrections(legs)
	p.corrected = res.Corrections
	for _, c := range res.Corrections {
		p.match.addTerms(c.To)
	}
	if len(lists) == 0 {
		res.ReasonCode, res.Reason = p.emptyReason(legs)
	}
	page, ver, n, err := s.pageOf(ctx, user, p, strong, weak)
	if err != nil {
		return hs.SearchResult{}, err
	}
	res.Results, res.Verification = s.render(p, page), ver
	res.Total, res.WeakCount, res.Facets = n.total, n.weak, n.facets
	if p.fusion == hs.FusionAuto {
		res.Shape = p.query.Shape.String()
	}
	if p.explain && legs[1].feedback != nil {
		res.Expanded = legs[1].feedback.words
	}
	return res, nil
}

// legFilter is the filter a leg searches with: p's, asking for hits
// without text when the store can read chunks back.
func (s *Service) legFilter(p *plan) hs.Filter {
	f := p.filter
	f.OmitText = s.chunks != nil
	return f
}

// readChunks returns hits with their chunks read, when the legs left them
// out; hits whose point is gone since are dropped.
func (s *Service) readChunks(ctx context.Context, user hs.UserID, hits []hs.Hit) ([]hs.Hit, error) {
	if s.chunks == nil || len(hits) == 0 {
		return hits, nil
	}
	hits, err := s.chunks.ReadChunks(ctx, user, hits)
	if err != nil {
		return nil, fmt.Errorf("read chunks: %w", err)
	}
	return hits, nil
}

// page returns the first topK documents user can reach (verify), with
// the chunks they show read (readPage).
func (s *Service) page(ctx context.Context, user hs.UserID, docs []*docGroup, topK int, prefix string) ([]*docGroup, hs.Verification, error) {
	page, ver, err := s.verify(ctx, user, docs, topK, prefix)
	if err != nil {
		return nil, hs.Verification{}, err
	}
	page, err = s.readPage(ctx, user, page)
	return page, ver, err
}
