package search

import (
	"cmp"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// RRFK is the rank constant k of reciprocal rank fusion.
const RRFK = 60

// ChunkKey names a chunk the same way in every store. Its order (file id,
// then chunk number) is the tie-breaker of every ranking in this package,
// so results never depend on map order or on which store answered.
type ChunkKey struct {
	File hs.FileID
	No   int
}

// Compare orders keys by file id, then chunk number.
func (a ChunkKey) Compare(b ChunkKey) int {
	if c := cmp.Compare(a.File, b.File); c != 0 {
		return c
	}
	return cmp.Compare(a.No, b.No)
}

// LegList is what one retrieval leg found: Keys best first, Scores[i] the
// leg's raw score of Keys[i] (cosine similarity for the semantic leg,
// IDF-weighted dot products for the keyword and fuzzy legs), Match[i] how
// well Keys[i] matches the query by this leg's measure, in [0, 1] (see the
// package documentation). A leg lists a chunk at most once.
type LegList struct {
	Leg    string // hs.AlgorithmSemantic, hs.AlgorithmKeyword or hs.AlgorithmFuzzy
	Weight float64
	Keys   []ChunkKey
	Scores []float64
	Match  []float64
}

// Fused is one chunk's place after fusion.
type Fused struct {
	Key   ChunkKey
	Score float64 // the fused score
	// Relevance is Σ_legs w_leg · Match_leg over the legs that found the
	// chunk: how well it matches the query, in [0, 1] when the weights sum
	// to at most 1, whatever the fusion method.
	Relevance float64
	// Legs, filled only when explain is asked for, holds the chunk's
	// 1-based rank and raw score in each leg that found it.
	Legs map[string]hs.LegScore
	// Match says which query identifiers and phrases the chunk contains;
	// set by the caller before Order.
	Match Match
	// capped is set when Relevance was lowered for a missing identifier or
	// phrase.
	capped bool
}

// Match counts what a chunk contains verbatim: distinct query identifiers
// (analysis.ContainsIdentifier) and distinct quoted phrases of the query.
type Match struct {
	Identifiers int
	Phrases     int
}

// RRF fuses the lists by weighted reciprocal rank fusion:
//
//	score(c) = Σ_legs w_leg / (k + rank_leg(c))
//
// with 1-based ranks (equal scores share a rank); a leg that did not find
// c adds nothing. The result
// holds every chunk of every list, ordered by score, then key (Order
// without matches). With explain, each Fused carries its legs' ranks and
// raw scores.
func RRF(lists []LegList, k float64, explain bool) []Fused {
	return fuse(lists, explain, func(l LegList) func(i int) float64 {
		ranks := tiedRanks(l.Scores)
		return func(i int) float64 { return l.Weight / (k + float64(ranks[i])) }
	})
}

// tiedRanks returns the 1-based ranks of scores sorted best first, equal
// scores sharing the rank of the first of them (1, 2, 2, 4): which of two
// equally scored chunks a store lists first must not change the fusion,
// so ties are left to Order's key.
func tiedRanks(scores []float64) []int {
	ranks := make([]int, len(scores))
	for i := range scores {
		ranks[i] = i + 1
		if i > 0 && scores[i] == scores[i-1] {
			ranks[i] = ranks[i-1]
		}
	}
	return ranks
}

// Linear fuses the lists by a weighted sum of the legs' matches:
//
//	score(c) = Σ_legs w_leg · Match_leg(c)
//
// where Match_leg(c) in [0, 1] is how well the leg finds c matches the
// query: unlike a rank or a min-max normalised score, it does not depend
// on what else the leg found, so a leg that found nothing good cannot
// promote its best candidate. A leg that did not find c adds nothing. The
// score equals the chunk's Relevance. The result is ordered and explained
// as RRF's.
func Linear(lists []LegList, explain bool) []Fused {
	return fuse(lists, explain, func(l LegList) func(i int) float64 {
		return func(i int) float64 { return l.Weight * l.Match[i] }
	})
}

// fuse adds up each list's contributions (contribution(list)(index in the
// list)) and relevances in list order, so float sums are reproducible, and
// orders the result.
func fuse(lists []LegList, explain bool, contribution func(l LegList) func(i int) float64) []Fused {
	n := 0
	for _, l := range lists {
		n += len(l.Keys)
	}
	at := make(map[ChunkKey]int, n)
	out := make([]Fused, 0, n)
	for _, l := range lists {
		if len(l.Keys) == 0 {
			continue
		}
		add := contribution(l)
		for i, key := range l.Keys {
			j, ok := at[key]
			if !ok {
				j = len(out)
				at[key] = j
				out = append(out, Fused{Key: key})
			}
			f := &out[j]
			f.Score += add(i)
			f.Relevance += l.Weight * l.Match[i]
			if explain {
				if f.Legs == nil {
					f.Legs = make(map[string]hs.LegScore, len(lists))
				}
				f.Legs[l.Leg] = hs.LegScore{Rank: i + 1, Score: l.Scores[i], Match: l.Match[i], Weight: l.Weight}
			}
		}
	}
	Order(out)
	return out
}

// Single ranks one leg's list on its own: each chunk's fused score is its
// raw score, its relevance its match, and the order is the list's (by
// score, then key).
func Single(l LegList, explain bool) []Fused {
	out := make([]Fused, len(l.Keys))
	for i, key := range l.Keys {
		out[i] = Fused{Key: key, Score: l.Scores[i], Relevance: l.Match[i]}
		if explain {
			out[i].Legs = map[string]hs.LegScore{l.Leg: {Rank: i + 1, Score: l.Scores[i], Match: l.Match[i], Weight: l.Weight}}
		}
	}
	Order(out)
	return out
}

// Order sorts fused chunks, best first, by
//
//  1. the number of distinct query identifiers the chunk contains verbatim
//     (the identifier boost: a chunk with "D40" ranks above every chunk
//     without it, whatever the fusion method and weights),
//  2. the number of distinct quoted phrases it contains exactly (the phrase
//     boost: for `"machine learning" tutorial`, chunks with the exact
//     phrase come before chunks that only have both words),
//  3. the fused score,
//  4. the chunk key, so that ties are broken the same way every time.
//
// Set each Match before calling it; zero Matches order by score alone.
func Order(fs []Fused) {
	slices.SortFunc(fs, func(a, b Fused) int {
		if c := cmp.Compare(b.Match.Identifiers, a.Match.Identifiers); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Match.Phrases, a.Match.Phrases); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return a.Key.Compare(b.Key)
	})
}

