//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time the process has used, user and system:
// unlike latency, it hardly depends on what else the machine runs. It
// returns 0 if it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
