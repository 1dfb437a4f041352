//go:build !unix

package local

import "io"

// Without mmap the rows are kept in memory as well as in the file.

// remap grows the in-memory copy to n rows, reading the rows it did not
// hold from the file.
func (r *rowFile) remap(n int) error {
	data := make([]byte, n*r.size)
	copy(data, r.data)
	if len(data) > len(r.data) {
		if _, err := r.f.ReadAt(data[len(r.data):], int64(len(r.data))); err != nil && err != io.EOF {
			return err
		}
	}
	r.data = data
	return nil
}

// written copies row i into the in-memory copy.
func (r *rowFile) written(i int, b []byte) { copy(r.data[i*r.size:], b) }

func (r *rowFile) unmap() error {
	r.data = nil
	return nil
}
