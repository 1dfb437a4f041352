//go:build !unix

package cputime

import "time"

// Process returns 0: the process's CPU time is not read on this system.
func Process() time.Duration { return 0 }
