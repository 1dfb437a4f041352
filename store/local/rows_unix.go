//go:build unix

package local

import (
	"fmt"
	"syscall"
)

// remap maps the file's first n rows for reading, replacing the old
// mapping.
func (r *rowFile) remap(n int) error {
	data, err := syscall.Mmap(int(r.f.Fd()), 0, n*r.size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("store: map %s: %w", r.f.Name(), err)
	}
	if err := r.unmap(); err != nil {
		syscall.Munmap(data)
		return err
	}
	r.data = data
	return nil
}

// written is called after row i was written to the file; the mapping
// shows it already.
func (r *rowFile) written(int, []byte) {}

func (r *rowFile) unmap() error {
	if r.data == nil {
		return nil
	}
	if err := syscall.Munmap(r.data); err != nil {
		return fmt.Errorf("store: unmap %s: %w", r.f.Name(), err)
	}
	r.data = nil
	return nil
}
