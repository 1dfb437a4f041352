// Package queue owns everything about NATS JetStream: the embedded server,
// connections, streams, consumers, subjects and the codec of index jobs.
// It calls the indexing pipeline only through a function it is given.
package queue
