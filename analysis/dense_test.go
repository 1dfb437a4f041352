package analysis_test

import (
	"math"
	"testing"

	"github.com/hybrid-search/hybridsearch/analysis"
)

func TestCosine(t *testing.T) {
	tests := []struct {
		name string
		a, b []float32
		want float32
	}{
		{name: "same direction", a: []float32{1, 2}, b: []float32{2, 4}, want: 1},
		{name: "opposite", a: []float32{1, 0}, b: []float32{-3, 0}, want: -1},
		{name: "orthogonal", a: []float32{1, 0}, b: []float32{0, 5}, want: 0},
		{name: "zero vector", a: []float32{0, 0}, b: []float32{1, 1}, want: 0},
		{name: "length mismatch", a: []float32{1}, b: []float32{1, 1}, want: 0},
		{name: "empty", a: nil, b: nil, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := analysis.Cosine(tt.a, tt.b); math.Abs(float64(got-tt.want)) > 1e-6 {
				t.Errorf("Cosine(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	v := []float32{3, 4}
	analysis.Normalize(v)
	if math.Abs(float64(v[0])-0.6) > 1e-6 || math.Abs(float64(v[1])-0.8) > 1e-6 {
		t.Errorf("Normalize([3 4]) = %v, want [0.6 0.8]", v)
	}
	z := []float32{0, 0}
	analysis.Normalize(z)
	if z[0] != 0 || z[1] != 0 {
		t.Errorf("Normalize(zero) = %v, want unchanged", z)
	}
}
