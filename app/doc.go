// Package app is the Hybrid Search application: it builds every component
// from a Config (LoadConfig reads the environment AppAPI sets), runs them,
// swaps the embedding model when the admin settings change it, watches
// the admin settings and the users' pauses, and shuts everything down in
// order. cmd/hybridsearch runs it (Serve, RunWorker), cmd/hybridsearch-demo
// runs it against a simulated Nextcloud, and the end-to-end tests boot it
// the same way: New, Run, Close.
package app
