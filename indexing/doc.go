// Package indexing keeps the index in step with Nextcloud. Pipeline.Process
// handles one index job: it looks up the file's current state as a user who
// can see it, then drops readers, updates paths, or extracts, chunks,
// embeds only the chunks whose text is new, and writes. Scanner walks each
// user's tree to catch what webhooks miss (lost events, shares, unshares).
//
// The package declares the small interfaces it needs and imports no
// transport: Nextcloud, the queue, the embedder and the store are given to
// it by main.
package indexing
