//go:build unix

package local

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, user and system:
// unlike latency, it hardly depends on what else the machine runs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
