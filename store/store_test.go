package store_test

import (
	"math"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

func TestIDF(t *testing.T) {
	tests := []struct {
		name string
		n, N int
		want float64
	}{
		{"one of ten", 1, 10, math.Log(1 + 9.5/1.5)},
		{"all", 10, 10, math.Log(1 + 0.5/10.5)},
		{"half", 2, 4, math.Log(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := store.IDF(tt.n, tt.N); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("IDF(%d, %d) = %v, want %v", tt.n, tt.N, got, tt.want)
			}
		})
	}
	if store.IDF(1, 100) <= store.IDF(50, 100) {
		t.Errorf("IDF of a rare index is not above a common one")
	}
}

func TestPathPrefixes(t *testing.T) {
	tests := []struct {
		name string
		path string
		want []string
	}{
		{"root file", "/a.md", []string{"/", "/a.md"}},
		{"nested", "/Documents/A/y.md", []string{"/", "/Documents", "/Documents/A", "/Documents/A/y.md"}},
		{"unclean", "Documents//A/./y.md", []string{"/", "/Documents", "/Documents/A", "/Documents/A/y.md"}},
		{"root", "/", []string{"/"}},
		{"empty", "", []string{"/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := store.PathPrefixes(tt.path); !slices.Equal(got, tt.want) {
				t.Errorf("PathPrefixes(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

func TestHasPathPrefix(t *testing.T) {
	tests := []struct {
		path, prefix string
		want         bool
	}{
		{"/Documents/x.md", "/Documents", true},
		{"/Documents/A/y.md", "/Documents", true},
		{"/Documents/A/y.md", "/Documents/", true},
		{"/Documents/A/y.md", "Documents/A", true},
		{"/DocumentsOld/z", "/Documents", false},
		{"/Documents", "/Documents", true},
		{"/Doc", "/Documents", false},
		{"/x", "/", true},
		{"/x", "", true},
		{"/a/b", "/a/b/c", false},
	}
	for _, tt := range tests {
		got := store.HasPathPrefix(tt.path, tt.prefix)
		if got != tt.want {
			t.Errorf("HasPathPrefix(%q, %q) = %v, want %v", tt.path, tt.prefix, got, tt.want)
		}
		if viaList := slices.Contains(store.PathPrefixes(tt.path), store.CleanPath(tt.prefix)); viaList != got {
			t.Errorf("HasPathPrefix(%q, %q) = %v, but PathPrefixes says %v", tt.path, tt.prefix, got, viaList)
		}
	}
}

func TestChecks(t *testing.T) {
	if err := store.CheckUser(""); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("CheckUser(\"\") = %v, want EINVALID", err)
	}
	if err := store.CheckUser("alice"); err != nil {
		t.Errorf("CheckUser(alice) = %v", err)
	}
	for _, k := range []int{0, -1} {
		if _, err := store.CheckK(k); hs.ErrorKind(err) != hs.EINVALID {
			t.Errorf("CheckK(%d) = %v, want EINVALID", k, err)
		}
	}
	if k, err := store.CheckK(5000); k != store.MaxK || err != nil {
		t.Errorf("CheckK(5000) = %d, %v, want %d", k, err, store.MaxK)
	}
	if err := store.CheckSparseName("dense"); hs.ErrorKind(err) != hs.EINVALID {
		t.Errorf("CheckSparseName(dense) = %v, want EINVALID", err)
	}
}

func TestCheckWrite(t *testing.T) {
	meta := hs.FileMeta{ID: 7}
	good := func() hs.Point {
		return hs.Point{
			ID:    hs.PointID(7, 0),
			Chunk: hs.Chunk{FileID: 7, No: 0},
			Dense: []float32{1, 0},
			BM25:  hs.SparseVector{Indices: []uint32{3, 1}, Values: []float32{1, 2}},
		}
	}
	tests := []struct {
		name   string
		mutate func(ps []hs.Point) []hs.Point
		ok     bool
	}{
		{"good", func(ps []hs.Point) []hs.Point { return ps }, true},
		{"wrong file", func(ps []hs.Point) []hs.Point { ps[0].Chunk.FileID = 8; return ps }, false},
		{"wrong id", func(ps []hs.Point) []hs.Point { ps[0].ID = "x"; return ps }, false},
		{"chunk twice", func(ps []hs.Point) []hs.Point { return append(ps, ps[0]) }, false},
		{"mixed dims", func(ps []hs.Point) []hs.Point {
			p := good()
			p.Chunk.No, p.ID, p.Dense = 1, hs.PointID(7, 1), []float32{1, 2, 3}
			return append(ps, p)
		}, false},
		{"nan", func(ps []hs.Point) []hs.Point { ps[0].Dense[1] = float32(math.NaN()); return ps }, false},
		{"sparse lengths", func(ps []hs.Point) []hs.Point { ps[0].Trigram.Indices = []uint32{1}; return ps }, false},
		{"sparse repeat", func(ps []hs.Point) []hs.Point { ps[0].BM25.Indices = []uint32{3, 3}; return ps }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := store.CheckWrite(meta, tt.mutate([]hs.Point{good()}))
			if tt.ok && err != nil {
				t.Errorf("CheckWrite = %v, want nil", err)
			}
			if !tt.ok && hs.ErrorKind(err) != hs.EINVALID {
				t.Errorf("CheckWrite = %v, want EINVALID", err)
			}
		})
	}
}
