package analysis

import (
	"math"
	"slices"

	hs "github.com/hybrid-search/hybridsearch"
)

// SparseVector is the store's sparse vector type: Indices sorted ascending
// and unique, Values[i] the weight of Indices[i]. Every SparseVector this
// package returns has that form.
type SparseVector = hs.SparseVector

// Dot returns the dot product of a and b, which must be sorted and unique.
func Dot(a, b SparseVector) float32 {
	var sum float32
	i, j := 0, 0
	for i < len(a.Indices) && j < len(b.Indices) {
		switch x, y := a.Indices[i], b.Indices[j]; {
		case x < y:
			i++
		case x > y:
			j++
		default:
			sum += a.Values[i] * b.Values[j]
			i++
			j++
		}
	}
	return sum
}

// BM25 parameters: Qdrant's (and Lucene's) defaults for k and b.
const (
	BM25K = 1.2
	BM25B = 0.75
	// BM25AvgLen is the chunk length, in terms (stop words dropped, field
	// weights not applied), that the BM25 length normalisation treats as
	// average. It is a fixed constant, not learnt from the collection, so a
	// chunk's weights never change when other files are indexed. Our
	// chunks (1000 runes, 200 overlap) of the CISI abstracts hold about 55
	// terms on average once English stop words are dropped; tuned on CISI
	// between 30 and 100, 50 ranks best (nDCG@10 0.400 against 0.389 at
	// 100), a little below the mean, so long chunks are held back a bit
	// more. German has longer words and so fewer terms per chunk; Japanese
	// chunks yield about one bigram per character and are treated as long.
	BM25AvgLen = 50
)

// IDF is the inverse document frequency both stores apply to a sparse
// index (Qdrant's IDF modifier, with the same formula in local.Store):
//
//	idf = ln(1 + (N − n + 0.5) / (n + 0.5))
//
// where N is the number of points with a non-empty vector of that name
// and n the number of those whose vector contains the index.
func IDF(n, N int) float64 {
	return math.Log(1 + (float64(N)-float64(n)+0.5)/(float64(n)+0.5))
}

// TokenID returns the sparse index of a term, as Qdrant's BM25 model
// computes it: the MurmurHash3 (seed 0) of the UTF-8 bytes, read as an
// int32, absolute value (Rust's i32::unsigned_abs, so math.MinInt32 maps to
// 1<<31 rather than overflowing).
func TokenID(term string) uint32 {
	return unsignedAbs(murmur3(term, 0))
}

// unsignedAbs reads h as an int32 and returns its absolute value.
func unsignedAbs(h uint32) uint32 {
	if v := int32(h); v < 0 {
		return uint32(-int64(v))
	}
	return h
}

// BM25Doc returns the document-side BM25 vector of terms (from Terms):
// for a term seen n times in a document of len(terms) terms,
//
//	tf = n·(k+1) / (n + k·(1 − b + b·len/BM25AvgLen))
//
// computed as Qdrant does (float64, rounded to float32). IDF is applied by
// the store (Qdrant's idf modifier). If two terms hash to the same id, their
// weights are summed.
func BM25Doc(terms []string) SparseVector {
	if len(terms) == 0 {
		return SparseVector{}
	}
	counts := make(map[string]int, len(terms))
	for _, t := range terms {
		counts[t]++
	}
	// The same operations in the same order as Qdrant's term_frequency,
	// so the float32 results are bit-identical.
	k, b, avgLen := float64(BM25K), float64(BM25B), float64(BM25AvgLen)
	docLen := float64(len(terms))
	norm := 1.0 - b + b*docLen/avgLen
	weights := make(map[uint32]float32, len(counts))
	for t, n := range counts {
		f := float64(n)
		tf := f * (k + 1.0)
		tf /= math.FMA(k, norm, f)
		weights[TokenID(t)] += float32(tf)
	}
	return fromMap(weights)
}

// BM25Query returns the query-side BM25 vector of terms: each distinct
// term's id with weight 1, as Qdrant's search_embed does.
func BM25Query(terms []string) SparseVector {
	weights := make(map[uint32]float32, len(terms))
	for _, t := range terms {
		weights[TokenID(t)] = 1
	}
	return fromMap(weights)
}

// fromMap returns the entries of m as a sorted SparseVector.
func fromMap(m map[uint32]float32) SparseVector {
	if len(m) == 0 {
		return SparseVector{}
	}
	v := SparseVector{Indices: make([]uint32, 0, len(m)), Values: make([]float32, len(m))}
	for id := range m {
		v.Indices = append(v.Indices, id)
	}
	slices.Sort(v.Indices)
	for i, id := range v.Indices {
		v.Values[i] = m[id]
	}
	return v
}
