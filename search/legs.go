package search

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// Sparse vector names in the store.
const (
	vectorBM25    = "bm25"
	vectorTrigram = "trigram"
)

// legOrder is the order legs are fused and reported in.
var legOrder = [3]string{hs.AlgorithmSemantic, hs.AlgorithmKeyword, hs.AlgorithmFuzzy}

// legResult is what one leg returned.
type legResult struct {
	leg    string
	wanted bool // the plan gives the leg a weight
	hits   []hs.Hit
	sparse *sparseQuery     // the query of a keyword or fuzzy leg
	fuzzy  []fuzzyMatch     // how each fuzzy hit matches the fuzzy words
	base   semanticBaseline // the semantic leg's baseline
	// feedback is set when pseudo-relevance feedback re-ranked the
	// keyword leg's hits (feedback.go).
	feedback *feedbackResult
	err      error
}

// idle reports whether a wanted leg had nothing to look up: a keyword
// query of stop words only, a fuzzy query without words, or a fuzzy leg
// beside a keyword leg that knows every word. An idle leg is left out of
// fusion and its weight goes to the legs that ran.
func (r *legResult) idle() bool {
	return r.wanted && r.err == nil && r.sparse != nil && len(r.sparse.vec.Indices) == 0
}

// errSemanticOff is the reason the semantic leg is skipped without an
// embedder.
var errSemanticOff = hs.Errorf(hs.EUNAVAILABLE, "semantic search is off: no embedding model is configured")

// retrieve runs every leg the plan weighs, each filtered by user inside
// the store query. The semantic leg runs concurrently with the others.
// The sparse legs' queries are built first (they need the store's
// statistics, a cheap lookup). Beside a keyword leg with statistics, the
// fuzzy leg looks up only the words the keyword index does not know
// (typos, partial words), since the keyword leg already matches the others
// exactly and better. The keyword leg runs concurrently with the fuzzy
// leg; when the fuzzy leg's chunks hold a correction of an unknown word
// ("retreival" → "retrieval"), the keyword leg runs again with the
// correction, so only corrected queries pay for a second keyword search.
func (s *Service) retrieve(ctx context.Context, user hs.UserID, p *plan) [3]legResult {
	var out [3]legResult
	for i, leg := range legOrder {
		out[i].leg = leg
		out[i].wanted = p.weight(leg) > 0
	}
	var wg sync.WaitGroup
	if sem := &out[0]; sem.wanted {
		wg.Go(func() { sem.hits, sem.base, sem.err = s.searchSemantic(ctx, user, p) })
	}
	kw, fz := &out[1], &out[2]
	if kw.wanted {
		kw.sparse, kw.err = s.keywordQuery(ctx, p.query.Words)
	}
	// The first keyword search writes to hits and err, read after kwDone.
	var kwDone sync.WaitGroup
	var hits []hs.Hit
	var err error
	if kw.wanted && kw.err == nil && !kw.idle() {
		q := *kw.sparse // correct changes kw.sparse only after kwDone
		kwDone.Go(func() { hits, err = s.searchSparse(ctx, user, p, kw.leg, &q) })
	}
	typos := kw.wanted && kw.err == nil && kw.sparse.full > 0
	if fz.wanted {
		words := fuzzyWords(p.query.Words, nil)
		if typos {
			words = fuzzyWords(p.query.Words, kw.sparse)
		}
		fz.sparse = fuzzyQuery(words)
		if !fz.idle() {
			fz.hits, fz.err = s.searchSparse(ctx, user, p, fz.leg, fz.sparse)
		}
		if fz.err == nil {
			fz.hits, fz.err = s.readChunks(ctx, user, fz.hits) // verifyFuzzy reads their text
		}
		if fz.err == nil {
			fz.hits, fz.fuzzy = verifyFuzzy(words, fz.hits, s.fuzzyMinShare(ctx, p, kw))
		}
	}
	kwDone.Wait()
	if kw.err == nil {
		kw.hits, kw.err = hits, err
	}
	if typos && fz.wanted && fz.err == nil && kw.err == nil && !p.noCorrection {
		fixed := len(kw.sparse.corrected)
		if kw.err = s.correct(ctx, kw.sparse, corrections(fz.fuzzy)); kw.err == nil && len(kw.sparse.corrected) > fixed {
			kw.hits, kw.err = s.searchSparse(ctx, user, p, kw.leg, kw.sparse)
			// The fuzzy leg stands in for the keyword leg on the words
			// it still does not know (see plan.lists): a chunk it found
			// only through a word now corrected is the keyword leg's to
			// rank, not a second vote for the same word.
			fz.hits, fz.fuzzy = verifyFuzzy(fuzzyWords(p.query.Words, kw.sparse), fz.hits, s.fuzzyMinShare(ctx, p, kw))
		}
	}
	s.feedback(ctx, user, p, kw)
	wg.Wait()
	if p.verbatim() && kw.err == nil {
		// rank looks for the query's identifiers and phrases in every
		// candidate (the semantic leg's are read already).
		kw.hits, kw.err = s.readChunks(ctx, user, kw.hits)
	}
	for _, r := range out {
		if r.err != nil && r.err != errSemanticOff && ctx.Err() == nil {
			s.log.Warn("A search leg failed; answering without it.", "leg", r.leg, "user_id", user, slog.Any("error", r.err))
		}
	}
	return out
}

