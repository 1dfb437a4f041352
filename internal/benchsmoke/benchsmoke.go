// Package benchsmoke tells benchmarks whether they run as the test
// command's smoke (every benchmark once, so none rots unnoticed) rather
// than for their figures: then they build small corpora. The smoke is on
// when BENCH_SMOKE or CI is set in the environment; scripts/bench sets
// neither and keeps the full sizes.
package benchsmoke

import "os"

// On reports whether benchmarks run as a smoke.
func On() bool {
	return os.Getenv("BENCH_SMOKE") != "" || os.Getenv("CI") != ""
}

// Size returns full, or small when benchmarks run as a smoke.
func Size(full, small int) int {
	if On() {
		return small
	}
	return full
}
