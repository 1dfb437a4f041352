package storetest

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
)

// Scale sizes RunAtScale. A real Qdrant builds HNSW graphs only for
// segments past its indexing threshold (about 3,000 vectors of Dim floats
// with the default 10 MB) and searches a tenant by full scan below
// full_scan_threshold, so the approximate search is only exercised from a
// few thousand points per user; a fake or the local store answers the same
// cases exactly with far fewer.
type Scale struct {
	Users         int // users, each with files of their own; some files are shared
	PointsPerUser int
	Queries       int // dense queries per user
	// Exact, if set, returns the ids of the k points nearest vec among
	// those user can read, as the store's exact search computes them
	// (Qdrant: params.exact=true). Nil means the suite's own brute force.
	Exact func(t *testing.T, user hs.UserID, vec []float32, k int) []string
	// Settle, if set, waits until the store has built its indexes (a real
	// Qdrant builds HNSW graphs in the background after writes).
	Settle func(t *testing.T)
	// MinRecall is the recall@10 below which the dense case fails; 0
	// means 0.9.
	MinRecall float64
}

// RunAtScale runs the cases that differ between an exact store and an
// approximate one at scale: the recall of a user's (filtered) dense search
// against exact search, and keyword ranking after many deletes. open must
// return a new, empty store, as for Run.
func RunAtScale(t *testing.T, open func(t *testing.T) Store, sc Scale) {
	t.Run("FilteredDenseRecall", func(t *testing.T) { testFilteredDenseRecall(t, open(t), sc) })
	t.Run("SparseRankingAfterDeletes", func(t *testing.T) { testSparseRankingAfterDeletes(t, open(t)) })
}

// clustered returns a unit vector near one of the centers: embeddings of
// real text gather by topic, which is what HNSW graphs are good at.
func clustered(r *rand.Rand, centers [][]float32) []float32 {
	c := centers[r.IntN(len(centers))]
	out := make([]float32, Dim)
	for i := range out {
		out[i] = c[i] + float32(r.NormFloat64())*0.35
	}
	return unit(out)
}

func randomCenters(r *rand.Rand, n int) [][]float32 {
	cs := make([][]float32, n)
	for i := range cs {
		c := make([]float32, Dim)
		for j := range c {
			c[j] = float32(r.NormFloat64())
		}
		cs[i] = unit(c)
	}
	return cs
}

