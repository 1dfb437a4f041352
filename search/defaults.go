package search

import hs "github.com/hybrid-search/hybridsearch"

// Defaults are what a request that names no fusion or weights gets: the
// admin's choice, applied without a restart (SetDefaults).
type Defaults struct {
	Fusion  string     // rrf, linear or auto; "" means rrf
	Weights hs.Weights // zero means hs.DefaultWeights
}

// SetDefaults changes the fusion and weights of requests that name none,
// for every search from now on. It returns the EINVALID error a request
// with these values would get.
func (s *Service) SetDefaults(d Defaults) error {
	probe := hs.SearchRequest{Query: "x", Fusion: d.Fusion}
	if d.Weights != (hs.Weights{}) {
		if d.Fusion == hs.FusionAuto {
			return invalid("search: fusion auto chooses the weights itself; default weights need rrf or linear")
		}
		probe.Weights = &d.Weights
	}
	if _, err := newPlan(probe); err != nil {
		return err
	}
	s.defaults.Store(&d)
	return nil
}

// Defaults returns the current defaults, with the built-in values filled in.
func (s *Service) Defaults() Defaults {
	d := Defaults{Fusion: hs.FusionRRF, Weights: hs.DefaultWeights}
	if cur := s.defaults.Load(); cur != nil {
		if cur.Fusion != "" {
			d.Fusion = cur.Fusion
		}
		if cur.Weights != (hs.Weights{}) {
			d.Weights = cur.Weights
		}
	}
	return d
}

// withDefaults fills a request's missing fusion and weights from the
// defaults. Weights stay unset under auto fusion, which picks its own.
func (s *Service) withDefaults(req hs.SearchRequest) hs.SearchRequest {
	cur := s.defaults.Load()
	if cur == nil {
		return req
	}
	if req.Fusion == "" && cur.Fusion != "" && (cur.Fusion != hs.FusionAuto || req.Weights == nil) {
		req.Fusion = cur.Fusion
	}
	if req.Weights == nil && req.Fusion != hs.FusionAuto && cur.Weights != (hs.Weights{}) {
		w := cur.Weights
		req.Weights = &w
	}
	return req
}
