package local_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/store"
	"github.com/hybrid-search/hybridsearch/store/local"
)

// model is a brute-force reference of a store's content: what every
// search should return, computed the slow and obvious way.
type model struct {
	files map[hs.FileID][]hs.Point // File set on every point
}

func newModel() *model { return &model{files: make(map[hs.FileID][]hs.Point)} }

func (m *model) clone() *model {
	c := newModel()
	for id, ps := range m.files {
		c.files[id] = slices.Clone(ps)
	}
	return c
}

func (m *model) write(meta hs.FileMeta, points []hs.Point) {
	if len(points) == 0 {
		delete(m.files, meta.ID)
		return
	}
	ps := slices.Clone(points)
	for i := range ps {
		ps[i].File = meta
	}
	m.files[meta.ID] = ps
}

func (m *model) update(meta hs.FileMeta) {
	for i := range m.files[meta.ID] {
		m.files[meta.ID][i].File = meta
	}
}

// scored is an expected hit.
type scored struct {
	id    string
	score float64
}

// dense returns the user's points with a dense vector, scored by cosine.
func (m *model) dense(user hs.UserID, q []float32) []scored {
	var out []scored
	for _, ps := range m.files {
		for _, p := range ps {
			if p.Dense != nil && slices.Contains(p.File.Readers, user) {
				out = append(out, scored{p.ID, cos64(q, p.Dense)})
			}
		}
	}
	return out
}

// sparse returns the user's points sharing an index with q, scored with
// collection-wide IDF.
func (m *model) sparse(user hs.UserID, name string, q hs.SparseVector) []scored {
	vec := func(p hs.Point) hs.SparseVector {
		if name == store.VectorTrigram {
			return p.Trigram
		}
		return p.BM25
	}
	N, n := 0, map[uint32]int{}
	for _, ps := range m.files {
		for _, p := range ps {
			if v := vec(p); len(v.Indices) > 0 {
				N++
				for _, i := range v.Indices {
					n[i]++
				}
			}
		}
	}
	var out []scored
	for _, ps := range m.files {
		for _, p := range ps {
			if !slices.Contains(p.File.Readers, user) {
				continue
			}
			v, s, shared := vec(p), 0.0, false
			for j, i := range q.Indices {
				if k := slices.Index(v.Indices, i); k >= 0 {
					s += float64(q.Values[j]) * float64(v.Values[k]) * store.IDF(n[i], N)
					shared = true
				}
			}
			if shared {
				out = append(out, scored{p.ID, s})
			}
		}
	}
	return out
}

func cos64(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}

// checkTopK checks hits against the expected candidates: every hit scored
// as expected, sorted best first with ties by id, and nothing left out that
// scores clearly better than the last hit.
func checkTopK(t *testing.T, what string, hits []hs.Hit, want []scored, k int) {
	t.Helper()
	const eps = 1e-4
	byID := make(map[string]float64, len(want))
	for _, w := range want {
		byID[w.id] = w.score
	}
	if len(hits) != min(k, len(want)) {
		t.Errorf("%s: %d hits, want %d", what, len(hits), min(k, len(want)))
		return
	}
	seen := map[string]bool{}
	for i, h := range hits {
		w, ok := byID[h.Point.ID]
		if !ok {
			t.Errorf("%s: hit %s is not a candidate (another user's or no shared index)", what, h.Point.ID)
			return
		}
		if math.Abs(float64(h.Score)-w) > eps*max(1, math.Abs(w)) {
			t.Errorf("%s: hit %s score %v, want %v", what, h.Point.ID, h.Score, w)
		}
		if i > 0 {
			p := hits[i-1]
			if p.Score < h.Score || (p.Score == h.Score && p.Point.ID > h.Point.ID) {
				t.Errorf("%s: hits %d and %d out of order", what, i-1, i)
			}
		}
		seen[h.Point.ID] = true
	}
	if len(hits) == 0 {
		return
	}
	last := float64(hits[len(hits)-1].Score)
	for _, w := range want {
		if !seen[w.id] && w.score > last+eps {
			t.Errorf("%s: missed %s with score %v above the last hit's %v", what, w.id, w.score, last)
		}
	}
}

