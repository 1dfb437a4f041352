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
// IDF-weighted dot products for the keyword and fuzzy legs). A leg lists a
// chunk at most once.
type LegList struct {
	Leg    string // hs.AlgorithmSemantic, hs.AlgorithmKeyword or hs.AlgorithmFuzzy
	Weight float64
	Keys   []ChunkKey
	Scores []float64
}

// Fused is one chunk's place after fusion.
type Fused struct {
	Key   ChunkKey
	Score float64 // the fused score
	// Legs, filled only when explain is asked for, holds the chunk's
	// 1-based rank and raw score in each leg that found it.
	Legs map[string]hs.LegScore
	// Match says which query identifiers and phrases the chunk contains;
	// set by the caller before Order.
	Match Match
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
// with 1-based ranks; a leg that did not find c adds nothing. The result
// holds every chunk of every list, ordered by score, then key (Order
// without matches). With explain, each Fused carries its legs' ranks and
// raw scores.
func RRF(lists []LegList, k float64, explain bool) []Fused {
	return fuse(lists, explain, func(l LegList) func(rank int, s float64) float64 {
		return func(rank int, _ float64) float64 { return l.Weight / (k + float64(rank)) }
	})
}

// MaxRRF is the highest score RRF can give a chunk over these lists: that
// of a chunk ranked first by every one of them, Σ w_leg / (k + 1). A list
// counts even when it is empty: its leg ran and found nothing.
func MaxRRF(lists []LegList, k float64) float64 {
	var sum float64
	for _, l := range lists {
		sum += l.Weight / (k + 1)
	}
	return sum
}

// Linear fuses the lists by a weighted sum of normalised scores:
//
//	score(c) = Σ_legs w_leg · (s_leg(c) − min_leg) / (max_leg − min_leg)
//
// where min_leg and max_leg are the lowest and highest raw scores in the
// leg's list (min-max normalisation to [0, 1]; a list whose scores are all
// equal normalises them to 1). A leg that did not find c adds nothing. The
// result is ordered and explained as RRF's.
func Linear(lists []LegList, explain bool) []Fused {
	return fuse(lists, explain, func(l LegList) func(rank int, s float64) float64 {
		if len(l.Scores) == 0 {
			return nil
		}
		lo, hi := slices.Min(l.Scores), slices.Max(l.Scores)
		return func(_ int, s float64) float64 {
			if hi == lo {
				return l.Weight
			}
			return l.Weight * (s - lo) / (hi - lo)
		}
	})
}

// MaxLinear is the highest score Linear can give a chunk over these lists:
// Σ w_leg, for a chunk that has the top score in every list.
func MaxLinear(lists []LegList) float64 {
	var sum float64
	for _, l := range lists {
		sum += l.Weight
	}
	return sum
}

// fuse adds up each list's contributions (contribution(list)(rank, raw
// score)) in list order, so float sums are reproducible, and orders the
// result.
func fuse(lists []LegList, explain bool, contribution func(l LegList) func(rank int, score float64) float64) []Fused {
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
			f.Score += add(i+1, l.Scores[i])
			if explain {
				if f.Legs == nil {
					f.Legs = make(map[string]hs.LegScore, len(lists))
				}
				f.Legs[l.Leg] = hs.LegScore{Rank: i + 1, Score: l.Scores[i]}
			}
		}
	}
	Order(out)
	return out
}

// Single ranks one leg's list on its own: each chunk's fused score is its
// raw score, and the order is the list's (by score, then key).
func Single(l LegList, explain bool) []Fused {
	out := make([]Fused, len(l.Keys))
	for i, key := range l.Keys {
		out[i] = Fused{Key: key, Score: l.Scores[i]}
		if explain {
			out[i].Legs = map[string]hs.LegScore{l.Leg: {Rank: i + 1, Score: l.Scores[i]}}
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
	questionWeights = hs.Weights{Semantic: 0.7, Keyword: 0.2, Fuzzy: 0.1}
)

// AutoWeights returns the weights the auto fusion method uses for a query
// of the given shape (analysis.ParseQuery):
//
//	identifier  semantic 0.2, keyword 0.55, fuzzy 0.25  (codes match as text, not meaning)
//	question    semantic 0.7, keyword 0.2,  fuzzy 0.1   (natural language matches by meaning)
//	keyword     hs.DefaultWeights (0.5, 0.3, 0.2)
func AutoWeights(s analysis.Shape) hs.Weights {
	switch s {
	case analysis.ShapeIdentifier:
		return identifierWeights
	case analysis.ShapeQuestion:
		return questionWeights
	}
	return hs.DefaultWeights
}
