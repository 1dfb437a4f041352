package qualitytest

import (
	"cmp"
	"math"
	"slices"

	"github.com/hybrid-search/hybridsearch/analysis"
)

// TextbookBM25 is a reference: Okapi BM25 as the literature writes it,
// over whole documents (title and text as one field), on the app's own
// terms (analysis.DocumentTerms for documents, analysis.QueryWords for
// queries), so that it differs from the keyword leg only in the model:
//
//	score(d, q) = Σ_w qtf_w · idf_w · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))
//	idf_w = ln(1 + (N − n_w + 0.5) / (n_w + 0.5))
//
// where qtf_w is how often the query says word w (repeated words count),
// tf how often d holds it (through any of the word's index terms, one per
// language), |d| the number of terms of d, avgdl the mean over the
// collection, N the number of documents and n_w those holding w.
type TextbookBM25 struct {
	K1, B    float64
	ids      []string
	length   []float64
	avgLen   float64
	postings map[string][]posting // index term → documents holding it
}

// posting is one document holding a term, and how often.
type posting struct {
	doc int
	tf  int
}

// NewTextbookBM25 indexes the documents, with k1 = 1.2 and b = 0.75.
func NewTextbookBM25(docs []Doc) *TextbookBM25 {
	r := &TextbookBM25{K1: 1.2, B: 0.75, postings: map[string][]posting{}}
	var total float64
	for i, d := range docs {
		terms := analysis.DocumentTerms(d.Title + "\n\n" + d.Text)
		tf := map[string]int{}
		for _, t := range terms {
			tf[t]++
		}
		for t, n := range tf {
			r.postings[t] = append(r.postings[t], posting{doc: i, tf: n})
		}
		r.ids = append(r.ids, d.ID)
		r.length = append(r.length, float64(len(terms)))
		total += float64(len(terms))
	}
	r.avgLen = total / float64(max(len(docs), 1))
	return r
}

// Search returns the ids of the k best documents for q, best first (ties
// by id).
func (r *TextbookBM25) Search(q string, k int) []string {
	scores := r.scores(q)
	all := make([]int, 0, len(scores))
	for d := range scores {
		all = append(all, d)
	}
	slices.SortFunc(all, func(a, b int) int {
		if c := cmp.Compare(scores[b], scores[a]); c != 0 {
			return c
		}
		return cmp.Compare(r.ids[a], r.ids[b])
	})
	out := make([]string, 0, min(k, len(all)))
	for _, d := range all[:min(k, len(all))] {
		out = append(out, r.ids[d])
	}
	return out
}

// Score returns the score of document id for q (0 when it matches no
// word or is unknown).
func (r *TextbookBM25) Score(q, id string) float64 {
	if i := slices.Index(r.ids, id); i >= 0 {
		return r.scores(q)[i]
	}
	return 0
}

// scores returns the score of every document that holds a word of q.
func (r *TextbookBM25) scores(q string) map[int]float64 {
	n := float64(len(r.ids))
	scores := map[int]float64{}
	for _, w := range analysis.QueryWords(q) {
		tf := map[int]int{} // a document holds a word through one of its terms
		for _, t := range w.Terms {
			for _, p := range r.postings[t] {
				tf[p.doc] += p.tf
			}
		}
		if len(tf) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(tf))+0.5)/(float64(len(tf))+0.5))
		for d, f := range tf {
			x := float64(f)
			norm := 1 - r.B + r.B*r.length[d]/r.avgLen
			scores[d] += float64(w.Count) * idf * x * (r.K1 + 1) / (x + r.K1*norm)
		}
	}
	return scores
}
