package search

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestJacobiEigen checks the eigen solver on a matrix with known
// eigenvalues 6, 3 and 1.
func TestJacobiEigen(t *testing.T) {
	// Q·diag(6,3,1)·Qᵀ for an orthonormal Q.
	s2, s3, s6 := math.Sqrt(2), math.Sqrt(3), math.Sqrt(6)
	q := [][]float64{{1 / s3, 1 / s2, 1 / s6}, {1 / s3, -1 / s2, 1 / s6}, {1 / s3, 0, -2 / s6}}
	d := []float64{6, 3, 1}
	a := newBlock(3, 3)
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				a[i][j] += q[i][k] * d[k] * q[j][k]
			}
		}
	}
	vals, vecs := jacobiEigen(a)
	for i, want := range d {
		if math.Abs(vals[i]-want) > 1e-9 {
			t.Errorf("eigenvalue %d = %v, want %v", i, vals[i], want)
		}
		// Same direction as Q's column, up to sign.
		var c float64
		for r := range 3 {
			c += vecs[r][i] * q[r][i]
		}
		if math.Abs(math.Abs(c)-1) > 1e-9 {
			t.Errorf("eigenvector %d is off by cos %v", i, c)
		}
	}
}

// TestPCAKnownAxes fits points spread along two known orthogonal
// directions with known variances, plus small noise, in 64 dimensions,
// dense and sparse.
func TestPCAKnownAxes(t *testing.T) {
	const n, d = 400, 64
	rng := rand.New(rand.NewPCG(1, 2))
	u := make([]float64, d)
	v := make([]float64, d)
	u[3], u[10] = 0.6, 0.8 // unit
	v[20], v[21] = 0.8, -0.6
	mean := make([]float64, d)
	mean[0] = 5
	dm := &denseMatrix{n: n, d: d}
	sm := &sparseMatrix{d: d}
	for range n {
		a, b := 3*rng.NormFloat64(), 1*rng.NormFloat64()
		row := make([]float64, d)
		for j := range row {
			row[j] = mean[j] + a*u[j] + b*v[j] + 0.01*rng.NormFloat64()
			dm.data = append(dm.data, float32(row[j]))
		}
		ix := make([]int32, d)
		for j := range ix {
			ix[j] = int32(j)
		}
		sm.idx = append(sm.idx, ix)
		sm.val = append(sm.val, row)
	}
	for name, m := range map[string]matrix{"dense": dm, "sparse": sm} {
		t.Run(name, func(t *testing.T) {
			p := fitPCA(m)
			if c := math.Abs(dot(p.axes[0], u)); c < 0.999 {
				t.Errorf("axis 1 is off the main direction: cos %v", c)
			}
			if c := math.Abs(dot(p.axes[1], v)); c < 0.999 {
				t.Errorf("axis 2 is off the second direction: cos %v", c)
			}
			// Variances 9 and 1 of about 10.06 in all.
			if e := p.explained; math.Abs(e[0]-0.9) > 0.03 || math.Abs(e[1]-0.1) > 0.03 || e[0]+e[1] > 1 {
				t.Errorf("explained variance %v, want about [0.9 0.1]", e)
			}
			if math.Abs(p.mean[0]-5) > 0.5 {
				t.Errorf("mean[0] = %v, want about 5", p.mean[0])
			}
			xy := p.project(m)
			var sx, sy float64
			for _, c := range xy {
				sx += c[0]
				sy += c[1]
			}
			if math.Abs(sx/n) > 1e-6 || math.Abs(sy/n) > 1e-6 {
				t.Errorf("projections are not centered: mean (%v, %v)", sx/n, sy/n)
			}
			again := fitPCA(m)
			if dot(again.axes[0], p.axes[0]) != dot(p.axes[0], p.axes[0]) {
				t.Error("fitting the same rows twice gives different axes")
			}
		})
	}
}

// TestPCADegenerate covers no rows, one row and identical rows.
func TestPCADegenerate(t *testing.T) {
	for name, m := range map[string]matrix{
		"empty":      &denseMatrix{n: 0, d: 4},
		"one":        &denseMatrix{n: 1, d: 4, data: []float32{1, 2, 3, 4}},
		"identical":  &denseMatrix{n: 3, d: 2, data: []float32{1, 1, 1, 1, 1, 1}},
		"no columns": &sparseMatrix{d: 0, idx: [][]int32{{}, {}}, val: [][]float64{{}, {}}},
	} {
		p := fitPCA(m)
		if p.explained != [2]float64{} {
			t.Errorf("%s: explained %v, want zeros", name, p.explained)
		}
		for _, xy := range p.project(m) {
			if xy != [2]float64{} {
				t.Errorf("%s: a point at %v, want the origin", name, xy)
			}
		}
	}
	// Two distinct rows: one axis, all of the variance.
	p := fitPCA(&denseMatrix{n: 2, d: 3, data: []float32{0, 0, 0, 2, 0, 0}})
	if math.Abs(p.explained[0]-1) > 1e-9 || p.explained[1] != 0 {
		t.Errorf("two rows: explained %v, want [1 0]", p.explained)
	}
}

