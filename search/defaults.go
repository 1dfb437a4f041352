package search

import hs "github.com/hybrid-search/hybridsearch"

// Defaults are what a request that names no fusion or weights gets: the
// admin's choice, applied without a restart (SetDefaults).
type Defaults struct {
	Fusion  string     // rrf, linear or auto; "" means the rules' own default
	Weights hs.Weights // zero means the rules' own default weights
}

// SetDefaults makes d the fusion and weights of requests that name none,
// for every search from now on: the rules in force (Rules) carry them, so
// every check and whoever serves the rules follow. Empty fields of d take
// the defaults of Options.Rules. It returns the EINVALID error naming the
// rule d breaks.
func (s *Service) SetDefaults(d Defaults) error {
	if d.Fusion == hs.FusionAuto && d.Weights != (hs.Weights{}) {
		return hs.Errorf(hs.EINVALID, "search: fusion auto chooses the weights itself; default weights need rrf or linear")
	}
	r, err := s.base.WithDefaults(hs.SearchDefaults{Fusion: d.Fusion, Weights: d.Weights})
	if err != nil {
		return err
	}
	s.rules.Store(&r)
	return nil
}

// Defaults returns the fusion and weights in force.
func (s *Service) Defaults() Defaults {
	d := s.Rules().Defaults
	return Defaults{Fusion: d.Fusion, Weights: d.Weights}
}
