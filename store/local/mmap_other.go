//go:build !unix

package local

import (
	"io"
	"os"
)

// mapFile reads the first size bytes of f: without mmap they are on the
// heap.
func mapFile(f *os.File, size int) ([]byte, error) {
	b := make([]byte, size)
	_, err := io.ReadFull(io.NewSectionReader(f, 0, int64(size)), b)
	return b, err
}

// unmapFile undoes mapFile.
func unmapFile([]byte) error { return nil }
