package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// Feedback are the parameters of pseudo-relevance feedback on the keyword
// leg (RM3, after Lavrenko and Croft's relevance model and Anserini's
// RM3 over BM25): the first round's best chunks, taken to be relevant,
// lend the query the terms they share, and the keyword leg's candidates
// are ranked again by the expanded query.
type Feedback struct {
	// Docs is how many of the first round's best chunks (one per file)
	// the feedback model is built from; 0 turns feedback off. With fewer
	// candidate files than Docs, feedback does not run.
	Docs int `json:"docs"`
	// Terms is how many expansion terms the model keeps.
	Terms int `json:"terms"`
	// QueryWeight is the original query's share α of the expanded query,
	// in (0, 1].
	QueryWeight float64 `json:"query_weight"`
	// MinMatch is the share of the query's weight the first round's best
	// chunk must match (sparseQuery.share) for feedback to run: below it
	// the first round is weak, and its best chunks are no evidence of
	// what the query means. 0.1 by default, the search rules' weak
	// relevance: a first round whose best chunk would be a weak match
	// lends nothing.
	MinMatch float64 `json:"min_match"`
}

// FeedbackByDefault says whether a search that does not ask for or
// forbid feedback (hs.SearchRequest.Feedback) gets it. It is off: on CISI
// feedback lifts hybrid search without a model from 0.3986 to 0.4066
// nDCG@10 (5-fold cross-validation, 1.007× the better BM25 reference,
// short of the 1.06× issue 27 asks for; MAP@30 0.184 to 0.204), 7 of 76
// queries lose more than 0.1, and it costs about 4.5 ms more p50 at
// 10,000 chunks (BenchmarkHybridSearch, feedback=off and on: 1.0 and
// 5.5 ms), above the 1.5 ms a default may cost; most of it (about 85 %)
// is analysing the feedback chunks' text again (language detection,
// stemming), since the stores return no term vectors.
const FeedbackByDefault = false

// DefaultFeedback returns the feedback parameters a Service uses unless
// Options.Feedback says otherwise. The values were chosen on all 76 CISI
// queries by the procedure BenchmarkQualityCV cross-validates (10
// documents, 20 terms, α 0.7, min match 0.1; every fold but two chose
// the same).
func DefaultFeedback() Feedback {
	return Feedback{Docs: 10, Terms: 20, QueryWeight: 0.7, MinMatch: 0.1}
}

// on reports whether feedback runs at all.
func (f Feedback) on() bool {
	return f.Docs > 0 && f.Terms > 0 && f.QueryWeight > 0 && f.QueryWeight < 1
}

// feedbackDepth is how many chunks the expansion terms' own search asks
// for, per candidate of the first round: a candidate the expansion terms
// rank below that depth is scored as if it held none of them.
const feedbackDepth = 3

// feedbackResult is what feedback changed in the keyword leg.
type feedbackResult struct {
	// orig is each candidate's first-round score, which its match (the
	// share of the query it matches) is still taken from.
	orig map[ChunkKey]float32
	// words are the expansion terms as words of the feedback chunks
	// ("classification" for "en classif"), in the model's order.
	words []string
}

// feedback runs pseudo-relevance feedback on the keyword leg's hits when
// the plan, the first round and s.fb allow it (see feedbackRuns), and
// ranks the hits again by the expanded query:
//
//	score'(c) = α · score(c) / Σ_w count_w + (1 − α) · Σ_t P(t|R) · idf_t · bm25_t(c)
//
// where score(c) is the first round's, and P(t|R), the relevance model, is
// estimated from the Docs best chunks d (one per file) of the first round
// as Σ_d P(t|d) · score(d) / Σ_d score(d), with P(t|d) the chunk's BM25F
// term frequency of t over its total; the Terms most likely terms are kept
// (words with digits, which are codes rather than topics, never) and
// their P(t|R) scaled to sum to 1. The first part is the original query
// normalised by its length, as RM3 interpolates the query's own model.
// The second part is one more sparse search of the user's chunks with the
// expansion terms; the candidates are those of the first round only, so
// feedback re-ranks what the query found and cannot bring in a chunk that
// holds none of its words. Feedback reads only chunks the store returned
// for this user (ReadChunks and the store's filter check it again), so
// no other user's text shapes the ranking. A failure leaves the first
// round as it was: feedback is an improvement, never a reason to fail.
func (s *Service) feedback(ctx context.Context, user hs.UserID, p *plan, kw *legResult) {
	if !s.feedbackRuns(p, kw) {
		return
	}
	r, err := s.expand(ctx, user, p, kw)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("Pseudo-relevance feedback failed; keeping the first round.", "user_id", user, "error", err)
		}
		return
	}
	kw.feedback = r
}

