package store_test

import (
	"testing"

	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/storetest"
)

func TestLocalContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		return mustOpen(t, t.TempDir(), store.LocalOptions{})
	})
}

// mustOpen opens a Local store under dir and closes it at cleanup.
func mustOpen(tb testing.TB, dir string, o store.LocalOptions) *store.Local {
	tb.Helper()
	s, err := store.OpenLocal(dir, o)
	if err != nil {
		tb.Fatalf("OpenLocal(%s) = %v", dir, err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close() = %v", err)
		}
	})
	return s
}
