// Package local is the embedded store: the index's points under a
// directory, with the method set and the contract of the Qdrant adapter
// (package store/qdrant; package store holds the vector names, IDF and
// checks both share, package storetest runs the contract on both). It needs no server, so the app
// runs on it by default.
//
// A write is durable once it returns: a write-ahead log and snapshots keep
// every acknowledged write through a crash (kill -9 included).
package local
