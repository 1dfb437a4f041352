// Package embedding turns text into dense vectors through self-hosted
// Ollama (github.com/ollama/ollama/api).
//
// Ollama embeds one request at a time per model, so throughput comes from
// batching (fewer round trips) and from several hosts used together: a large
// EmbedDocuments call is cut into requests of BatchSize (the app's only
// batching of texts), of which RequestsPerCall (2) run at once, so one
// call (one file) keeps at most two hosts busy and other files get the
// rest; each host takes at most two requests at once (one embedding, one
// waiting), and a host that cannot be reached is skipped for a while and
// its request sent elsewhere. A query goes to the least busy host and
// its vector is kept in an LRU cache.
//
// Many embedding models expect an instruction prefix before documents and
// before queries ("search_document: " / "search_query: " for nomic-embed-text);
// forgetting it quietly ruins retrieval. The prefix table (PrefixesFor) adds
// them, so callers always pass plain text.
//
// Every error carries a root error kind (hybridsearch.Errorf): an
// unreachable, overloaded or slow host and a model that is not pulled yet are
// EUNAVAILABLE (retry later), an input longer than the model's context
// that Ollama could not truncate is ETOOLARGE, another input the model
// rejects is EINVALID, and a malformed response is EINTERNAL. Errors never
// contain the embedded text.
//
// options.num_ctx is sent only when the model's default context is too
// small for the longest input (OllamaOptions.ContextNeeded): Ollama
// reloads a model whenever its clients disagree on the context size.
package embedding
