package embedding

import (
	"math"

	hs "github.com/hybrid-search/hybridsearch"
)

// normalize checks vec and scales it to unit length in place. Ollama already
// normalises; doing it again guards against proxies and older servers.
// A vector of the wrong length, with NaN or Inf, or of zero length is an
// EINTERNAL error.
func normalize(vec []float32, dim int) error {
	if dim > 0 && len(vec) != dim {
		return hs.Errorf(hs.EINTERNAL, "vector has %d dimensions, want %d", len(vec), dim)
	}
	if len(vec) == 0 {
		return hs.Errorf(hs.EINTERNAL, "empty vector")
	}
	var sum float64
	for _, v := range vec {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return hs.Errorf(hs.EINTERNAL, "vector contains NaN or Inf")
		}
		sum += f * f
	}
	if sum == 0 {
		return hs.Errorf(hs.EINTERNAL, "zero vector")
	}
	inv := 1 / math.Sqrt(sum)
	for i, v := range vec {
		vec[i] = float32(float64(v) * inv)
	}
	return nil
}
