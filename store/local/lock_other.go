//go:build !unix

package local

import (
	"fmt"
	"os"
	"path/filepath"
)

// lockDir opens dir/LOCK. Without flock the directory is not protected
// against a second process; the app's container is Linux.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	return f, nil
}
