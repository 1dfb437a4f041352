package local

import "math"

// The int8 copy of the dense slab lets SearchDense rank most rows from a
// quarter of the bytes and still return exactly what the float32 scan
// returns (see quant.go). A vector v of n floats is stored as
//
//	v = s_v·v8 + r_v,   s_v = max_j |v_j| / 127,   v8_j = round(v_j/s_v) ∈ [-127, 127]
//
// where r_v is the rounding residual, and the query q the same way. Then
//
//	q·v = s_q·s_v·(q8·v8) + s_q·(q8·r_v) + r_q·v
//
// exactly, and by Cauchy–Schwarz on the last two terms (the query is
// quantized to more levels than 127, see quantQuery; the identity holds
// for any integer codes)
//
//	|q·v − s_q·s_v·(q8·v8)| ≤ s_q·‖q8‖·‖r_v‖ + ‖r_q‖·‖v‖.
//
// The bound holds whatever integers v8 holds, so it does not lean on the
// rounding being to nearest; ‖r_v‖ is simply measured. The store compares
// against the float32 score dotRows computes, not the real q·v: any
// summation order of n float32 products is within γ_n·Σ|q_j·v_j| ≤
// γ_n·‖q‖·‖v‖ of it (γ_n = n·u/(1−n·u), u = 2⁻²⁴; Higham, Accuracy and
// Stability, §3.1; an FMA only removes roundings). The bounds are evaluated
// in float64, whose own rounding (relative 2⁻⁵³ per step, a few steps) is
// covered by doubling that term. So, with
//
//	bound = s_q·‖q8‖·‖r_v‖ + ‖r_q‖·‖v‖ + 2·γ_n·‖q‖·‖v‖,
//
// the float32 score lies in [approx − bound, approx + bound]. For unit
// 768-dim vectors s ≈ 1e-3 and ‖r‖ ≈ s·√(n/12) ≈ 8e-3; with the query
// quantized finely (‖r_q‖ ≈ 4e-5) bound ≈ 0.008, which separates the top
// of a ranking from the bulk of it. (The bound
// Σ|q8|/2 + Σ|v8|/2 + n/4 in units of s_q·s_v, from |r_j| ≤ s/2, is about
// 40% looser on such vectors.)

// quantMaxDim is the largest dimension whose int8 dot products fit in the
// int32 accumulators with query codes of at least 127 (queryLevels):
// 127²·n < 2³¹ for n ≤ 2¹⁶, whatever the lane split.
const quantMaxDim = 1 << 16

// quantRow describes one row of the int8 copy: v = scale·v8 + r.
type quantRow struct {
	scale float64 // s_v
	resid float64 // ‖r_v‖
	norm  float64 // ‖v‖
}

// maxAbsAndSquares returns the largest |v_j| and Σ v_j², in float64.
func maxAbsAndSquares(v []float32) (mx, nn float64) {
	for _, x := range v {
		xf := float64(x)
		nn += xf * xf
		if a := math.Abs(xf); a > mx {
			mx = a
		}
	}
	return mx, nn
}

// quantize writes v's int8 codes into dst (len(dst) ≥ len(v)) and returns
// its scale, residual norm and norm. A zero vector has scale 0, codes 0.
// Codes are v_j·(127/max) rounded, which may differ from v_j/s_v rounded in
// the last bit; the bound does not care, as the residual is measured.
func quantize(v []float32, dst []int8) quantRow {
	mx, nn := maxAbsAndSquares(v)
	row := quantRow{scale: mx / 127, norm: math.Sqrt(nn)}
	dst = dst[:len(v)]
	if mx == 0 {
		clear(dst)
		return row
	}
	inv := 127 / mx
	var rr float64
	for j, x := range v {
		xf := float64(x)
		c := math.RoundToEven(xf * inv) // |xf·inv| ≤ 127(1+2⁻⁵²): no clamp
		dst[j] = int8(c)
		r := xf - row.scale*c
		rr += r * r
	}
	row.resid = math.Sqrt(rr)
	return row
}

