package store

import (
	"cmp"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/analysis"
)

// Names of the point vectors, as used by SearchSparse and the Qdrant
// collection.
const (
	VectorDense   = "dense"
	VectorBM25    = "bm25"
	VectorTrigram = "trigram"
)

// MaxK is the largest number of hits a search returns; larger k are capped.
const MaxK = 1000

// MaxSample is the largest number of points SamplePoints returns; larger
// n are capped.
const MaxSample = 1000

// Stats counts what a store holds.
type Stats struct {
	Points int // stored points (chunks)
	Files  int // files with at least one point
	Dim    int // dense dimension, 0 while not fixed yet
}

// IDF is Qdrant's inverse document frequency of a sparse index,
//
//	idf = ln(1 + (N − n + 0.5) / (n + 0.5))
//
// where N is the number of points that have a non-empty sparse vector of
// that name (collection-wide, all users) and n the number of those points
// whose vector contains the index. A sparse search scores a point as
//
//	score = Σ_i q_i · d_i · IDF(n_i, N)
//
// over the indices i the query q and the point's vector d share.
func IDF(n, N int) float64 {
	return analysis.IDF(n, N)
}

// CleanPath returns p as an absolute, cleaned slash path ("/" for "").
// Filter.PathPrefix and FileMeta.Path are compared in this form.
func CleanPath(p string) string {
	return path.Clean("/" + p)
}

// PathPrefixes returns every path that Filter.PathPrefix may name to select
// the file at p: "/", each ancestor folder and p itself, all cleaned.
// PathPrefixes("/Documents/A/y.md") is ["/", "/Documents", "/Documents/A",
// "/Documents/A/y.md"], so the prefix "/Documents" matches it while
// "/DocumentsOld/z" does not match. Stores match the cleaned prefix against
// this list (Qdrant: a keyword array payload field).
func PathPrefixes(p string) []string {
	p = CleanPath(p)
	out := []string{"/"}
	if p == "/" {
		return out
	}
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return append(out, p)
}

// HasPathPrefix reports whether the file at p is selected by the path
// prefix; it agrees with slices.Contains(PathPrefixes(p), CleanPath(prefix))
// without allocating when both are already clean.
func HasPathPrefix(p, prefix string) bool {
	if !isClean(p) {
		p = CleanPath(p)
	}
	if !isClean(prefix) {
		prefix = CleanPath(prefix)
	}
	if prefix == "/" || p == prefix {
		return true
	}
	return strings.HasPrefix(p, prefix) && p[len(prefix)] == '/'
}

// isClean reports whether p is already in CleanPath form (the common case).
func isClean(p string) bool {
	if p == "/" {
		return true
	}
	if p == "" || p[0] != '/' || p[len(p)-1] == '/' {
		return false
	}
	return !strings.Contains(p, "//") && !strings.Contains(p, "/./") &&
		!strings.Contains(p, "/../") && !strings.HasSuffix(p, "/.") && !strings.HasSuffix(p, "/..")
}

// CheckUser returns an EINVALID error for the empty user: a search or file
// listing without a user must fail, never mean "all users".
func CheckUser(user hs.UserID) error {
	if user == "" {
		return hs.Errorf(hs.EINVALID, "store: empty user")
	}
	return nil
}

// CheckK returns k capped at MaxK, or an EINVALID error when k ≤ 0.
func CheckK(k int) (int, error) {
	if k <= 0 {
		return 0, hs.Errorf(hs.EINVALID, "store: k must be positive, got %d", k)
	}
	return min(k, MaxK), nil
}

// CheckSparseName returns an EINVALID error unless name is VectorBM25 or
// VectorTrigram.
func CheckSparseName(name string) error {
	if name != VectorBM25 && name != VectorTrigram {
		return hs.Errorf(hs.EINVALID, "store: unknown sparse vector %q", name)
	}
	return nil
}

// CheckSparse returns an EINVALID error unless v has as many values as
// indices and no index twice (Qdrant's rule). Indices need not be sorted.
func CheckSparse(name string, v hs.SparseVector) error {
	if len(v.Indices) != len(v.Values) {
		return hs.Errorf(hs.EINVALID, "store: %s vector has %d indices and %d values", name, len(v.Indices), len(v.Values))
	}
	if !slices.IsSorted(v.Indices) {
		v.Indices = slices.Sorted(slices.Values(v.Indices))
	}
	for i := 1; i < len(v.Indices); i++ {
		if v.Indices[i] == v.Indices[i-1] {
			return hs.Errorf(hs.EINVALID, "store: %s vector repeats index %d", name, v.Indices[i])
		}
	}
	for _, x := range v.Values {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return hs.Errorf(hs.EINVALID, "store: %s vector has a non-finite value", name)
		}
	}
	return nil
}

