package local_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/hybrid-search/hybridsearch/store/local"
	"github.com/hybrid-search/hybridsearch/store/storetest"
)

func TestLocalContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		return mustOpen(t, t.TempDir(), local.Options{})
	})
}

// mustOpen opens a Local store under dir and closes it at cleanup.
func mustOpen(tb testing.TB, dir string, o local.Options) *local.Store {
	tb.Helper()
	if o.Logger == nil {
		o.Logger = testLogger(tb)
	}
	s, err := local.Open(dir, o)
	if err != nil {
		tb.Fatalf("Open(%s) = %v", dir, err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close() = %v", err)
		}
	})
	return s
}

// testLogger returns a logger that writes to tb.Log.
func testLogger(tb testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tbWriter{tb}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(b []byte) (int, error) {
	w.tb.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

// TestLocalContractGraphs runs the contract with a graph for every group
// (Options.GraphMin 1): searches walk graphs for the points indexed and
// scan the rest, and must still meet the contract, isolation first.
func TestLocalContractGraphs(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		return mustOpen(t, t.TempDir(), local.Options{GraphMin: 1})
	})
}
