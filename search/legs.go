package search

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

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
	wanted bool // the plan gives the leg a weight, so it was run
	hits   []hs.Hit
	err    error
}

// errSemanticOff is the reason the semantic leg is skipped without an
// embedder.
var errSemanticOff = hs.Errorf(hs.EUNAVAILABLE, "semantic search is off: no embedding model is configured")

// retrieve runs every leg the plan weighs, concurrently, each filtered by
// user inside the store query.
func (s *Service) retrieve(ctx context.Context, user hs.UserID, p *plan) [3]legResult {
	var out [3]legResult
	var wg sync.WaitGroup
	for i, leg := range legOrder {
		out[i].leg = leg
		if p.weight(leg) <= 0 {
			continue
		}
		out[i].wanted = true
		wg.Go(func() { out[i].hits, out[i].err = s.runLeg(ctx, user, p, leg) })
	}
	wg.Wait()
	for _, r := range out {
		if r.err != nil && r.err != errSemanticOff && ctx.Err() == nil {
			s.log.Warn("A search leg failed; answering without it.", "leg", r.leg, "user_id", user, slog.Any("error", r.err))
		}
	}
	return out
}

// runLeg runs one leg.
func (s *Service) runLeg(ctx context.Context, user hs.UserID, p *plan, leg string) ([]hs.Hit, error) {
	k := p.legK()
	switch leg {
	case hs.AlgorithmSemantic:
		if s.embed == nil {
			return nil, errSemanticOff
		}
		vec, err := s.embed.EmbedQuery(ctx, p.text)
		if err != nil {
			return nil, fmt.Errorf("embed the query: %w", err)
		}
		hits, err := s.dense.SearchDense(ctx, user, vec, k, p.filter)
		if err != nil {
			return nil, fmt.Errorf("search dense: %w", err)
		}
		if p.threshold != 0 {
			kept := hits[:0]
			for _, h := range hits {
				if float64(h.Score) >= p.threshold {
					kept = append(kept, h)
				}
			}
			hits = kept
		}
		return hits, nil
	case hs.AlgorithmKeyword:
		q := analysis.BM25Query(p.query.Terms)
		if len(q.Indices) == 0 {
			return nil, nil // nothing to look up: punctuation only
		}
		hits, err := s.sparse.SearchSparse(ctx, user, vectorBM25, q, k, p.filter)
		if err != nil {
			return nil, fmt.Errorf("search bm25: %w", err)
		}
		return hits, nil
	case hs.AlgorithmFuzzy:
		q := analysis.TrigramQuery(p.text)
		if len(q.Indices) == 0 {
			return nil, nil // no words: CJK-only or punctuation-only queries
		}
		hits, err := s.sparse.SearchSparse(ctx, user, vectorTrigram, q, k, p.filter)
		if err != nil {
			return nil, fmt.Errorf("search trigram: %w", err)
		}
		return fuzzyFloor(hits), nil
	}
	return nil, hs.Errorf(hs.EINTERNAL, "search: unknown leg %q", leg)
}

// fuzzyMinShare is the share of the best trigram score a fuzzy candidate
// needs. Almost every text shares a few common trigrams ("the", "ion")
// with any query; without a floor the fuzzy leg would hand every document
// to fusion, where even its 30th place earns a fused score.
const fuzzyMinShare = 0.3

// fuzzyFloor drops fuzzy candidates far below the best one (hits are
// sorted by score, best first).
func fuzzyFloor(hits []hs.Hit) []hs.Hit {
	if len(hits) == 0 {
		return hits
	}
	floor := hits[0].Score * fuzzyMinShare
	for i, h := range hits {
		if h.Score < floor {
			return hits[:i]
		}
	}
	return hits
}

// lists turns the legs that ran into fusion input and the ones that failed
// into skipped entries. It returns an EUNAVAILABLE error when no wanted
// leg ran.
func (p *plan) lists(legs [3]legResult) ([]LegList, []hs.SkippedLeg, error) {
	var lists []LegList
	var skipped []hs.SkippedLeg
	var reasons []string
	for _, r := range legs {
		if !r.wanted {
			continue
		}
		if r.err != nil {
			reason := skipReason(r.err)
			skipped = append(skipped, hs.SkippedLeg{Leg: r.leg, Reason: reason})
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
		lists = append(lists, l)
	}
	if len(lists) == 0 {
		return nil, nil, hs.Errorf(hs.EUNAVAILABLE, "search: no retrieval leg could run (%s)", strings.Join(reasons, "; "))
	}
	return lists, skipped, nil
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
