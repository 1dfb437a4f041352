// Package analysis is the one text analyzer used by indexing and by search,
// so that a chunk and a query are always cut into the same terms.
//
// Text is normalised with NFKC, lowercased, and German ß (and ẞ) is folded
// to "ss", so "Straße" and "Strasse" are the same term in every vector. Words
// are found with Unicode word boundaries (UAX #29). Han, Hiragana, Katakana
// and Hangul runs, which have no spaces between words, become overlapping
// character bigrams.
//
// Words are then made language-aware. Each chunk's language is detected
// (Detect: github.com/abadojack/whatlanggo); in the twelve supported
// languages (en, de, fr, es, it, nl, pt, sv, da, no, fi, ru) its words are
// stemmed with the language's Snowball stemmer
// (github.com/blevesearch/snowballstem), its Snowball stop words (the
// project's copy in stopwords/, see its README) are dropped, and each stem is tagged with the
// language ("en retriev"). Numbers, words with digits (D40, v2) and CJK
// bigrams are kept as they are, and so is every word of a chunk in no
// supported language. A query cannot know which language the chunk it
// should find is in, so each query word is turned into its terms in every
// language (QueryWords): a chunk matches through the stem of its own
// language, one term per word.
//
// From the terms the package builds the sparse vectors the store keeps
// (ChunkVectors): BM25F term weights, where title words count more than
// heading, folder and body words, hashed to term ids with MurmurHash3 (the
// store applies IDF), and character trigrams for typo-tolerant ("fuzzy")
// matching. Both sides, documents and queries, must be analysed here:
// Qdrant's own server-side "qdrant/bm25" tokenizer cuts and stems text
// differently. Version names the analyzer; indexes built by another
// version are rebuilt. The package also finds identifiers (D40,
// PII-2024-0042, 30 CFR 75.1725) for verbatim matching, and classifies
// queries by shape for the fusion step.
//
// The package is pure: no I/O, no mutable state (its word lists are built
// once), safe for concurrent use.
package analysis
