//go:build unix

package local

import (
	"fmt"
	"syscall"
)

// allocOffHeap returns n zeroed bytes outside the Go heap, for large
// arrays without pointers: they count towards the process's memory but
// not towards the heap the garbage collector paces itself by, which
// would otherwise let the heap grow to twice their size.
func allocOffHeap(n int) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("store: allocate %d bytes: %w", n, err)
	}
	return b, nil
}

// freeOffHeap releases what allocOffHeap returned.
func freeOffHeap(b []byte) {
	if len(b) > 0 {
		syscall.Munmap(b)
	}
}
