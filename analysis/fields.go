package analysis

import (
	"math"
	"path"
	"strings"

	"github.com/hybrid-search/hybridsearch"
)

// Version names the analyzer: how text becomes index terms and vector
// weights. It changes whenever a change to this package changes any
// stored vector, so indexes built by another version are rebuilt (the
// indexer's file states name it, as they name the embedding model).
const Version = "a2"

// Fields are the parts of a chunk the keyword index weighs differently.
type Fields struct {
	Title    string   // the document's title
	Path     string   // the file's path; the names of its folders are indexed
	Headings []string // the chunk's heading path, outermost first
	Body     string   // the chunk's text
}

// Field weights of BM25F: a term's frequency in a chunk is the weighted
// sum of its frequencies in the fields, so a word of the title counts as
// TitleWeight words of the body. Tuned on the CISI collection (titles and
// abstracts): 2 to 3 helps, 5 hurts.
const (
	TitleWeight   = 2.0
	HeadingWeight = 1.5
	PathWeight    = 1.0
	BodyWeight    = 1.0
)

// ChunkVectors returns the two sparse vectors a chunk is stored with:
//
//   - bm25: BM25F term weights. The chunk's language is detected (Detect)
//     on its title and body; words are stemmed with that language's
//     Snowball stemmer and its stop words dropped, each stem tagged with
//     the language ("en retriev"), see QueryTerms for the query side.
//     Numbers, words with digits (D40, v2) and CJK bigrams are indexed as
//     they are, and every word of a chunk in no supported language too.
//     For a term seen tf_f times in field f, with the weights above,
//
//     tf = Σ_f w_f · tf_f
//     weight = tf·(k+1) / (tf + k·(1 − b + b·len/BM25AvgLen))
//
//     where len is the number of terms of the chunk (all fields).
//
//   - trigram: every distinct character trigram of the chunk's words
//     (Trigrams), with weight 1: a query's fuzzy score is then the
//     IDF-weighted share of its trigrams the chunk contains.
func ChunkVectors(f Fields) (bm25, trigram SparseVector) {
	lang := Detect(f.Title + "\n\n" + f.Body)
	st := newStemmer(lookup(lang))
	tf := make(map[string]float64)
	total := 0
	trig := make(map[uint32]float32)
	add := func(text string, w float64) {
		toks := Tokens(text)
		for _, t := range toks {
			term, ok := indexTerm(st, t)
			if !ok {
				continue
			}
			tf[term] += w
			total++
		}
		eachTrigram(toks, func(id uint32) { trig[id] = 1 })
	}
	add(f.Title, TitleWeight)
	for _, h := range f.Headings {
		if h != f.Title {
			add(h, HeadingWeight)
		}
	}
	if dir := path.Dir(f.Path); dir != "." && dir != "/" {
		add(strings.ReplaceAll(dir, "/", " "), PathWeight)
	}
	add(f.Body, BodyWeight)
	return bm25F(tf, total), fromMap(trig)
}

// indexTerm returns the index term of a token as a chunk in the stemmer's
// language stores it, and false for a dropped stop word.
func indexTerm(st *stemmer, t Token) (string, bool) {
	if t.Kind != KindWord {
		return t.Text, true
	}
	return st.term(t.Text)
}

// bm25F returns the BM25 vector of weighted term frequencies tf over a
// chunk of docLen terms.
func bm25F(tf map[string]float64, docLen int) SparseVector {
	if len(tf) == 0 {
		return SparseVector{}
	}
	k, b, avgLen := float64(BM25K), float64(BM25B), float64(BM25AvgLen)
	norm := 1.0 - b + b*float64(docLen)/avgLen
	weights := make(map[uint32]float32, len(tf))
	for t, f := range tf {
		weights[TokenID(t)] += float32(f * (k + 1) / math.FMA(k, norm, f))
	}
	return fromMap(weights)
}

// PointVectors returns ChunkVectors of a stored chunk: the file's title and
// path, the chunk's headings and text. It is the indexer's SparseFunc.
func PointVectors(meta hybridsearch.FileMeta, c hybridsearch.Chunk) (bm25, trigram SparseVector) {
	return ChunkVectors(Fields{Title: meta.Title, Path: meta.Path, Headings: c.Headings, Body: c.Text})
}
