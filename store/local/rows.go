package local

import (
	"fmt"
	"os"
	"unsafe"
)

// rowFile is an array of fixed-size rows, by slot, in a file of the
// store's directory that is mapped into memory for reading (rows_unix.go;
// elsewhere a heap copy, rows_other.go). Rows are written with pwrite, so
// writing them adds nothing to the process's resident memory; a search
// that scans them reads them from the page cache, which the kernel can
// reclaim. The rows are part of a checkpoint (checkpoint.go): a checkpoint
// syncs them, and rows of the points a checkpoint holds are not rewritten
// before the next one (index.freeSlot), so after a crash the rows of the
// last checkpoint's points are intact and the WAL rewrites the others.
//
// Writers (which hold Store.wmu) write rows that no search reads: slots
// that are free or not yet in use. reserve, which may move the mapping,
// runs under Store.mu's write lock.
type rowFile struct {
	f    *os.File
	size int    // bytes per row
	data []byte // the mapped file: len(data)/size rows
}

// rowsMin is the fewest rows a row file is created with.
const rowsMin = 256

// openRowFile creates (or empties) the row file at path for rows of size
// bytes.
func openRowFile(path string, size int) (*rowFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: create %s: %w", path, err)
	}
	return &rowFile{f: f, size: size}, nil
}

// reopenRowFile opens the row file at path for rows of size bytes, which
// must hold at least n rows, and maps them.
func reopenRowFile(path string, size, n int) (*rowFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: stat %s: %w", path, err)
	}
	if st.Size() < int64(n)*int64(size) {
		f.Close()
		return nil, fmt.Errorf("store: %s holds %d bytes, fewer than %d rows of %d: %w", path, st.Size(), n, size, errCorrupt)
	}
	r := &rowFile{f: f, size: size}
	if err := r.remap(int(st.Size() / int64(size))); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// sync makes the written rows durable.
func (r *rowFile) sync() error {
	if err := r.f.Sync(); err != nil {
		return fmt.Errorf("store: sync %s: %w", r.f.Name(), err)
	}
	return nil
}

// rows returns how many rows the file holds.
func (r *rowFile) rows() int { return len(r.data) / r.size }

// reserve makes room for at least n rows, growing the file by half as much
// again (at least rowsMin rows) when it is short.
func (r *rowFile) reserve(n int) error {
	if n <= r.rows() {
		return nil
	}
	n = max(n, r.rows()+r.rows()/2, rowsMin)
	if err := r.f.Truncate(int64(n) * int64(r.size)); err != nil {
		return fmt.Errorf("store: grow %s: %w", r.f.Name(), err)
	}
	return r.remap(n)
}

// write stores row i (len(b) == size); the file holds it already.
func (r *rowFile) write(i int, b []byte) error {
	if _, err := r.f.WriteAt(b, int64(i)*int64(r.size)); err != nil {
		return fmt.Errorf("store: write %s: %w", r.f.Name(), err)
	}
	r.written(i, b)
	return nil
}

// close unmaps and closes the file.
func (r *rowFile) close() error {
	err := r.unmap()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// float32s returns the rows as float32s.
func (r *rowFile) float32s() []float32 {
	if len(r.data) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(r.data))), len(r.data)/4)
}

// int8s returns the rows as int8s.
func (r *rowFile) int8s() []int8 {
	if len(r.data) == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(r.data))), len(r.data))
}

// float32Bytes returns v's memory as bytes, in the machine's byte order:
// the row files are read back by the process that wrote them only.
func float32Bytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
}

// int8Bytes returns v's memory as bytes.
func int8Bytes(v []int8) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}
