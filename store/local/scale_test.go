package local_test

import (
	"testing"

	"github.com/hybrid-search/hybridsearch/store/local"
	"github.com/hybrid-search/hybridsearch/store/storetest"
)

// The local store is exact: recall 1, IDF over live points.
func TestLocalAtScale(t *testing.T) {
	storetest.RunAtScale(t, func(t *testing.T) storetest.Store {
		return mustOpen(t, t.TempDir(), local.Options{})
	}, storetest.Scale{Users: 3, PointsPerUser: 100, Queries: 5, MinRecall: 1})
}
