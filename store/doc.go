// Package store keeps the index's points (one per chunk: a dense vector,
// "bm25" and "trigram" sparse vectors and the file's metadata) and answers
// the three retrieval legs of a search.
//
// This package is the contract; two stores implement it, with one method
// set checked by package storetest: the adapter for a Qdrant server in
// package store/qdrant, and the embedded engine in package store/local, a
// crash-safe store under a directory. Neither imports the other. What both
// follow lives here: the vector names, IDF, path prefixes, the
// argument checks and the cleaning of what they store. Every search and
// Files call filters by "readers contains the acting user" inside the
// query; the empty user is rejected, never read as "all users".
//
// Scores are Qdrant's: cosine similarity for the dense vector, and for a
// sparse vector the sum over shared indices of query weight × document
// weight × IDF (see IDF). Ties are broken by point id.
package store
