//go:build !unix

package local

// allocOffHeap returns n zeroed bytes; without mmap they are on the heap.
func allocOffHeap(n int) ([]byte, error) { return make([]byte, n), nil }

// freeOffHeap releases what allocOffHeap returned.
func freeOffHeap([]byte) {}