// allUnknownMinShare is the share of the fuzzy words a chunk must hold
// when the keyword index knows none of the query's words: the fuzzy leg is
// then the only lexical evidence, and one near word among several
// ("sizad" next to "sized" in "wdrhe mqstrxummy sizad") is chance, not a
// typo.
const allUnknownMinShare = 0.5

// fuzzyMinShare returns the share of its words a fuzzy candidate must
// hold: allUnknownMinShare when no word of the query is in the keyword
// index, or when the store gives no statistics to tell; else any.
func (s *Service) fuzzyMinShare(ctx context.Context, p *plan, kw *legResult) float64 {
	q := kw.sparse
	if !kw.wanted || kw.err != nil {
		q, _ = s.keywordQuery(ctx, p.query.Words) // statistics only; nothing is searched
	}
	if q == nil || q.full <= 0 || q.unknownWeight >= q.full*(1-1e-9) {
		return allUnknownMinShare
	}
	return 0
}

// searchSemantic runs the semantic leg: the store's nearest chunks, with
// the query's baseline over the user's chunks (estimated concurrently),
// keeping those that stand out from it (semanticBaseline.keep) or hold a
// query identifier or phrase verbatim, and reach the request's score
// threshold.
func (s *Service) searchSemantic(ctx context.Context, user hs.UserID, p *plan) ([]hs.Hit, semanticBaseline, error) {
	if s.embed == nil {
		return nil, semanticBaseline{}, errSemanticOff
	}
	defer s.observeLeg(hs.AlgorithmSemantic, time.Now())
	vec, err := s.embed.EmbedQuery(ctx, p.text)
	if err != nil {
		return nil, semanticBaseline{}, embedError{err}
	}
	var base semanticBaseline
	var baseErr error
	var wg sync.WaitGroup
	wg.Go(func() { base, baseErr = s.baseline(ctx, user, vec) })
	hits, err := s.dense.SearchDense(ctx, user, vec, p.legK(), s.legFilter(p))
	wg.Wait()
	if err != nil {
		return nil, semanticBaseline{}, fmt.Errorf("search dense: %w", err)
	}
	verbatim := p.verbatim()
	if verbatim {
		if hits, err = s.readChunks(ctx, user, hits); err != nil {
			return nil, semanticBaseline{}, err
		}
	}
	if baseErr != nil && ctx.Err() == nil {
		s.log.Warn("No semantic baseline; semantic candidates are kept by cosine alone.", "user_id", user, slog.Any("error", baseErr))
	}
	kept := hits[:0]
	for _, h := range hits {
		// A chunk holding a query identifier or phrase verbatim is no
		// chance neighbour, whatever its cosine.
		chance := !base.keep(float64(h.Score)) && !(verbatim && p.match.chunkMatch(h.Point) != Match{})
		if cos := float64(h.Score); !chance && (p.threshold == 0 || cos >= p.threshold) {
			kept = append(kept, h)
		}
	}
	return kept, base, nil
}

// observeLeg reports one leg's retrieval that started at start.
func (s *Service) observeLeg(leg string, start time.Time) {
	if s.obsLeg != nil {
		s.obsLeg(leg, time.Since(start))
	}
}

// searchSparse runs the keyword or the fuzzy leg with its query.
func (s *Service) searchSparse(ctx context.Context, user hs.UserID, p *plan, leg string, q *sparseQuery) ([]hs.Hit, error) {
	defer s.observeLeg(leg, time.Now())
	vector := vectorBM25
	if leg == hs.AlgorithmFuzzy {
		vector = vectorTrigram
	}
	hits, err := s.sparse.SearchSparse(ctx, user, vector, q.vec, p.legK(), s.legFilter(p))
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", vector, err)
	}
	return hits, nil
}