// feedbackRuns reports whether feedback may run: the request asks for it
// (or leaves it to FeedbackByDefault) and Options allow it, the keyword
// leg ran with statistics (so a candidate's match is known), the query
// has no identifier or quoted phrase (they are looked for verbatim, and
// their neighbours' words are no synonyms), and the first round is
// strong: its best chunk matches at least MinMatch of the query.
func (s *Service) feedbackRuns(p *plan, kw *legResult) bool {
	on := FeedbackByDefault
	if p.feedback != nil {
		on = *p.feedback
	}
	if !on || !s.fb.on() || !kw.wanted || kw.err != nil || kw.sparse == nil || kw.sparse.full <= 0 || p.verbatim() {
		return false
	}
	return len(kw.hits) > 0 && kw.sparse.share(float64(kw.hits[0].Score)) >= s.fb.MinMatch
}

// expand builds the relevance model, runs the expansion terms' search and
// re-ranks kw.hits; it returns nil when the first round has fewer
// candidate files than feedback documents.
func (s *Service) expand(ctx context.Context, user hs.UserID, p *plan, kw *legResult) (*feedbackResult, error) {
	var picks []hs.Hit
	seen := make(map[hs.FileID]bool, s.fb.Docs)
	for _, h := range kw.hits {
		if !seen[h.Point.File.ID] {
			seen[h.Point.File.ID] = true
			picks = append(picks, h)
			if len(picks) == s.fb.Docs {
				break
			}
		}
	}
	if len(picks) < s.fb.Docs {
		return nil, nil
	}
	picks, err := s.readChunks(ctx, user, picks)
	if err != nil {
		return nil, err
	}
	model, words := relevanceModel(picks, s.fb.Terms)
	if len(model) == 0 {
		return nil, nil
	}
	alpha := s.fb.QueryWeight
	weights := make(map[uint32]float32, len(model))
	for t, pr := range model {
		weights[analysis.TokenID(t)] += float32((1 - alpha) * pr)
	}
	count := 0
	for _, w := range kw.sparse.words {
		count += w.count
	}
	exp, err := s.sparse.SearchSparse(ctx, user, vectorBM25, sparseOf(weights), feedbackDepth*p.legK(), s.legFilter(p))
	if err != nil {
		return nil, fmt.Errorf("search the expansion terms: %w", err)
	}
	expScore := make(map[ChunkKey]float32, len(exp))
	for _, h := range exp {
		expScore[keyOf(h.Point)] = h.Score
	}
	r := &feedbackResult{orig: make(map[ChunkKey]float32, len(kw.hits)), words: words}
	for i := range kw.hits {
		h := &kw.hits[i]
		key := keyOf(h.Point)
		r.orig[key] = h.Score
		h.Score = float32(alpha*float64(h.Score)/float64(max(count, 1))) + expScore[key]
	}
	slices.SortStableFunc(kw.hits, func(a, b hs.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return keyOf(a.Point).Compare(keyOf(b.Point))
	})
	return r, nil
}

// relevanceModel returns the n most likely terms of the relevance model of
// the feedback chunks, with P(t|R) scaled to sum to 1, and the words
// they stand for, most likely first (see Service.feedback). Each chunk
// is weighed by its first-round score.
func relevanceModel(chunks []hs.Hit, n int) (map[string]float64, []string) {
	var total float64
	for _, h := range chunks {
		total += float64(h.Score)
	}
	if total <= 0 {
		return nil, nil
	}
	params := analysis.DefaultBM25F()
	pr := make(map[string]float64)
	surface := make(map[string]string)
	for _, h := range chunks {
		ct := params.Terms(analysis.PointFields(h.Point.File, h.Point.Chunk))
		var sum float64
		for _, f := range ct.TF {
			sum += f
		}
		if sum == 0 {
			continue
		}
		w := float64(h.Score) / total
		for t, f := range ct.TF {
			if strings.ContainsFunc(t, unicode.IsDigit) {
				continue
			}
			pr[t] += w * f / sum
			if _, ok := surface[t]; !ok {
				surface[t] = ct.Surface[t]
			}
		}
	}
	terms := make([]string, 0, len(pr))
	for t := range pr {
		terms = append(terms, t)
	}
	slices.SortFunc(terms, func(a, b string) int {
		if c := cmp.Compare(pr[b], pr[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	terms = terms[:min(n, len(terms))]
	var kept float64
	for _, t := range terms {
		kept += pr[t]
	}
	model := make(map[string]float64, len(terms))
	words := make([]string, len(terms))
	for i, t := range terms {
		model[t] = pr[t] / kept
		words[i] = surface[t]
	}
	return model, words
}

// firstRoundMatch sets the match of each of the keyword leg's keys to the
// share of the query it matched in the first round: feedback changes the
// ranking, not what a chunk's relevance says (the share of the query's
// own words it holds). Nothing changes when feedback did not run (f nil).
func (f *feedbackResult) firstRoundMatch(q *sparseQuery, keys []ChunkKey, match []float64) {
	if f == nil {
		return
	}
	for i, k := range keys {
		match[i] = max(q.share(float64(f.orig[k])), 0)
	}
}
