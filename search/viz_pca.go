package search

import (
	"math"
	"math/rand/v2"
	"slices"
)

// matrix is the plotted vectors, one row per chunk, as the projection
// reads them: products with a vector from either side.
type matrix interface {
	rows() int
	cols() int
	mul(v, out []float64)  // out (rows) = X·v
	mulT(y, out []float64) // out (cols) = Xᵀ·y
	sqNorm() float64       // Σ of every entry squared
}

// denseMatrix is a row-major matrix of dense vectors.
type denseMatrix struct {
	n, d int
	data []float32
}

func (m *denseMatrix) rows() int { return m.n }
func (m *denseMatrix) cols() int { return m.d }

func (m *denseMatrix) mul(v, out []float64) {
	v = v[:m.d]
	for i := range m.n {
		row := m.data[i*m.d : (i+1)*m.d]
		// Four sums, so the additions do not wait for each other.
		var s0, s1, s2, s3 float64
		j := 0
		for ; j+4 <= len(row); j += 4 {
			s0 += float64(row[j]) * v[j]
			s1 += float64(row[j+1]) * v[j+1]
			s2 += float64(row[j+2]) * v[j+2]
			s3 += float64(row[j+3]) * v[j+3]
		}
		for ; j < len(row); j++ {
			s0 += float64(row[j]) * v[j]
		}
		out[i] = (s0 + s1) + (s2 + s3)
	}
}

func (m *denseMatrix) mulT(y, out []float64) {
	clear(out)
	for i := range m.n {
		row := m.data[i*m.d : (i+1)*m.d]
		yi := y[i]
		for j, x := range row {
			out[j] += float64(x) * yi
		}
	}
}

func (m *denseMatrix) sqNorm() float64 {
	var s float64
	for _, x := range m.data {
		s += float64(x) * float64(x)
	}
	return s
}

// sparseMatrix is a matrix of sparse rows over columns 0..d-1.
type sparseMatrix struct {
	d   int
	idx [][]int32
	val [][]float64
}

func (m *sparseMatrix) rows() int { return len(m.idx) }
func (m *sparseMatrix) cols() int { return m.d }

func (m *sparseMatrix) mul(v, out []float64) {
	for i, ix := range m.idx {
		var s float64
		for k, j := range ix {
			s += m.val[i][k] * v[j]
		}
		out[i] = s
	}
}

func (m *sparseMatrix) mulT(y, out []float64) {
	clear(out)
	for i, ix := range m.idx {
		for k, j := range ix {
			out[j] += m.val[i][k] * y[i]
		}
	}
}

func (m *sparseMatrix) sqNorm() float64 {
	var s float64
	for _, vs := range m.val {
		for _, x := range vs {
			s += x * x
		}
	}
	return s
}

// projection is a fitted PCA: the mean of the rows and the first two
// principal axes (unit vectors in column space), with the share of the
// variance each explains.
type projection struct {
	mean      []float64
	axes      [2][]float64
	explained [2]float64
}

// PCA parameters: the subspace tracked (2 axes plus oversampling) and the
// power iterations that sharpen it. With these the first two axes agree
// with an exact eigendecomposition to a few parts in a thousand of
// explained variance (see TestPCAMatchesExact).
const (
	pcaBlock = 8
	pcaIters = 4
)