// CheckWrite returns an EINVALID error unless points fit WriteFile's
// contract for meta: each point's Chunk.FileID is meta.ID, its ID is
// hs.PointID(meta.ID, Chunk.No), no chunk number repeats, dense
// vectors are finite and of one length, and sparse vectors pass CheckSparse.
// It does not look at Point.File; stores replace it with meta.
func CheckWrite(meta hs.FileMeta, points []hs.Point) error {
	dim := -1
	seen := make(map[int]bool, len(points))
	for _, p := range points {
		if p.Chunk.FileID != meta.ID {
			return hs.Errorf(hs.EINVALID, "store: chunk %d belongs to file %d, not %d", p.Chunk.No, p.Chunk.FileID, meta.ID)
		}
		if seen[p.Chunk.No] {
			return hs.Errorf(hs.EINVALID, "store: file %d has chunk %d twice", meta.ID, p.Chunk.No)
		}
		seen[p.Chunk.No] = true
		if want := hs.PointID(meta.ID, p.Chunk.No); p.ID != want {
			return hs.Errorf(hs.EINVALID, "store: point id %q of file %d chunk %d, want %q", p.ID, meta.ID, p.Chunk.No, want)
		}
		if len(p.Dense) > 0 {
			if dim >= 0 && len(p.Dense) != dim {
				return hs.Errorf(hs.EINVALID, "store: file %d mixes dense dimensions %d and %d", meta.ID, dim, len(p.Dense))
			}
			dim = len(p.Dense)
			for _, x := range p.Dense {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					return hs.Errorf(hs.EINVALID, "store: file %d chunk %d has a non-finite dense value", meta.ID, p.Chunk.No)
				}
			}
		}
		if err := CheckSparse(VectorBM25, p.BM25); err != nil {
			return err
		}
		if err := CheckSparse(VectorTrigram, p.Trigram); err != nil {
			return err
		}
	}
	return nil
}

// Normalized returns a unit-length copy of v (all zeros stay zeros), or nil
// for an empty v.
func Normalized(v []float32) []float32 {
	if len(v) == 0 {
		return nil
	}
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if ss == 0 {
		return out
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// SortedSparse returns a copy of v sorted by index, nil slices when empty.
func SortedSparse(v hs.SparseVector) hs.SparseVector {
	if len(v.Indices) == 0 {
		return hs.SparseVector{}
	}
	out := hs.SparseVector{Indices: slices.Clone(v.Indices), Values: slices.Clone(v.Values)}
	if !slices.IsSorted(out.Indices) {
		perm := make([]int, len(out.Indices))
		for i := range perm {
			perm[i] = i
		}
		slices.SortFunc(perm, func(a, b int) int { return cmp.Compare(v.Indices[a], v.Indices[b]) })
		for k, i := range perm {
			out.Indices[k], out.Values[k] = v.Indices[i], v.Values[i]
		}
	}
	return out
}

// CleanMeta returns meta with sorted, unique, non-empty readers of its own,
// paths of its own for readers only, and the modification time in UTC
// without a monotonic reading: the form both stores keep (Qdrant cuts
// the time to whole seconds).
func CleanMeta(meta hs.FileMeta) hs.FileMeta {
	r := make([]hs.UserID, 0, len(meta.Readers))
	for _, u := range meta.Readers {
		if u != "" {
			r = append(r, u)
		}
	}
	slices.Sort(r)
	meta.Readers = slices.Compact(r)
	meta.Paths = cleanPaths(meta)
	if meta.Modified.IsZero() {
		meta.Modified = time.Time{}
	} else {
		meta.Modified = meta.Modified.UTC()
	}
	return meta
}

// cleanPaths returns a copy of meta's paths for its (clean) readers, each
// path cleaned; nil when it has none.
func cleanPaths(meta hs.FileMeta) map[hs.UserID]string {
	var out map[hs.UserID]string
	for _, u := range meta.Readers {
		if p := meta.Paths[u]; p != "" {
			if out == nil {
				out = make(map[hs.UserID]string, len(meta.Readers))
			}
			out[u] = CleanPath(p)
		}
	}
	return out
}
