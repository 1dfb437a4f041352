// Package queue owns everything about NATS JetStream: the embedded server,
// connections, streams, consumers, subjects and the codec of index jobs.
// It calls the indexing pipeline only through a function it is given.
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
// terminate or dead letter. Beside the stream, three key-value buckets
// hold the per-file state (HS_FILES, see States), dead letters (HS_DEAD)
// and per-file leases (HS_LEASES, see Lease).
//
// Everything works the same on the embedded server and on an external
// NATS_URL. Per-key lease expiry needs nats-server 2.11 or later; on older
// servers (Debian's 2.9) leases fall back to an age check.
package queue