// Weights for the auto fusion method, by query shape.
var (
	// identifierWeights lean on exact terms: "PII-2024-0042", "D40 form".
	identifierWeights = hs.Weights{Semantic: 0.2, Keyword: 0.55, Fuzzy: 0.25}
	// questionWeights lean on meaning: "how do I rotate the api keys?".
	questionWeights = hs.Weights{Semantic: 0.55, Keyword: 0.3, Fuzzy: 0.15}
)

// AutoWeights returns the weights the auto fusion method uses for a query
// of the given shape (analysis.ParseQuery):
//
//	identifier  semantic 0.2,  keyword 0.55, fuzzy 0.25 (codes match as text, not meaning)
//	question    semantic 0.55, keyword 0.3, fuzzy 0.15  (natural language matches by meaning)
//	keyword     hs.DefaultWeights (0.5, 0.3, 0.2)
//
// Whatever the method, the semantic leg's weight is then scaled by its
// confidence for the query (see the package documentation), so the
// question weights lean on meaning only when the semantic leg
// discriminates. (A question weight of 0.7 lost 0.006 nDCG@10 to keyword
// alone on CISI with the test embedder; 0.55 gains 0.008.)
func AutoWeights(s analysis.Shape) hs.Weights {
	switch s {
	case analysis.ShapeIdentifier:
		return identifierWeights
	case analysis.ShapeQuestion:
		return questionWeights
	}
	return hs.DefaultWeights
}
