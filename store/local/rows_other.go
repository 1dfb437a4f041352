//go:build !unix

package local

// Without mmap the rows are kept in memory as well as in the file.

// remap grows the in-memory copy to n rows.
func (r *rowFile) remap(n int) error {
	data := make([]byte, n*r.size)
	copy(data, r.data)
	r.data = data
	return nil
}

// written copies row i into the in-memory copy.
func (r *rowFile) written(i int, b []byte) { copy(r.data[i*r.size:], b) }

func (r *rowFile) unmap() error {
	r.data = nil
	return nil
}
