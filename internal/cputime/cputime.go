// Package cputime reads the CPU time the process has used, for benchmarks
// that print it beside latency.
package cputime