// testFilteredDenseRecall: each user's top 10 from SearchDense against
// the exact top 10 among the points the user can read. It logs recall@10
// and fails below sc.MinRecall.
func testFilteredDenseRecall(t *testing.T, s Store, sc Scale) {
	const perFile, k = 25, 10
	r := rand.New(rand.NewPCG(13, 6))
	centers := randomCenters(r, 24)
	users := make([]hs.UserID, sc.Users)
	for i := range users {
		users[i] = hs.UserID(fmt.Sprintf("user%02d", i))
	}
	type vec struct {
		id      string
		dense   []float32
		readers []hs.UserID
	}
	var all []vec
	id := hs.FileID(1)
	for ui, u := range users {
		for n := 0; n < sc.PointsPerUser; n += perFile {
			readers := []hs.UserID{u}
			if id%7 == 0 { // shared with the next user
				readers = append(readers, users[(ui+1)%len(users)])
			}
			m := fileMeta(id, fmt.Sprintf("/u%d/f%d.md", ui, id), readers...)
			pts := make([]hs.Point, 0, perFile)
			for no := 0; no < perFile; no++ {
				d := clustered(r, centers)
				pts = append(pts, point(m, no, fmt.Sprintf("chunk %d of file %d", no, id), d, map[uint32]float32{uint32(no + 1): 1}, nil))
				all = append(all, vec{pts[no].ID, d, readers})
			}
			mustWrite(t, s, m, pts...)
			id++
		}
	}
	if sc.Settle != nil {
		sc.Settle(t)
	}
	exact := sc.Exact
	if exact == nil {
		exact = func(t *testing.T, u hs.UserID, q []float32, k int) []string {
			type scored struct {
				id    string
				score float64
			}
			var ss []scored
			for _, p := range all {
				if slices.Contains(p.readers, u) {
					ss = append(ss, scored{p.id, cosine(q, p.dense)})
				}
			}
			slices.SortFunc(ss, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
			var ids []string
			for _, s := range ss[:min(k, len(ss))] {
				ids = append(ids, s.id)
			}
			return ids
		}
	}
	found, wanted := 0, 0
	for _, u := range users {
		for range sc.Queries {
			q := clustered(r, centers)
			want := exact(t, u, q, k)
			hits := mustDense(t, s, u, q, k, hs.Filter{})
			for _, h := range hits {
				if !slices.Contains(h.Point.File.Readers, u) {
					t.Fatalf("%s got a point of %v", u, h.Point.File.Readers)
				}
			}
			got := pointIDs(hits)
			for _, id := range want {
				if slices.Contains(got, id) {
					found++
				}
			}
			wanted += len(want)
		}
	}
	recall := float64(found) / float64(max(wanted, 1))
	t.Logf("recall@10 of filtered dense search against exact search: %.4f (%d users × %d points, %d queries)",
		recall, sc.Users, sc.PointsPerUser, sc.Users*sc.Queries)
	minRecall := sc.MinRecall
	if minRecall == 0 {
		minRecall = 0.9
	}
	if recall < minRecall {
		t.Errorf("recall@10 = %.4f, want at least %.2f", recall, minRecall)
	}
}

// testSparseRankingAfterDeletes: after most files holding the common term
// are deleted, a keyword query ranks what is left by the IDF the store
// reports (SparseDocFreq) — over live points in an exact store; a real
// Qdrant counts deleted points until it vacuums the segment, and its
// SparseDocFreq reads the same counts back — and deleted files never come
// back.
func testSparseRankingAfterDeletes(t *testing.T, s Store) {
	const files = 60
	const rare, common uint32 = 7, 11
	for i := 1; i <= files; i++ {
		bm := map[uint32]float32{common: 0.5 + float32(i%9)/10}
		if i%10 == 0 {
			bm[rare] = 0.4 + float32(i)/100
		}
		m := fileMeta(hs.FileID(i), fmt.Sprintf("/k%02d.md", i), "alice")
		mustWrite(t, s, m, point(m, 0, fmt.Sprintf("keyword doc %d", i), v(1), bm, nil))
	}
	deleted := map[hs.FileID]bool{}
	for i := 1; i <= files; i++ {
		if i%3 != 0 && i%10 != 0 { // most of the common term goes
			if err := s.DeleteFile(t.Context(), hs.FileID(i)); err != nil {
				t.Fatal(err)
			}
			deleted[hs.FileID(i)] = true
		}
	}
	df, n, err := s.SparseDocFreq(t.Context(), store.VectorBM25, []uint32{rare, common})
	if err != nil {
		t.Fatal(err)
	}
	live := files - len(deleted)
	t.Logf("after %d deletes: N = %d (live points %d), n(rare) = %d, n(common) = %d", len(deleted), n, live, df[0], df[1])
	hits := mustSparse(t, s, "alice", store.VectorBM25, map[uint32]float32{rare: 1, common: 1}, 100, hs.Filter{})
	if len(hits) != live {
		t.Errorf("%d hits, want the %d live files", len(hits), live)
	}
	idfRare, idfCommon := store.IDF(df[0], n), store.IDF(df[1], n)
	for i, h := range hits {
		f := h.Point.Chunk.FileID
		if deleted[f] {
			t.Errorf("deleted file %d found", f)
		}
		want := idfCommon * (0.5 + float64(int(f)%9)/10)
		if f%10 == 0 {
			want += idfRare * (0.4 + float64(f)/100)
		}
		if math.Abs(float64(h.Score)-want) > 1e-3*math.Max(1, want) {
			t.Errorf("file %d scores %v, want %v from the reported IDF", f, h.Score, want)
		}
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("hits out of order at %d: %v after %v", i, h.Score, hits[i-1].Score)
		}
	}
}
