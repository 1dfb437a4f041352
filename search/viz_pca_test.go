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
