package qdranttest

import (
	"slices"
	"strings"

	"github.com/qdrant/go-client/qdrant"
)

// checkFilter returns a codes.Unimplemented error for any condition the
// fake does not evaluate, so a filter is refused as a whole instead of
// being evaluated wrongly. A nil filter matches every point.
func checkFilter(f *qdrant.Filter) error {
	if f == nil {
		return nil
	}
	if f.MinShould != nil {
		return unimplemented("filter min_should")
	}
	for _, list := range [][]*qdrant.Condition{f.Must, f.Should, f.MustNot} {
		for _, c := range list {
			if err := checkCondition(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkCondition checks one condition; see checkFilter.
func checkCondition(c *qdrant.Condition) error {
	switch x := c.GetConditionOneOf().(type) {
	case *qdrant.Condition_HasId:
		for _, id := range x.HasId.GetHasId() {
			if _, _, err := idKey(id); err != nil {
				return err
			}
		}
		return nil
	case *qdrant.Condition_Filter:
		return checkFilter(x.Filter)
	case *qdrant.Condition_Field:
		return checkField(x.Field)
	case *qdrant.Condition_HasVector:
		return nil
	}
	return unimplemented("filter condition %T", c.GetConditionOneOf())
}

// checkField accepts a field condition on a top-level key with exactly one
// of: a keyword, keywords, integer or integers match, or a range.
func checkField(f *qdrant.FieldCondition) error {
	if f.GetKey() == "" {
		return invalid("field condition without a key")
	}
	if strings.ContainsAny(f.GetKey(), ".[") {
		return unimplemented("nested payload key %q", f.GetKey())
	}
	if f.GeoBoundingBox != nil || f.GeoRadius != nil || f.GeoPolygon != nil || f.ValuesCount != nil ||
		f.DatetimeRange != nil || f.IsEmpty != nil || f.IsNull != nil || (f.Match != nil) == (f.Range != nil) {
		return unimplemented("field condition on %q other than one match or one range", f.GetKey())
	}
	switch m := f.GetMatch().GetMatchValue().(type) {
	case nil, *qdrant.Match_Keyword, *qdrant.Match_Keywords, *qdrant.Match_Integer, *qdrant.Match_Integers:
		return nil
	default:
		return unimplemented("match %T on %q", m, f.GetKey())
	}
}

// idSets are the has_id conditions and keyword lists of a filter as sets
// (point keys, keywords), built once per request rather than once per
// point.
type idSets map[any]map[string]bool

// compileIDs returns the sets of every has_id condition and keywords match
// in f.
func compileIDs(f *qdrant.Filter) idSets {
	sets := idSets{}
	var walk func(f *qdrant.Filter)
	walk = func(f *qdrant.Filter) {
		if f == nil {
			return
		}
		for _, cs := range [][]*qdrant.Condition{f.Must, f.MustNot, f.Should} {
			for _, c := range cs {
				switch x := c.GetConditionOneOf().(type) {
				case *qdrant.Condition_HasId:
					set := map[string]bool{}
					for _, id := range x.HasId.GetHasId() {
						if key, _, err := idKey(id); err == nil {
							set[key] = true
						}
					}
					sets[x.HasId] = set
				case *qdrant.Condition_Filter:
					walk(x.Filter)
				case *qdrant.Condition_Field:
					if kw := x.Field.GetMatch().GetKeywords(); kw != nil {
						set := map[string]bool{}
						for _, k := range kw.GetStrings() {
							set[k] = true
						}
						sets[kw] = set
					}
				}
			}
		}
	}
	walk(f)
	return sets
}

// matchFilter reports whether p passes a checked filter: every must
// condition, at least one should condition if there are any, and no
// must_not condition. ids are the filter's compiled has_id conditions.
func matchFilter(f *qdrant.Filter, p *point, ids idSets) bool {
	if f == nil {
		return true
	}
	for _, c := range f.Must {
		if !matchCondition(c, p, ids) {
			return false
		}
	}
	for _, c := range f.MustNot {
		if matchCondition(c, p, ids) {
			return false
		}
	}
	if len(f.Should) == 0 {
		return true
	}
	return slices.ContainsFunc(f.Should, func(c *qdrant.Condition) bool { return matchCondition(c, p, ids) })
}

// matchCondition evaluates one checked condition. A field condition holds
// when any value of the field (any element of an array) satisfies it.
func matchCondition(c *qdrant.Condition, p *point, ids idSets) bool {
	switch x := c.GetConditionOneOf().(type) {
	case *qdrant.Condition_HasId:
		return ids[x.HasId][p.key]
	case *qdrant.Condition_Filter:
		return matchFilter(x.Filter, p, ids)
	case *qdrant.Condition_HasVector:
		// An empty sparse vector does not count, as in the IDF's N
		// (scoreSparse).
		name := x.HasVector.GetHasVector()
		_, dense := p.dense[name]
		return dense || len(p.sparse[name].indices) > 0
	case *qdrant.Condition_Field:
		f := x.Field
		kw := ids[f.GetMatch().GetKeywords()]
		return slices.ContainsFunc(p.values(f.GetKey()), func(v *qdrant.Value) bool {
			switch {
			case f.Range != nil:
				return inRange(f.Range, v)
			case kw != nil:
				s, ok := v.GetKind().(*qdrant.Value_StringValue)
				return ok && kw[s.StringValue]
			}
			return matchValue(f.Match, v)
		})
	}
	return false
}

// matchValue reports whether one payload value satisfies a match. Types
// must agree: a keyword never matches an integer.
func matchValue(m *qdrant.Match, v *qdrant.Value) bool {
	switch x := m.GetMatchValue().(type) {
	case *qdrant.Match_Keyword:
		s, ok := v.GetKind().(*qdrant.Value_StringValue)
		return ok && s.StringValue == x.Keyword
	case *qdrant.Match_Keywords:
		s, ok := v.GetKind().(*qdrant.Value_StringValue)
		return ok && slices.Contains(x.Keywords.GetStrings(), s.StringValue)
	case *qdrant.Match_Integer:
		n, ok := v.GetKind().(*qdrant.Value_IntegerValue)
		return ok && n.IntegerValue == x.Integer
	case *qdrant.Match_Integers:
		n, ok := v.GetKind().(*qdrant.Value_IntegerValue)
		return ok && slices.Contains(x.Integers.GetIntegers(), n.IntegerValue)
	}
	return false
}

// inRange reports whether a numeric payload value lies within every bound
// of r.
func inRange(r *qdrant.Range, v *qdrant.Value) bool {
	var x float64
	switch n := v.GetKind().(type) {
	case *qdrant.Value_IntegerValue:
		x = float64(n.IntegerValue)
	case *qdrant.Value_DoubleValue:
		x = n.DoubleValue
	default:
		return false
	}
	return (r.Lt == nil || x < *r.Lt) && (r.Gt == nil || x > *r.Gt) &&
		(r.Lte == nil || x <= *r.Lte) && (r.Gte == nil || x >= *r.Gte)
}
