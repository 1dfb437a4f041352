package ncsim

// PHP value semantics for JSON-decoded values (json.Number keeps PHP ints
// and floats apart): arrays, isset, ===, == and <=>, as webhook_listeners'
// filter matching relies on them.

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// phpEntry is one key/value pair of a PHP array.
type phpEntry struct {
	key   string
	isInt bool
	val   any
}

// phpArrayEntries returns v's entries if v is a PHP array (JSON object or
// list). Object keys that are canonical integers become int keys, as PHP
// does; object entries are in sorted key order (Go maps have no order).
func phpArrayEntries(v any) ([]phpEntry, bool) {
	switch t := v.(type) {
	case []any:
		out := make([]phpEntry, len(t))
		for i, e := range t {
			out[i] = phpEntry{key: strconv.Itoa(i), isInt: true, val: e}
		}
		return out, true
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]phpEntry, len(keys))
		for i, k := range keys {
			n, err := strconv.Atoi(k)
			out[i] = phpEntry{key: k, isInt: err == nil && strconv.Itoa(n) == k, val: t[k]}
		}
		return out, true
	}
	return nil, false
}

// phpIsList is array_is_list.
func phpIsList(entries []phpEntry) bool {
	for i, e := range entries {
		if !e.isInt || e.key != strconv.Itoa(i) {
			return false
		}
	}
	return true
}

// phpIsset is isset($v[$key]): the element exists and is not null. On a
// string it indexes characters.
func phpIsset(v any, key string) (any, bool) {
	switch t := v.(type) {
	case []any:
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(t) || t[i] == nil {
			return nil, false
		}
		return t[i], true
	case map[string]any:
		e, ok := t[key]
		return e, ok && e != nil
	case string:
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(t) {
			return nil, false
		}
		return t[i : i+1], true
	}
	return nil, false
}

// phpNumber reads a numeric value; isInt tells PHP ints from floats.
func phpNumber(v any) (f float64, isInt bool, ok bool) {
	switch t := v.(type) {
	case json.Number:
		s := t.String()
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return float64(i), true, true
			}
		}
		f, err := t.Float64()
		return f, false, err == nil
	case float64:
		return t, t == math.Trunc(t) && math.Abs(t) < 1<<53, true
	case int:
		return float64(t), true, true
	}
	return 0, false, false
}

// phpNumericString reports whether s is a PHP numeric string.
func phpNumericString(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil
}

func phpToString(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case bool:
		if t {
			return "1"
		}
		return ""
	case string:
		return t
	case json.Number:
		return t.String()
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	if _, ok := phpArrayEntries(v); ok {
		return "Array"
	}
	return fmt.Sprint(v)
}

func phpToInt(v any) int64 {
	if f, _, ok := phpNumber(v); ok {
		return int64(f)
	}
	if s, ok := v.(string); ok {
		if f, ok := phpNumericString(s); ok {
			return int64(f)
		}
	}
	if b, ok := v.(bool); ok && b {
		return 1
	}
	return 0
}

// phpStrictEqual is ===.
func phpStrictEqual(a, b any) bool {
	fa, ia, na := phpNumber(a)
	fb, ib, nb := phpNumber(b)
	if na || nb {
		return na && nb && ia == ib && fa == fb
	}
	ea, aArr := phpArrayEntries(a)
	eb, bArr := phpArrayEntries(b)
	if aArr || bArr {
		if !aArr || !bArr || len(ea) != len(eb) {
			return false
		}
		for i := range ea {
			if ea[i].key != eb[i].key || !phpStrictEqual(ea[i].val, eb[i].val) {
				return false
			}
		}
		return true
	}
	return a == b
}

// phpLooseEqual is == (PHP 8 rules for the JSON types).
func phpLooseEqual(a, b any) bool {
	ea, aArr := phpArrayEntries(a)
	eb, bArr := phpArrayEntries(b)
	if aArr || bArr {
		if !aArr || !bArr || len(ea) != len(eb) {
			return aArr != bArr && (phpEmpty(a) == phpEmpty(b)) && (isBoolOrNull(a) || isBoolOrNull(b))
		}
		m := map[string]any{}
		for _, e := range eb {
			m[e.key] = e.val
		}
		for _, e := range ea {
			other, ok := m[e.key]
			if !ok || !phpLooseEqual(e.val, other) {
				return false
			}
		}
		return true
	}
	if isBoolOrNull(a) || isBoolOrNull(b) {
		if a == nil && b == nil {
			return true
		}
		if sa, ok := a.(string); ok && b == nil {
			return sa == ""
		}
		if sb, ok := b.(string); ok && a == nil {
			return sb == ""
		}
		return phpEmpty(a) == phpEmpty(b)
	}
	return phpCompare(a, b) == 0
}

func isBoolOrNull(v any) bool {
	if v == nil {
		return true
	}
	_, ok := v.(bool)
	return ok
}

// phpCompare is <=> for scalars (PHP 8 rules).
func phpCompare(a, b any) int {
	if isBoolOrNull(a) || isBoolOrNull(b) {
		if a == nil && b == nil {
			return 0
		}
		ba, bb := !phpEmpty(a), !phpEmpty(b)
		switch {
		case ba == bb:
			return 0
		case bb:
			return -1
		}
		return 1
	}
	fa, _, na := phpNumber(a)
	fb, _, nb := phpNumber(b)
	sa, aStr := a.(string)
	sb, bStr := b.(string)
	if aStr {
		fa, na = phpNumericString(sa)
	}
	if bStr {
		fb, nb = phpNumericString(sb)
	}
	if na && nb {
		return cmpFloat(fa, fb)
	}
	return strings.Compare(phpToString(a), phpToString(b))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// phpInArray is in_array($needle, $haystack) (loose comparison).
func phpInArray(needle any, haystack []phpEntry) bool {
	for _, e := range haystack {
		if phpLooseEqual(needle, e.val) {
			return true
		}
	}
	return false
}

// phpIntersectCount is count(array_intersect($a, $b)): elements of a whose
// string form appears in b.
func phpIntersectCount(a, b []phpEntry) int {
	set := map[string]bool{}
	for _, e := range b {
		set[phpToString(e.val)] = true
	}
	n := 0
	for _, e := range a {
		if set[phpToString(e.val)] {
			n++
		}
	}
	return n
}
