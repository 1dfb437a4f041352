// Package kv keeps the app's shared records in NATS JetStream key-value
// buckets, so every app process sees the same: per-file index state
// (HS_FILES, see States), per-file leases (HS_LEASES, see Store.Lease),
// bearer-token records (HS_TOKENS), the shares each user last received
// (HS_SHARES) and the OAuth records (Store.Records).
//
// It is separate from the job queue (package queue), which shares the
// NATS connection: the queue holds jobs and their dead letters, kv holds
// state. Every read and write of a bucket is bounded by
// Options.Timeout, and a NATS that does not answer gives EUNAVAILABLE.
// Per-key lease expiry needs nats-server 2.11 or later; on older servers
// (Debian's 2.9) leases fall back to an age check.
package kv
