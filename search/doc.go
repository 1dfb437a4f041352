// Package search is the hybrid search engine: it runs a query through
// three retrieval legs, fuses their rankings, groups the chunks per
// document and re-checks the page against Nextcloud before returning it.
//
// # Legs
//
// The query is analysed by package analysis, the same analyzer that built
// the index (NFKC, lowercase, ß → ss, Unicode word boundaries, CJK
// bigrams, quoted phrases, identifiers such as D40, 30 CFR 75.1725,
// PII-2024-0042 or v2.3.1). Three legs then run concurrently, each asking
// the store for 30 chunks (twice the page size for pages over 15) that the
// acting user is a reader of and that pass the request's filter:
//
//   - semantic: the query's embedding (the embedder adds the model's query
//     prefix and caches it) against the dense vectors, by cosine similarity;
//   - keyword: BM25 against the "bm25" sparse vectors;
//   - fuzzy: character trigrams against the "trigram" sparse vectors, so
//     "kuberntes" still finds "kubernetes".
//
// A leg with weight 0 does not run. A leg that cannot run (no embedder,
// the embedder or the store failing) is left out and named, with the
// reason, in SearchResult.Skipped; the other legs still answer. Only when
// no leg can run is the search an error (EUNAVAILABLE).
// ScoreThreshold drops semantic candidates whose cosine similarity is
// below it (0, the default, keeps all).
//
// # Fusion and boosts
//
// Algorithm hybrid fuses the legs; semantic, keyword and fuzzy rank one
// leg's chunks by its own score. Fusion methods are pure functions (RRF,
// Linear, AutoWeights, Order) with the math in their documentation: rrf
// (the default) sums w_leg / (60 + rank), linear sums w_leg times the
// leg's min-max normalised score, and auto takes weights from the query's
// shape. On top of any of them, a chunk that contains a query identifier
// verbatim (analysis.ContainsIdentifier, in its title, headings or text)
// ranks above every chunk that does not, and a chunk with a quoted phrase
// of the query ranks above chunks without it: plain RRF would bury an
// exact "D40" under documents that the semantic leg likes. Ties are broken
// by file id, then chunk number.
//
// # Results and relevance
//
// Chunks are grouped per document in rank order: the best chunk becomes
// the excerpt, and up to 3 more of the document's retrieved chunks follow.
// Excerpts are whole chunks (at most about 1000 characters) with rune
// ranges to highlight: query terms, words within an edit or two of a
// query word (typos), and each quoted phrase or identifier as one range.
//
// DocumentResult.Relevance is in [0, 1] and means:
//
//   - hybrid, rrf: the document's fused score divided by the best score any
//     chunk could get from the legs that ran, Σ w_leg / 61. 1.0 means that
//     every leg that ran ranked the document's best chunk first; 0.5 with
//     default weights can mean "first for semantic only" or "near the top
//     for keyword and fuzzy". It measures agreement of the legs, not a
//     probability, and is never a raw RRF score (those are about 0.016).
//   - hybrid, linear: the fused score divided by Σ w_leg of the legs that
//     ran; 1.0 means the top score in every leg.
//   - semantic: the cosine similarity of the best chunk, clamped to [0, 1].
//   - keyword, fuzzy: the score divided by the best score of this search,
//     so the first result has 1.0.
//
// A document boosted for an identifier or phrase match can rank above
// documents with higher fused scores; its relevance is raised to theirs,
// so relevance never increases down the list. Explanation.Fused keeps the
// unraised score, and IdentifierBoost and PhraseBoost say why it ranks
// where it does.
//
// # Access
//
// The store only returns chunks whose readers include the acting user, the
// security boundary. Shares can be revoked between reconciliation scans,
// so before a page is returned its files are looked up as the user, all
// in one request (AccessChecker.FindByIDs), on every search: nothing is
// cached, so an unshare or delete shows in the very next search, and so
// does a re-share. A file the user lost is dropped, queued for
// re-indexing (reason verify) and replaced by the next document. Paths
// and path filters are the searching user's own (FileMeta.PathOf, and the
// path Nextcloud returns): a recipient never sees the owner's folders.
// When Nextcloud does not answer, files the index lists the user as a
// reader of, with a path of theirs, are kept at that path and listed in
// Verification.Unverified; a refused check (EUNAUTHORIZED) drops the page.
//
// The package does no I/O of its own and imports no transport; it talks
// to the small interfaces it declares (QueryEmbedder, DenseRetriever,
// SparseRetriever, AccessChecker), which store.Local, store.Qdrant,
// embedding.Ollama and nextcloud.Client satisfy.
package search