// fitPCA returns the first two principal axes of the rows of x by
// randomized subspace iteration on the centered matrix Xc (Halko,
// Martinsson and Tropp 2011, algorithm 4.4), never forming the covariance
// or Gram matrix: the cost is a few products with x. The block lives in
// row space (one entry per plotted chunk): it starts random there and is
// orthonormalized there after each product with Xc·Xcᵀ, which keeps the
// work on the long column side (the keyword space has thousands of
// terms) to the products themselves. The start vectors come from a fixed
// seed, so the same rows give the same axes; each axis is signed so that
// its largest entry is positive. Axes past the rank of x are zero.
func fitPCA(x matrix) projection {
	n, d := x.rows(), x.cols()
	p := projection{mean: make([]float64, d)}
	p.axes[0], p.axes[1] = make([]float64, d), make([]float64, d)
	if n == 0 || d == 0 {
		return p
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1 / float64(n)
	}
	x.mulT(ones, p.mean)
	total := x.sqNorm() - float64(n)*dot(p.mean, p.mean)
	if total <= 1e-12*max(1, x.sqNorm()) {
		return p // every row the same: nothing to spread
	}
	// Centered products: Xc·v = X·v − (μ·v)·1 and Xcᵀ·y = Xᵀ·y − (Σy)·μ.
	mulC := func(v, out []float64) {
		x.mul(v, out)
		c := dot(p.mean, v)
		for i := range out {
			out[i] -= c
		}
	}
	mulTC := func(y, out []float64) {
		x.mulT(y, out)
		var s float64
		for _, v := range y {
			s += v
		}
		for j := range out {
			out[j] -= s * p.mean[j]
		}
	}
	l := min(pcaBlock, n, d)
	rng := rand.New(rand.NewPCG(0x5eed, 0x9ca))
	y := newBlock(l, n)
	for _, v := range y {
		for i := range v {
			v[i] = rng.NormFloat64()
		}
	}
	orthonormalize(y)
	z := newBlock(l, d) // z[k] = Xcᵀ·y[k]
	for range pcaIters {
		for k := range l {
			mulTC(y[k], z[k])
		}
		for k := range l {
			mulC(z[k], y[k])
		}
		orthonormalize(y)
	}
	// B = Yᵀ·Xc is l×d; its rows' Gram matrix C = B·Bᵀ (l×l) has the
	// squared singular values of Xc in Y's span as eigenvalues.
	bt := z // bt[k] = Xcᵀ·y[k], the rows of B
	for k := range l {
		mulTC(y[k], bt[k])
	}
	c := newBlock(l, l)
	for a := range l {
		for b := a; b < l; b++ {
			c[a][b] = dot(bt[a], bt[b])
			c[b][a] = c[a][b]
		}
	}
	vals, vecs := jacobiEigen(c)
	for a := range min(2, l) {
		if vals[a] <= 1e-12*total {
			break
		}
		axis := p.axes[a]
		for k := range l {
			for j := range axis {
				axis[j] += vecs[k][a] * bt[k][j]
			}
		}
		scale := 1 / math.Sqrt(dot(axis, axis))
		big := 0
		for j := range axis {
			if math.Abs(axis[j]) > math.Abs(axis[big]) {
				big = j
			}
		}
		if axis[big] < 0 {
			scale = -scale
		}
		for j := range axis {
			axis[j] *= scale
		}
		p.explained[a] = min(1, vals[a]/total)
	}
	return p
}

// project returns the coordinates of every row of x.
func (p *projection) project(x matrix) [][2]float64 {
	out := make([][2]float64, x.rows())
	col := make([]float64, x.rows())
	for a := range 2 {
		x.mul(p.axes[a], col)
		c := dot(p.mean, p.axes[a])
		for i := range out {
			out[i][a] = col[i] - c
		}
	}
	return out
}

// newBlock returns k zero vectors of length n.
func newBlock(k, n int) [][]float64 {
	out := make([][]float64, k)
	for i := range out {
		out[i] = make([]float64, n)
	}
	return out
}

// orthonormalize makes the vectors orthonormal in place (modified
// Gram–Schmidt, twice for stability); a vector in the span of the earlier
// ones becomes zero.
func orthonormalize(vs [][]float64) {
	for i, v := range vs {
		for range 2 {
			for _, u := range vs[:i] {
				c := dot(u, v)
				for j := range v {
					v[j] -= c * u[j]
				}
			}
		}
		norm := math.Sqrt(dot(v, v))
		if norm < 1e-10 {
			clear(v)
			continue
		}
		for j := range v {
			v[j] /= norm
		}
	}
}

// dot is a·b, in four sums so the additions do not wait for each other.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// jacobiEigen returns the eigenvalues of the symmetric matrix a, largest
// first, and the eigenvectors as the columns of vecs (vecs[row][col]), by
// cyclic Jacobi rotations. a is overwritten.
func jacobiEigen(a [][]float64) (vals []float64, vecs [][]float64) {
	n := len(a)
	v := make([][]float64, n)
	for i := range v {
		v[i] = make([]float64, n)
		v[i][i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		var off float64
		for i := range n {
			for j := i + 1; j < n; j++ {
				off += a[i][j] * a[i][j]
			}
		}
		if off < 1e-30 {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				if math.Abs(a[p][q]) < 1e-300 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range n {
					akp, akq := a[k][p], a[k][q]
					a[k][p], a[k][q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := range n {
					apk, aqk := a[p][k], a[q][k]
					a[p][k], a[q][k] = c*apk-s*aqk, s*apk+c*aqk
				}
				for k := range n {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		switch {
		case a[i][i] > a[j][j]:
			return -1
		case a[i][i] < a[j][j]:
			return 1
		}
		return i - j
	})
	vals = make([]float64, n)
	vecs = newBlock(n, n)
	for c, i := range order {
		vals[c] = a[i][i]
		for r := range n {
			vecs[r][c] = v[r][i]
		}
	}
	return vals, vecs
}