// quantQuery is a query prepared for the int8 scan (quant.go). The query is quantized
// like a row, v = s·q16 + r, but to as many levels as the int32
// accumulators allow (queryLevels) rather than 127: its residual ‖r_q‖,
// the second term of the bound, becomes negligible, which halves the
// interval and the rows the float32 pass rescores.
type quantQuery struct {
	q16   []int16 // the query's codes, as the kernel reads them
	scale float64 // s_q
	a     float64 // s_q·‖q16‖, times a row's ‖r_v‖
	b     float64 // ‖r_q‖ + 2·γ_n·‖q‖, times a row's ‖v‖
}

// queryLevels returns the largest query code for n dimensions: the dot
// product with int8 rows, at most 127·levels·n in absolute value, must fit
// in an int32 (and a code in an int16). It is at least 127 up to
// quantMaxDim.
func queryLevels(n int) float64 {
	return float64(min(math.MaxInt16, math.MaxInt32/(127*max(n, 1))))
}

func newQuantQuery(q []float32) quantQuery {
	mx, nn := maxAbsAndSquares(q)
	nu := float64(len(q)) * 0x1p-24
	gamma := nu / (1 - nu)
	qq := quantQuery{q16: make([]int16, len(q)), b: 2 * gamma * math.Sqrt(nn)}
	if mx == 0 {
		return qq
	}
	levels := queryLevels(len(q))
	qq.scale = mx / levels
	inv := levels / mx
	var ss, rr float64
	for j, x := range q {
		xf := float64(x)
		c := math.RoundToEven(xf * inv) // |xf·inv| ≤ levels(1+2⁻⁵²): no clamp
		qq.q16[j] = int16(c)
		ss += c * c
		r := xf - qq.scale*c
		rr += r * r
	}
	qq.a = qq.scale * math.Sqrt(ss)
	qq.b += math.Sqrt(rr)
	return qq
}

// interval returns the range [lo, hi] that the float32 score dotRows
// computes for a row lies in, given the row's int8 dot product with the
// query.
func (qq *quantQuery) interval(dot int32, r *quantRow) (lo, hi float64) {
	approx := float64(dot) * qq.scale * r.scale
	bound := qq.a*r.resid + qq.b*r.norm
	return approx - bound, approx + bound
}

// dot8Generic returns the dot product of q and b[:len(q)].
func dot8Generic(q []int16, b []int8) int32 {
	b = b[:len(q)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += int32(q[i]) * int32(b[i])
		s1 += int32(q[i+1]) * int32(b[i+1])
		s2 += int32(q[i+2]) * int32(b[i+2])
		s3 += int32(q[i+3]) * int32(b[i+3])
	}
	for ; i < len(q); i++ {
		s0 += int32(q[i]) * int32(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// dot8RowsGeneric is the pure-Go dot8Rows.
func dot8RowsGeneric(q []int16, slab []int8, slots []int32, out []int32) {
	dim := len(q)
	out = out[:len(slots)]
	for i, s := range slots {
		off := int(s) * dim
		out[i] = dot8Generic(q, slab[off:off+dim:off+dim])
	}
}

// dot8x8RowsGeneric is the pure-Go dot8x8Rows.
func dot8x8RowsGeneric(q []int8, slab []int8, slots []int32, out []int32) {
	dim := len(q)
	out = out[:len(slots)]
	for i, s := range slots {
		off := int(s) * dim
		b := slab[off : off+dim : off+dim]
		var s0, s1, s2, s3 int32
		j := 0
		for ; j+4 <= dim; j += 4 {
			s0 += int32(q[j]) * int32(b[j])
			s1 += int32(q[j+1]) * int32(b[j+1])
			s2 += int32(q[j+2]) * int32(b[j+2])
			s3 += int32(q[j+3]) * int32(b[j+3])
		}
		for ; j < dim; j++ {
			s0 += int32(q[j]) * int32(b[j])
		}
		out[i] = (s0 + s1) + (s2 + s3)
	}
}
