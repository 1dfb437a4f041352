// Package qdranttest is an in-process fake of the Qdrant gRPC API for
// tests: a real grpc.Server on 127.0.0.1 serving the Points, Collections
// and Qdrant services of github.com/qdrant/go-client, so the real
// qdrant.Client talks to it unchanged.
//
// It keeps collections and points in memory and implements, with Qdrant's
// semantics, what qdrant.Store uses: collection create/get/exists/list/
// delete with metadata, payload indexes, upsert (dense vectors normalised
// for Cosine, sparse vectors sorted), delete and set-payload by ids or
// filter, scroll with offsets, count, facet, nearest-neighbour queries
// (alone or in a batch)
// (brute-force cosine or dot for dense vectors; for sparse vectors the dot
// product with the IDF modifier, computed by store.IDF) and the health
// check. Filters support keyword, keywords, integer and integers matches,
// ranges, has_id, has_vector and nested filters in must, should and must_not; any
// other condition, and every RPC it does not implement, fails with
// codes.Unimplemented so gaps show up instead of passing silently.
//
// Every request is recorded (Server.Requests), so tests can check, for
// example, that each search carries the per-user readers filter, and
// Server.FailNext injects errors.
package qdranttest
