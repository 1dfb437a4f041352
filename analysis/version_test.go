package analysis_test

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"testing"

	"github.com/hybrid-search/hybridsearch/analysis"
)

// TestVersionNamesTheVectors: the bm25 and trigram vectors of a fixed
// chunk hash to the value recorded for analysis.Version, so a change to
// the analyzer or to DefaultBM25F that changes stored vectors without a
// new Version (and so without rebuilding old indexes) fails here. After
// such a change, set a new Version and record its hash.
func TestVersionNamesTheVectors(t *testing.T) {
	want := map[string]uint64{
		"a2": 0xc7f0a71c7794dd00,
	}
	f := analysis.Fields{
		Title:    "Retrieval of library records",
		Path:     "/Library/Catalogue notes.md",
		Headings: []string{"Cataloguing", "Subject headings"},
		Body:     "The catalogue indexes books by subject; retrieval of the records by title and author is faster than by subject. Form D40, 2024. Die Bibliothek ordnet ihre Bücher nach Sachgebieten.",
	}
	bm25, tri := analysis.ChunkVectors(f)
	h := fnv.New64a()
	for _, v := range []analysis.SparseVector{bm25, tri} {
		for i, id := range v.Indices {
			_ = binary.Write(h, binary.LittleEndian, id)
			// Rounded, so that float arithmetic of another platform does
			// not change the hash.
			_ = binary.Write(h, binary.LittleEndian, int64(math.Round(float64(v.Values[i])*1e4)))
		}
		_ = binary.Write(h, binary.LittleEndian, uint32(math.MaxUint32))
	}
	got := h.Sum64()
	if w, ok := want[analysis.Version]; !ok || got != w {
		t.Errorf("vectors of Version %q hash to %#x, recorded %#x (ok %v): the analyzer's vectors changed; change analysis.Version and record the new hash", analysis.Version, got, w, ok)
	}
}