// TestPCAMatchesExact compares the randomized axes with an exact
// eigendecomposition on data shaped like what the map plots: normalised
// embeddings around a few topics (dense), and normalised BM25 rows over a
// Zipf vocabulary, with a flat spectrum (sparse). The share of the
// variance on each axis must be within 0.005 of the exact one, and the
// first two axes must span the exact plane where the eigenvalues are
// well separated.
func TestPCAMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))

	// Dense: 300 rows in 48 dimensions, 6 topics of decreasing size.
	const n, d = 300, 48
	topics := make([][]float64, 6)
	for k := range topics {
		topics[k] = make([]float64, d)
		for j := range topics[k] {
			topics[k][j] = rng.NormFloat64()
		}
	}
	dm := &denseMatrix{n: n, d: d}
	for range n {
		k := min(len(topics)-1, int(rng.ExpFloat64()*1.5))
		row := make([]float64, d)
		for j := range row {
			row[j] = topics[k][j] + 0.6*rng.NormFloat64()
		}
		normalize(row)
		for _, x := range row {
			dm.data = append(dm.data, float32(x))
		}
	}

	// Sparse: 150 rows of about 30 terms out of 600, Zipf-distributed.
	zipf := rand.NewZipf(rng, 1.1, 2, 599)
	sm := &sparseMatrix{d: 600}
	for range 150 {
		w := map[int32]float64{}
		for range 30 {
			w[int32(zipf.Uint64())] += 0.5 + rng.Float64()
		}
		var ix []int32
		var vals []float64
		for j, v := range w {
			ix = append(ix, j)
			vals = append(vals, v)
		}
		normalize(vals)
		sm.idx = append(sm.idx, ix)
		sm.val = append(sm.val, vals)
	}

	for _, tc := range []struct {
		name  string
		m     matrix
		plane bool // the first two axes are well separated from the rest
	}{{"dense", dm, true}, {"sparse", sm, false}} {
		t.Run(tc.name, func(t *testing.T) {
			vals, vecs, total := exactPCA(tc.m)
			t.Logf("exact eigenvalue shares: %.4f %.4f %.4f %.4f", vals[0]/total, vals[1]/total, vals[2]/total, vals[3]/total)
			p := fitPCA(tc.m)
			t.Logf("randomized shares:      %.4f %.4f", p.explained[0], p.explained[1])
			for a := range 2 {
				if got, want := p.explained[a], vals[a]/total; math.Abs(got-want) > 0.005 {
					t.Errorf("axis %d explains %.4f of the variance, the exact axis %.4f", a+1, got, want)
				}
			}
			if tc.plane {
				// Each randomized axis lies in the exact plane of the first two.
				for a := range 2 {
					var in float64
					for e := range 2 {
						c := dot(p.axes[a], vecs[e])
						in += c * c
					}
					if in < 0.999 {
						t.Errorf("axis %d is off the exact plane: %.5f of it lies in it", a+1, in)
					}
				}
			}
		})
	}
}

// exactPCA returns the eigenvalues of the scatter matrix of x's centred
// rows, largest first, the first four unit axes in column space, and the
// total variance (the trace), by Jacobi on the smaller of the covariance
// (d×d) and the Gram matrix (n×n).
func exactPCA(x matrix) (vals []float64, axes [][]float64, total float64) {
	n, d := x.rows(), x.cols()
	rows := newBlock(n, d)
	e := make([]float64, n)
	for i := range n {
		e[i] = 1
		x.mulT(e, rows[i])
		e[i] = 0
	}
	mean := make([]float64, d)
	for _, r := range rows {
		for j, v := range r {
			mean[j] += v / float64(n)
		}
	}
	for _, r := range rows {
		for j := range r {
			r[j] -= mean[j]
		}
		total += dot(r, r)
	}
	if d <= n {
		cov := newBlock(d, d)
		for _, r := range rows {
			for a := range d {
				for b := range d {
					cov[a][b] += r[a] * r[b]
				}
			}
		}
		vals, v := jacobiEigen(cov)
		for a := range 4 {
			axis := make([]float64, d)
			for j := range d {
				axis[j] = v[j][a]
			}
			axes = append(axes, axis)
		}
		return vals, axes, total
	}
	g := newBlock(n, n)
	for i := range n {
		for j := range n {
			g[i][j] = dot(rows[i], rows[j])
		}
	}
	vals, u := jacobiEigen(g)
	for a := range 4 {
		axis := make([]float64, d)
		for i := range n {
			for j := range d {
				axis[j] += u[i][a] * rows[i][j]
			}
		}
		normalize(axis)
		axes = append(axes, axis)
	}
	return vals, axes, total
}
