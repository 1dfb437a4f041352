// Package queue is the index-job queue on NATS JetStream: the embedded
// server, connections, streams, consumers, subjects, the codec of index
// jobs and their dead letters. It calls the indexing pipeline only
// through the functions it is given (Run's handler, Options.GaveUp). The
// app's other shared records (file states, leases, tokens, share lists,
// OAuth records) are in package kv.
//
// Jobs live in a work-queue stream (default HYBRIDSEARCH_JOBS, file
// storage) on one subject per file, "hs.jobs.f.<file id>", or
// "hs.jobs.p.<hash of user and path>" for jobs without a file id. The
// stream keeps one message per subject and drops the older one, so only
// the newest trigger for a file waits. Each message carries a message id
// (MsgID) so duplicate webhooks within two minutes are stored once.
//
// Workers in any number of processes share one durable pull consumer,
// "indexer"; Run maps each handler's error to ack, retry with backoff,
// terminate or dead letter. Dead letters are kept in the key-value bucket
// HS_DEAD, where an admin can retry them (RetryDeadLetter).
//
// Everything works the same on the embedded server and on an external
// NATS_URL.
package queue
