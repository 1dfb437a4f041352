// Package qdrant is the store adapter for a Qdrant server: Store keeps the
// index's points in one collection over gRPC and answers the three
// retrieval legs, with the method set and contract of the embedded store
// (package store holds the contract, package storetest runs it on both).
// Every search and Files call filters by "readers contains the acting
// user" inside the query; the empty user is rejected.
//
// The package shares its name with the Qdrant client it wraps
// (github.com/qdrant/go-client/qdrant), which it imports as qc: the path
// store/qdrant says what it is, as store/local does for the embedded
// store, and callers never import the client themselves.
package qdrant
