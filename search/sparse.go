package search

import (
	"context"
	"fmt"
	"slices"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// SparseStats gives the document frequencies of sparse indices. When the
// SparseRetriever also implements it (both stores do), the keyword leg
// weighs query words by their IDF as below, and the keyword and fuzzy legs
// report how much of the query a chunk matches; without it every query
// term weighs 1 and the legs' scores are only comparable within a search.
type SparseStats interface {
	// SparseDocFreq returns, for each index of the named vector, the number
	// of points holding it (n), and the number of points with that vector
	// (N), over all users: the statistics of the store's IDF.
	SparseDocFreq(ctx context.Context, vector string, indices []uint32) (df []int, total int, err error)
}

// sparseQuery is the query a sparse leg sends, and what a full match of it
// scores.
type sparseQuery struct {
	vec hs.SparseVector
	// full is the score of a chunk that matches every query word (keyword:
	// once, at average length) or holds every query trigram (fuzzy); 0
	// without statistics. A chunk's match is score/full, capped at 1.
	full float64
	// unknownWords are the query words (not stop words) no chunk of any
	// user contains: typos, partial words, or words foreign to the
	// collection.
	unknownWords []string
	// unknownWeight is the part of full that the unknown words make up.
	unknownWeight float64
	// words holds each query word's count and importance c_w (keyword
	// query with statistics only).
	words map[string]queryWord
	// corrected lists the unknown words the keyword query also matches by
	// a correction, and the correction ("retreival", "retrieval").
	corrected [][2]string
}

// queryWord is a keyword query word's count and importance.
type queryWord struct {
	count  int
	weight float64
}

// unknownShare is the share of the query's weight that its unknown words
// carry, in [0, 1]; 0 without statistics.
func (q *sparseQuery) unknownShare() float64 {
	if q == nil || q.full <= 0 {
		return 0
	}
	return q.unknownWeight / q.full
}

// share returns the fraction of the query a chunk with this score matches,
// in [0, 1], or -1 when the query has no full score.
func (q *sparseQuery) share(score float64) float64 {
	if q == nil || q.full <= 0 {
		return -1
	}
	return min(max(score/q.full, 0), 1)
}

// keywordQuery builds the keyword leg's query from the query words.
//
// Each word w can match through several index terms, one per language
// (analysis.Word). With statistics the word gets an importance
//
//	c_w = count_w · idf(n*, N)
//
// where count_w is how often the query says it and n* is the document
// frequency of its most frequent index term (the form the collection
// mostly uses), and each of its terms t is sent with weight c_w / idf(n_t,
// N), so that after the store multiplies by idf(n_t, N) a chunk matching w
// in any language earns c_w times its BM25 term weight. A word that no
// chunk contains keeps the importance of a term with n = 0, unless it is a
// stop word somewhere ("the"), which then does not count at all. full is
// Σ c_w: the score of a chunk holding each word once at average length.
// Without statistics each term weighs count_w. (Counting repeats is worth
// 0.07 nDCG@10 on CISI, whose queries repeat their key words; squaring the
// IDF, as Lucene's classic query norm does, or a coordination factor was
// not.)
func (s *Service) keywordQuery(ctx context.Context, words []analysis.Word) (*sparseQuery, error) {
	weights := make(map[uint32]float32)
	stats, ok := s.sparse.(SparseStats)
	if !ok {
		for _, w := range words {
			for _, t := range w.Terms {
				weights[analysis.TokenID(t)] += float32(w.Count)
			}
		}
		return &sparseQuery{vec: sparseOf(weights)}, nil
	}
	var ids []uint32
	for _, w := range words {
		for _, t := range w.Terms {
			ids = append(ids, analysis.TokenID(t))
		}
	}
	df, total, err := stats.SparseDocFreq(ctx, vectorBM25, ids)
	if err != nil {
		return nil, fmt.Errorf("bm25 statistics: %w", err)
	}
	q := &sparseQuery{words: make(map[string]queryWord, len(words))}
	at := 0
	for _, w := range words {
		wdf := df[at : at+len(w.Terms)]
		at += len(w.Terms)
		best := 0
		for _, n := range wdf {
			best = max(best, n)
		}
		if best == 0 {
			if !w.Stop {
				c := float64(w.Count) * analysis.IDF(0, total)
				q.words[w.Text] = queryWord{count: w.Count, weight: c}
				q.unknownWords = append(q.unknownWords, w.Text)
				q.unknownWeight += c
				q.full += c
			}
			continue
		}
		c := float64(w.Count) * analysis.IDF(best, total)
		q.words[w.Text] = queryWord{count: w.Count, weight: c}
		q.full += c
		for i, t := range w.Terms {
			if wdf[i] > 0 {
				weights[analysis.TokenID(t)] += float32(c / analysis.IDF(wdf[i], total))
			}
		}
	}
	q.vec = sparseOf(weights)
	return q, nil
}

// fuzzyWords returns the words the fuzzy leg looks for: the unknown words
// of a keyword query with statistics (weighted by their importance), or,
// without one, every word and number of the query (weighted by count).
func fuzzyWords(words []analysis.Word, kw *sparseQuery) []fuzzyWord {
	var out []fuzzyWord
	if kw != nil {
		for _, u := range kw.unknownWords {
			out = append(out, newFuzzyWord(u, kw.words[u].weight))
		}
		return out
	}
	for _, w := range words {
		if w.Kind != analysis.KindCJK {
			out = append(out, newFuzzyWord(w.Text, float64(w.Count)))
		}
	}
	return out
}

// fuzzyQuery builds the fuzzy leg's query: every trigram of the words,
// with weight 1. The store ranks chunks by the IDF-weighted trigrams they
// share with it (each stored once per chunk); matchFuzzy then checks them
// word by word.
func fuzzyQuery(words []fuzzyWord) *sparseQuery {
	texts := make([]string, len(words))
	for i, w := range words {
		texts[i] = w.text
	}
	return &sparseQuery{vec: analysis.TrigramQuery(strings.Join(texts, " "))}
}

// sparseOf returns the entries of m as a sorted sparse vector.
func sparseOf(m map[uint32]float32) hs.SparseVector {
	if len(m) == 0 {
		return hs.SparseVector{}
	}
	v := hs.SparseVector{Indices: make([]uint32, 0, len(m)), Values: make([]float32, 0, len(m))}
	for id := range m {
		v.Indices = append(v.Indices, id)
	}
	slices.Sort(v.Indices)
	for _, id := range v.Indices {
		v.Values = append(v.Values, m[id])
	}
	return v
}
