//go:build unix

package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	hs "github.com/hybrid-search/hybridsearch"
)

// lockDir takes an exclusive flock on dir/LOCK, so two processes (or two
// Open calls) never share a store. The kernel drops it when the
// process dies, so a crash leaves no stale lock.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, hs.Errorf(hs.ECONFLICT, "store: %s is in use by another store", dir)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return f, nil
}