// checkModel runs every leg for every user against the model.
func checkModel(t *testing.T, s *local.Store, m *model, rng *rand.Rand, users []hs.UserID, dim int) {
	t.Helper()
	ctx := t.Context()
	for _, u := range users {
		for range 3 {
			k := 1 + rng.IntN(12)
			q := randDense(rng, dim)
			hits, err := s.SearchDense(ctx, u, q, k, hs.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			checkTopK(t, fmt.Sprintf("dense %s k=%d", u, k), hits, m.dense(u, q), k)
			for _, name := range []string{store.VectorBM25, store.VectorTrigram} {
				sq := randSparse(rng, 40, 4)
				hits, err := s.SearchSparse(ctx, u, name, sq, k, hs.Filter{})
				if err != nil {
					t.Fatal(err)
				}
				checkTopK(t, fmt.Sprintf("%s %s k=%d q=%v", name, u, k, sq), hits, m.sparse(u, name, sq), k)
			}
		}
		files, err := s.Files(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []hs.FileID
		for _, f := range files {
			got = append(got, f.ID)
		}
		for id, ps := range m.files {
			if slices.Contains(ps[0].File.Readers, u) {
				want = append(want, id)
			}
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Files(%s) = %v, want %v", u, got, want)
		}
	}
	checkHashes(t, s, m)
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	points := 0
	for _, ps := range m.files {
		points += len(ps)
	}
	if st.Points != points || st.Files != len(m.files) {
		t.Errorf("Stats() = %+v, want %d points in %d files", st, points, len(m.files))
	}
}

func randDense(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// randSparse returns up to n distinct indices below vocab with small
// integer weights, so exact ties happen.
func randSparse(rng *rand.Rand, vocab, n int) hs.SparseVector {
	var v hs.SparseVector
	for _, i := range rng.Perm(vocab)[:rng.IntN(n+1)] {
		v.Indices = append(v.Indices, uint32(i))
		v.Values = append(v.Values, float32(1+rng.IntN(3)))
	}
	return v
}

// randFile returns a file of 0–5 chunks with random vectors; some chunks
// lack a dense or a sparse vector.
func randFile(rng *rand.Rand, id hs.FileID, users []hs.UserID, dim int) (hs.FileMeta, []hs.Point) {
	meta := hs.FileMeta{ID: id, Path: fmt.Sprintf("/f/%d.md", id), Readers: randReaders(rng, users)}
	var points []hs.Point
	for no := range rng.IntN(6) {
		p := hs.Point{
			ID:      hs.PointID(id, no),
			Chunk:   hs.Chunk{FileID: id, No: no, Text: fmt.Sprint(rng.IntN(20)), Hash: fmt.Sprint(rng.IntN(20))},
			BM25:    randSparse(rng, 40, 8),
			Trigram: randSparse(rng, 40, 12),
		}
		if rng.IntN(5) > 0 {
			p.Dense = randDense(rng, dim)
		}
		points = append(points, p)
	}
	return meta, points
}

func randReaders(rng *rand.Rand, users []hs.UserID) []hs.UserID {
	var r []hs.UserID
	for _, u := range users {
		if rng.IntN(2) == 0 {
			r = append(r, u)
		}
	}
	return r
}

// randOps applies n random writes, metadata updates and deletes to the
// store and the model.
func randOps(t *testing.T, s *local.Store, m *model, rng *rand.Rand, n int, users []hs.UserID, dim int) {
	t.Helper()
	ctx := t.Context()
	for range n {
		id := hs.FileID(1 + rng.IntN(40))
		switch r := rng.IntN(10); {
		case r < 6:
			meta, points := randFile(rng, id, users, dim)
			if err := s.WriteFile(ctx, meta, points); err != nil {
				t.Fatalf("WriteFile(%d) = %v", id, err)
			}
			m.write(meta, points)
		case r < 8:
			meta := hs.FileMeta{ID: id, Path: fmt.Sprintf("/g/%d.md", id), Readers: randReaders(rng, users)}
			err := s.UpdateFileMeta(ctx, meta)
			if _, ok := m.files[id]; ok != (err == nil) {
				t.Fatalf("UpdateFileMeta(%d) = %v, file present: %v", id, err, ok)
			}
			m.update(meta)
		default:
			if err := s.DeleteFile(ctx, id); err != nil {
				t.Fatalf("DeleteFile(%d) = %v", id, err)
			}
			delete(m.files, id)
		}
	}
}

// checkHashes checks VectorsByHash against the model: a vector for exactly
// the hashes some point with a dense vector has, and it is one of theirs.
func checkHashes(t *testing.T, s *local.Store, m *model) {
	t.Helper()
	byHash := map[string][][]float32{}
	for _, ps := range m.files {
		for _, p := range ps {
			if p.Dense != nil && p.Chunk.Hash != "" {
				byHash[p.Chunk.Hash] = append(byHash[p.Chunk.Hash], p.Dense)
			}
		}
	}
	var hashes []string
	for i := range 25 {
		hashes = append(hashes, fmt.Sprint(i))
	}
	got, err := s.VectorsByHash(t.Context(), hashes)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hashes {
		v, ok := got[h]
		if ok != (len(byHash[h]) > 0) {
			t.Errorf("VectorsByHash has %q: %v, model: %v", h, ok, len(byHash[h]) > 0)
			continue
		}
		if ok && !slices.ContainsFunc(byHash[h], func(w []float32) bool { return cos64(v, w) > 0.99999 }) {
			t.Errorf("VectorsByHash[%q] = %v is no live point's vector", h, v)
		}
	}
}
