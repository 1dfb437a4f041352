package analysis

import (
	"math"
	"path"
	"strings"

	hs "github.com/hybrid-search/hybridsearch"
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

// BM25F are the document-side parameters of the keyword index: BM25's k1
// and b, the chunk length (in terms) the length normalisation treats as
// average, and the field weights of BM25F (a term's frequency in a chunk is
// the weighted sum of its frequencies in the fields, so a word of the title
// counts as Title words of the body). They decide every stored bm25 weight:
// whoever changes DefaultBM25F changes Version too, so indexes built with
// other parameters are rebuilt (TestVersionNamesTheVectors checks it).
type BM25F struct {
	K1, B  float64
	AvgLen float64
	// Field weights.
	Title, Heading, Path, Body float64
}

// DefaultBM25F returns the parameters the index is built with. AvgLen is a
// fixed constant, not learnt from the collection, so a chunk's weights
// never change when other files are indexed; our chunks (1000 runes, 200
// overlap) of the CISI abstracts hold about 55 terms once English stop
// words are dropped. German has longer words and so fewer terms per
// chunk; Japanese chunks yield about one bigram per character and are
// treated as long. k1 and b are Lucene's: on CISI no choice of k1 (1.2
// to 2.5), b (0.6 to 1) and title weight (1 to 4) took keyword search's
// nDCG@10 above 0.399 (0.3985 with these), and choosing them by 5-fold
// cross-validation did not carry over to the scored folds
// (search.BenchmarkQualityCV with CV_INDEX_GRID).
func DefaultBM25F() BM25F {
	return BM25F{K1: 1.2, B: 0.75, AvgLen: 50, Title: 2, Heading: 1.5, Path: 1, Body: 1}
}

// ChunkVectors returns the two sparse vectors a chunk is stored with, with
// the default parameters (see BM25F.ChunkVectors).
func ChunkVectors(f Fields) (bm25, trigram SparseVector) {
	return DefaultBM25F().ChunkVectors(f)
}

// ChunkVectors returns the two sparse vectors a chunk is stored with:
//
//   - bm25: BM25F term weights. The chunk's language is detected (Detect)
//     on its title and body; words are stemmed with that language's
//     Snowball stemmer and its stop words dropped, each stem tagged with
//     the language ("en retriev"), see QueryTerms for the query side.
//     Numbers, words with digits (D40, v2) and CJK bigrams are indexed as
//     they are, and every word of a chunk in no supported language too.
//     For a term seen tf_f times in field f, with the field weights w_f,
//
//     tf = Σ_f w_f · tf_f
//     weight = tf·(k1+1) / (tf + k1·(1 − b + b·len/AvgLen))
//
//     where len is the number of terms of the chunk (all fields).
//
//   - trigram: every distinct character trigram of the chunk's words
//     (Trigrams), with weight 1: a query's fuzzy score is then the
//     IDF-weighted share of its trigrams the chunk contains.
func (p BM25F) ChunkVectors(f Fields) (bm25, trigram SparseVector) {
	trig := make(map[uint32]float32)
	ct := p.count(f, func(toks []Token) { eachTrigram(toks, func(id uint32) { trig[id] = 1 }) }, false)
	return p.Vector(ct), fromMap(trig)
}

// ChunkTerms are a chunk's index terms with their BM25F term frequencies.
type ChunkTerms struct {
	// TF is each index term's field-weighted frequency.
	TF map[string]float64
	// Len is the number of terms of the chunk, all fields, unweighted:
	// BM25's document length.
	Len int
	// Surface is, for each index term, the first word of the chunk that
	// gave it, as tokens have it ("classification" for "en classif").
	Surface map[string]string
}

// Terms returns the index terms of a chunk as ChunkVectors weighs them,
// before BM25's saturation: what pseudo-relevance feedback reads.
func (p BM25F) Terms(f Fields) ChunkTerms {
	return p.count(f, nil, true)
}

// count analyses the fields of a chunk; eachField, if non-nil, also gets
// each field's tokens.
func (p BM25F) count(f Fields, eachField func([]Token), surface bool) ChunkTerms {
	lang := Detect(f.Title + "\n\n" + f.Body)
	st := newStemmer(lookup(lang))
	ct := ChunkTerms{TF: make(map[string]float64)}
	if surface {
		ct.Surface = make(map[string]string)
	}
	add := func(text string, w float64) {
		toks := Tokens(text)
		for _, t := range toks {
			term, ok := indexTerm(st, t)
			if !ok {
				continue
			}
			if surface {
				if _, seen := ct.Surface[term]; !seen {
					ct.Surface[term] = t.Text
				}
			}
			ct.TF[term] += w
			ct.Len++
		}
		if eachField != nil {
			eachField(toks)
		}
	}
	add(f.Title, p.Title)
	for _, h := range f.Headings {
		if h != f.Title {
			add(h, p.Heading)
		}
	}
	if dir := path.Dir(f.Path); dir != "." && dir != "/" {
		add(strings.ReplaceAll(dir, "/", " "), p.Path)
	}
	add(f.Body, p.Body)
	return ct
}

// indexTerm returns the index term of a token as a chunk in the stemmer's
// language stores it, and false for a dropped stop word.
func indexTerm(st *stemmer, t Token) (string, bool) {
	if t.Kind != KindWord {
		return t.Text, true
	}
	return st.term(t.Text)
}

// Vector returns the bm25 vector of a chunk's terms (Terms), as
// ChunkVectors does.
func (p BM25F) Vector(ct ChunkTerms) SparseVector {
	if len(ct.TF) == 0 {
		return SparseVector{}
	}
	norm := 1.0 - p.B + p.B*float64(ct.Len)/p.AvgLen
	weights := make(map[uint32]float32, len(ct.TF))
	for t, f := range ct.TF {
		weights[TokenID(t)] += float32(f * (p.K1 + 1) / math.FMA(p.K1, norm, f))
	}
	return fromMap(weights)
}

// DocumentTerms returns the index terms of a text, in order, with repeats,
// as a chunk of that text stores them: in its detected language, stems
// tagged with the language and stop words dropped (see ChunkVectors). It
// is for references that score whole documents on the app's own terms.
func DocumentTerms(text string) []string {
	st := newStemmer(lookup(Detect(text)))
	var out []string
	for _, t := range Tokens(text) {
		if term, ok := indexTerm(st, t); ok {
			out = append(out, term)
		}
	}
	return out
}

// PointVectors returns ChunkVectors of a stored chunk: the file's title and
// path, the chunk's headings and text. It is the indexer's SparseFunc.
func PointVectors(meta hs.FileMeta, c hs.Chunk) (bm25, trigram SparseVector) {
	return DefaultBM25F().PointVectors(meta, c)
}

// PointFields returns the fields of a stored chunk: the file's title and
// path, the chunk's headings and text.
func PointFields(meta hs.FileMeta, c hs.Chunk) Fields {
	return Fields{Title: meta.Title, Path: meta.Path, Headings: c.Headings, Body: c.Text}
}

// PointVectors returns ChunkVectors of a stored chunk (PointFields) with
// the parameters p.
func (p BM25F) PointVectors(meta hs.FileMeta, c hs.Chunk) (bm25, trigram SparseVector) {
	return p.ChunkVectors(PointFields(meta, c))
}
