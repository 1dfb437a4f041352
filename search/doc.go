// Package search is the hybrid search engine: it runs a query through
// three retrieval legs, fuses their rankings, groups the chunks per
// document and re-checks the page against Nextcloud before returning it.
//
// # Legs
//
// The query is analysed by package analysis, the same analyzer that built
// the index (NFKC, lowercase, ß → ss, Unicode word boundaries, CJK
// bigrams, Snowball stems and stop words of every supported language,
// quoted phrases, identifiers such as D40, 30 CFR 75.1725, PII-2024-0042
// or v2.3.1). Three legs then run, each asking the store for 100 chunks
// (whatever the page size, so the first N results are the same for every
// top_k ≥ N) that the acting user is a reader of and that pass the
// request's filter:
//
//   - semantic: the query's embedding (the embedder adds the model's query
//     prefix and caches it) against the dense vectors, by cosine similarity;
//   - keyword: BM25F against the "bm25" sparse vectors. Each query word
//     matches through its stem in the chunk's language. When the store
//     gives document frequencies (SparseStats; both stores do) a word
//     weighs count × idf of its most frequent form, so repeated words count
//     more and the language of a chunk does not change a word's weight;
//   - fuzzy: character trigrams against the "trigram" sparse vectors find
//     candidates, which are kept only if they hold a query word as it is or
//     within an edit (two from ten letters on), so "kuberntes" finds
//     "kubernetes" and random letters find nothing.
//
// Beside a keyword leg with statistics the fuzzy leg looks only for the
// words no chunk contains (typos, partial words) and runs first; the
// closest word its chunks hold ("retreival" → "retrieval") is added
// to the keyword query as a correction. The keyword leg runs concurrently
// with the fuzzy leg and runs again only when a correction was found.
// A request may ask for pseudo-relevance feedback (RM3, feedback.go):
// the words the keyword leg's best results share rank its candidates
// again. It never runs for a query with an identifier or a quoted phrase
// (looked for verbatim), when the first round is weak (its best chunk
// matches less than Feedback.MinMatch of the query's weight, 0.1 by
// default, as a weak match's relevance) or has fewer candidate files than
// feedback documents; it reads only the searching user's results.
// A leg with weight 0 does not run;
// a leg with nothing to look up (stop words only, or no unknown word for
// the fuzzy leg) is idle. A leg that cannot run (no embedder, the embedder
// or the store failing) is left out and named, with the reason, in
// SearchResult.Skipped; the other legs still answer. Only when no leg can
// run is the search an error (EUNAVAILABLE). ScoreThreshold drops semantic
// candidates whose cosine similarity is below it (0, the default, keeps
// all).
//
// # The semantic baseline
//
// A cosine similarity means little on its own: every text is somewhat
// similar to every other, by an amount that depends on the model and the
// query. The semantic leg therefore measures each query against the
// user's own chunks: its baseline is the median cosine between the query
// and a sample of them (128, DenseSampler, cached per user for a
// minute), and a candidate's gap is its cosine minus the baseline.
// Candidates less than 0.15 above the baseline are chance neighbours and
// are dropped (unless they hold a query identifier or phrase verbatim), so
// random letters find nothing with the semantic leg on either. In hybrid
// search the semantic leg's weight is scaled by its confidence,
// (gap of its best − 0.15) / (1 − 0.15), capped at 1: a leg whose best hit
// barely stands out (a flat cosine distribution) barely moves the
// ranking, with every fusion method. Users with fewer than 8 chunks, or a
// store that cannot sample, get no baseline: candidates are kept by cosine
// and weighed fully. The thresholds were set on CISI and the relevance
// fixtures with the test embedder (a bag of words and trigrams): the best
// hit of random letters stands 0.10–0.12 above its baseline, that of
// every CISI query more than 0.18.
//
// # Fusion and boosts
//
// Algorithm hybrid fuses the legs; semantic, keyword and fuzzy rank one
// leg's chunks by its own score. The weights are scaled to sum to 1 over
// the legs that ran, so a missing semantic leg gives its weight to the
// others. The semantic leg's weight is scaled by its confidence (above).
// The fuzzy leg beside a keyword leg with statistics stands in for
// it on the unknown words only: its weight is the keyword weight times the
// unknown, uncorrected words' share of the query, and after a correction
// its chunks are matched on the uncorrected words alone (a corrected word
// is the keyword leg's, not voted for twice). Fusion methods are pure
// functions (RRF, Linear, AutoWeights, Order) with the math in their
// documentation: rrf (the default) sums w_leg / (60 + rank), linear sums
// w_leg times each leg's match (below; score-aware, and a leg's best is
// never promoted to 1), and auto takes weights from the query's shape. On
// top of any of them, a chunk that contains a query identifier verbatim
// (analysis.ContainsIdentifier, in its title, headings or text) ranks above
// every chunk that does not, and a chunk with a quoted phrase of two or
// more words ranks above chunks without it (a quoted single word is a
// plain word). Ties are broken by file id, then chunk number.
//
// # Results and relevance
//
// Chunks are grouped per document in rank order: the best chunk becomes
// the excerpt, and up to 3 more of the document's retrieved chunks follow.
// Excerpts are whole chunks (at most about 1000 characters) with rune
// ranges to highlight: query terms, words within an edit or two of a
// query word (typos), and each quoted phrase or identifier as one range.
//
// DocumentResult.Relevance, in [0, 1], says how well the document's best
// chunk matches the query, whatever its rank:
//
//	relevance = Σ_legs w_leg · match_leg
//
// over the legs that found the chunk, with the weights as used in fusion
// (summing to 1), where match is
//
//   - keyword: the share of the query's weight the chunk matches, Σ c_w ·
//     BM25F weight of w in the chunk / Σ c_w, capped at 1. A word once in
//     a chunk of average length weighs 1, so a chunk with every word (or a
//     word several times) reaches 1; one with one of three equally rare
//     words about 0.33. Words no chunk contains count in Σ c_w (a query
//     half made of unknown words matches half at best), stop words not.
//     Without statistics it is the score over the best score of the
//     search;
//   - fuzzy: the weighted share of the fuzzy words the chunk holds, each
//     counting 1 as it is and 1 − d/(n+1) with d edits in n letters;
//   - semantic: the gap over the query's baseline, (cos − baseline) /
//     (1 − baseline): 0 at the baseline, 1 for the query's own text; the
//     cosine (0 below 0) without a baseline.
//
// A chunk that lacks k of the query's n identifiers verbatim is capped at
// 1 − (k/n) × the identifiers' words' share of the query, and the same
// for quoted phrases: a document that only shares "2024" with
// PII-2024-0042, or lists PII-2024-0041, stays near 0. Relevance is not a
// rank: with rrf a document below another may match better. The
// explanation (Request.Explain) gives each leg's rank, raw score, match
// and weight, the fused score, and whether a boost or the cap applied.
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
// SparseRetriever, SparseStats, DenseSampler, AccessChecker), which
// local.Store, qdrant.Store, embedding.Ollama and nextcloud.Client satisfy.
package search
