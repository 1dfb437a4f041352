// Package analysis is the one text analyzer used by indexing and by search,
// so that a chunk and a query are always cut into the same terms.
//
// Text is normalised with NFKC, lowercased, and German ß (and ẞ) is folded
// to "ss", so "Straße" and "Strasse" are the same term in every vector. Words
// are found with Unicode word boundaries (UAX #29). Han, Hiragana, Katakana
// and Hangul runs, which have no spaces between words, become overlapping
// character bigrams. From the terms the package builds the sparse vectors the
// store keeps: BM25 term weights that match Qdrant's own BM25 model, and
// character trigrams for typo-tolerant ("fuzzy") matching. It also finds
// identifiers (D40, PII-2024-0042, 30 CFR 75.1725) for verbatim matching,
// and classifies queries by shape for the fusion step.
//
// The package is pure: no I/O, no state, safe for concurrent use.
package analysis