// lists turns the legs that ran into fusion input and the ones that failed
// into skipped entries. The weights of the legs that ran are scaled to sum
// to 1, so a leg that could not run (or was not asked for) does not lower
// every relevance. A leg that had nothing to look up (idle) answered: no
// match. It returns an EUNAVAILABLE error when every wanted leg failed.
func (p *plan) lists(legs [3]legResult) ([]LegList, []hs.SkippedLeg, error) {
	var lists []LegList
	var skipped []hs.SkippedLeg
	var reasons []string
	var sum float64
	for _, r := range legs {
		if !r.wanted || r.idle() {
			continue
		}
		if r.err != nil {
			reason := skipReason(r.err)
			skipped = append(skipped, hs.SkippedLeg{Leg: r.leg, Code: skipCode(r.err), Reason: reason})
			reasons = append(reasons, r.leg+": "+reason)
			continue
		}
		l := LegList{Leg: r.leg, Weight: p.weight(r.leg), Keys: make([]ChunkKey, 0, len(r.hits)), Scores: make([]float64, 0, len(r.hits))}
		seen := make(map[ChunkKey]bool, len(r.hits))
		for _, h := range r.hits {
			key := keyOf(h.Point)
			if seen[key] {
				continue
			}
			seen[key] = true
			l.Keys = append(l.Keys, key)
			l.Scores = append(l.Scores, float64(h.Score))
		}
		l.Match = matches(r, l.Scores)
		r.feedback.firstRoundMatch(r.sparse, l.Keys, l.Match)
		if r.leg == hs.AlgorithmSemantic && p.fusion != "" && len(l.Scores) > 0 {
			// A semantic leg barely above chance for this query barely
			// counts (semanticBaseline.confidence).
			l.Weight *= r.base.confidence(l.Scores[0])
		}
		if r.leg == hs.AlgorithmFuzzy && legs[1].wanted && legs[1].err == nil && legs[1].sparse.full > 0 {
			// The fuzzy leg stands in for the keyword leg on the words it
			// does not know and could not correct.
			l.Weight = p.weight(hs.AlgorithmKeyword) * legs[1].sparse.unknownShare()
		}
		sum += l.Weight
		lists = append(lists, l)
	}
	if len(lists) == 0 && !p.looked(legs) {
		return nil, nil, hs.Errorf(hs.EUNAVAILABLE, "search: no retrieval leg could run (%s)", strings.Join(reasons, "; "))
	}
	if len(lists) == 0 {
		// The legs that could run had nothing to look up: the answer is
		// that nothing matches (SearchResult.ReasonCode says why), which
		// no retry changes, whatever else failed.
		return nil, skipped, nil
	}
	for i := range lists {
		if sum > 0 {
			lists[i].Weight /= sum
		} else {
			lists[i].Weight = 1 / float64(len(lists)) // a semantic leg at chance alone
		}
	}
	return lists, skipped, nil
}

// looked reports whether a wanted leg answered: it ran, or it had nothing
// to look up.
func (p *plan) looked(legs [3]legResult) bool {
	for _, r := range legs {
		if r.wanted && r.err == nil {
			return true
		}
	}
	return false
}

// emptyReason says why a search whose legs all had nothing to look up
// found nothing: the query holds no word, or no document holds one.
func (p *plan) emptyReason(legs [3]legResult) (code, reason string) {
	for _, r := range legs {
		if r.wanted && r.err == nil && !r.idle() {
			return "", "" // a leg looked the query up and found nothing: no reason to give
		}
	}
	if !slices.ContainsFunc(p.query.Words, func(w analysis.Word) bool { return !w.Stop }) {
		return hs.ReasonNothingToSearch, "the query holds no word or number to look up"
	}
	return hs.ReasonUnknownWords, "no document holds a word of the query"
}

// matches returns how well each of a leg's candidates matches the query,
// in [0, 1]: for the semantic leg its gap over the query's baseline
// (semanticBaseline.match),
// the share of the query a keyword candidate matches (see
// sparseQuery.share) or, without statistics, its score relative to the
// leg's best, and the share of its words a fuzzy candidate holds (see
// matchFuzzy).
func matches(r legResult, scores []float64) []float64 {
	out := make([]float64, len(scores))
	for i, s := range scores {
		switch {
		case r.leg == hs.AlgorithmSemantic:
			out[i] = r.base.match(s)
		case r.leg == hs.AlgorithmFuzzy:
			out[i] = r.fuzzy[i].share
		case r.sparse.share(s) >= 0:
			out[i] = r.sparse.share(s)
		case scores[0] > 0:
			out[i] = min(max(s/scores[0], 0), 1)
		}
	}
	return out
}

// skipReason is the user-safe reason a leg did not run, without internal
// addresses.
func skipReason(err error) string {
	if err == errSemanticOff {
		return err.Error()
	}
	msg := hs.RedactEndpoints(hs.ErrorMessage(err))
	if hs.ErrorKind(err) == hs.EUNAVAILABLE {
		return "unavailable: " + msg
	}
	return msg
}

func keyOf(p hs.Point) ChunkKey {
	return ChunkKey{File: p.File.ID, No: p.Chunk.No}
}
