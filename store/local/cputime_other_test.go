//go:build !unix

package local

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
