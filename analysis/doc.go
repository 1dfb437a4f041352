// Package analysis is the one text analyzer used by indexing and by search,
// so that a chunk and a query are always cut into the same terms.
//
// Text is normalised with NFKC, lowercased, and German ß (and ẞ) is folded
// to "ss", so "Straße" and "Strasse" are the same term in every vector. Words
// are found with Unicode word boundaries (UAX #29). Han, Hiragana, Katakana
// and Hangul runs, which have no spaces between words, become overlapping
// character bigrams. From the terms the package builds the sparse vectors the
// store keeps: BM25 term weights with Qdrant's formula and term ids
// (MurmurHash3), so that Qdrant's idf modifier completes them, and character
// trigrams for typo-tolerant ("fuzzy") matching. Both sides, documents and
// queries, must be analysed here: Qdrant's own server-side "qdrant/bm25"
// tokenizer cuts text differently (no CJK bigrams, no ß folding), so its
// vectors share ids with ours only for plain lowercase words. It also finds
// identifiers (D40, PII-2024-0042, 30 CFR 75.1725) for verbatim matching,
// and classifies queries by shape for the fusion step.
//
// The package is pure: no I/O, no state, safe for concurrent use.
package analysis
