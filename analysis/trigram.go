package analysis

import "unicode/utf8"

// trigramSeed keeps trigram ids apart from BM25 term ids (seed 0), so a
// trigram never collides with a word by construction of the hash inputs.
const trigramSeed = 1

// Trigrams returns the document-side trigram vector of text, the "fuzzy"
// leg: for every word and number token (not CJK bigrams, which BM25 already
// matches character by character), the padded character 3-grams of its
// text — "  k", " ku", "kub", …, "tes", "es " for "kubernetes" — hashed
// with MurmurHash3 (seed 1), each with weight 1 however often it occurs,
// so a fuzzy score measures how much of the query a text covers. A typo
// keeps most trigrams of a word, so "kuberntes" still shares 8 of its 10
// trigrams with "kubernetes". Text goes through the same normalisation as
// Tokens, including ß → "ss", so "Straße" and "Strasse" are identical.
func Trigrams(text string) SparseVector {
	return trigramDoc(Tokens(text))
}

func trigramDoc(toks []Token) SparseVector {
	weights := make(map[uint32]float32)
	eachTrigram(toks, func(id uint32) { weights[id] = 1 })
	return fromMap(weights)
}

// TrigramQuery returns the query-side trigram vector of text: the same
// trigram ids as Trigrams, each with weight 1.
func TrigramQuery(text string) SparseVector {
	weights := make(map[uint32]float32)
	eachTrigram(Tokens(text), func(id uint32) { weights[id] = 1 })
	return fromMap(weights)
}

func eachTrigram(toks []Token, f func(uint32)) {
	buf := make([]rune, 0, 32)
	var gram []byte
	for _, t := range toks {
		if t.Kind == KindCJK {
			continue
		}
		buf = append(buf[:0], ' ', ' ')
		for _, r := range t.Text {
			buf = append(buf, r)
		}
		buf = append(buf, ' ')
		for i := 0; i+3 <= len(buf); i++ {
			gram = gram[:0]
			for _, r := range buf[i : i+3] {
				gram = utf8.AppendRune(gram, r)
			}
			f(murmur3(gram, trigramSeed))
		}
	}
}

// DocVectors returns the BM25 and trigram vectors of a chunk that is all
// body: ChunkVectors(Fields{Body: text}).
func DocVectors(text string) (bm25, trigram SparseVector) {
	return ChunkVectors(Fields{Body: text})
}
