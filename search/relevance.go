package search

import (
	"github.com/hybrid-search/hybridsearch/analysis"
)

// verbatim is what the relevance of a chunk that lacks the query's
// identifiers or quoted phrases is held below: the share of the query's
// weight their words carry.
type verbatim struct {
	ids, phrases         int     // how many the query has
	idShare, phraseShare float64 // the share of the query's weight of their words
}

// newVerbatim measures the query's identifiers and phrases against its
// words' weights: their importance in the keyword query when it has
// statistics (kw), else their counts.
func newVerbatim(q analysis.Query, m *matcher, kw *sparseQuery) verbatim {
	v := verbatim{ids: len(m.ids), phrases: len(m.phrases)}
	if v.ids == 0 && v.phrases == 0 {
		return v
	}
	weight := func(w analysis.Word) float64 {
		if kw != nil && kw.full > 0 {
			return kw.words[w.Text].weight
		}
		return float64(w.Count)
	}
	inIDs, inPhrases := map[string]bool{}, map[string]bool{}
	for _, id := range m.ids {
		for _, t := range analysis.Terms(id.id) {
			inIDs[t] = true
		}
	}
	for _, ph := range m.phrases {
		for _, t := range ph {
			inPhrases[t] = true
		}
	}
	var total float64
	for _, w := range q.Words {
		c := weight(w)
		total += c
		if inIDs[w.Text] {
			v.idShare += c
		}
		if inPhrases[w.Text] {
			v.phraseShare += c
		}
	}
	if total > 0 {
		v.idShare /= total
		v.phraseShare /= total
	}
	return v
}

// cap returns the highest relevance a chunk with this match may have: a
// chunk that lacks k of the query's n identifiers verbatim loses k/n of
// the identifiers' share of the query ("2024" alone, or PII-2024-0041, is
// not PII-2024-0042), and the same for quoted phrases ("learning about
// machines" is not "machine learning").
func (v verbatim) cap(m Match) float64 {
	c := 1.0
	if v.ids > 0 {
		c -= v.idShare * float64(v.ids-min(m.Identifiers, v.ids)) / float64(v.ids)
	}
	if v.phrases > 0 {
		c -= v.phraseShare * float64(v.phrases-min(m.Phrases, v.phrases)) / float64(v.phrases)
	}
	return max(c, 0)
}
