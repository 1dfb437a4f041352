package ncsim

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// This file ports webhook_listeners' PHPMongoQuery::executeQuery, the
// Mongo-style eventFilter matcher, with PHP's value semantics. Documents and
// filters are decoded with json.Number (PHP keeps ints and floats apart).
// Where PHP would throw (unknown operator, bad operand), mongoMatch returns
// an error; real Nextcloud then fails the request that fired the event.

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

// mongoMatch reports whether doc passes the filter (an empty filter
// matches everything).
func mongoMatch(filter, doc any) (bool, error) {
	if filter == nil {
		return true, nil
	}
	if entries, ok := phpArrayEntries(filter); ok && len(entries) == 0 {
		return true, nil
	}
	return mongoQuery(filter, doc, "$and")
}

func mongoQuery(query, doc any, logical string) (bool, error) {
	entries, ok := phpArrayEntries(query)
	if !ok {
		return false, fmt.Errorf("query must be an array, got %T", query)
	}
	if logical != "$and" {
		if _, has0 := phpIsset(query, "0"); len(entries) == 0 || !has0 {
			return false, fmt.Errorf("%s requires nonempty array", logical)
		}
	}
	indexed := len(entries) > 0 && phpIsList(entries)
	for _, e := range entries {
		var pass bool
		var err error
		_, qIsArray := phpArrayEntries(e.val)
		switch {
		case !e.isInt && strings.HasPrefix(e.key, "$"):
			if e.key == "$not" {
				pass, err = mongoQuery(e.val, doc, "$and")
				pass = !pass
			} else {
				pass, err = mongoQuery(e.val, doc, e.key)
			}
		case logical == "$and":
			switch {
			case indexed:
				pass, err = mongoQuery(e.val, doc, "$and")
			case qIsArray:
				pass, err = mongoQueryOnElement(e.val, e.key, doc)
			default:
				pass, err = mongoOperator("$e", e.val, e.key, doc)
			}
		default:
			pass, err = mongoQuery(e.val, doc, "$and")
		}
		if err != nil {
			return false, err
		}
		switch logical {
		case "$and":
			if !pass {
				return false, nil
			}
		case "$or":
			if pass {
				return true, nil
			}
		case "$nor":
			if pass {
				return false, nil
			}
		default:
			return false, nil
		}
	}
	switch logical {
	case "$and", "$nor":
		return true, nil
	}
	return false, nil
}

func mongoQueryOnElement(query any, element string, doc any) (bool, error) {
	entries, _ := phpArrayEntries(query)
	for _, e := range entries {
		ok, err := mongoOperator(e.key, e.val, element, doc)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func mongoOperator(op string, opVal any, element string, doc any) (bool, error) {
	if op == "$not" {
		ok, err := mongoQueryOnElement(opVal, element, doc)
		return !ok, err
	}
	if _, ok := phpArrayEntries(doc); !ok {
		return false, fmt.Errorf("document must be an array, got %T", doc)
	}
	spec := strings.Split(element, ".")
	v, exists := doc, true
	for i, es := range spec {
		if phpEmpty(v) {
			exists = false
			break
		}
		if _, ok := phpIsset(v, "0"); ok {
			// A list: the query passes if any element passes.
			rest := strings.Join(spec[i:], ".")
			items, _ := phpArrayEntries(v)
			for _, item := range items {
				ok, err := mongoOperator(op, opVal, rest, item.val)
				if err != nil {
					return false, err
				}
				if ok {
					return true, nil
				}
			}
			return false, nil
		}
		next, ok := phpIsset(v, es)
		if !ok {
			exists = false
			break
		}
		v = next
	}
	return mongoApply(op, opVal, v, exists)
}

func mongoApply(op string, opVal, v any, exists bool) (bool, error) {
	opList, opIsArray := phpArrayEntries(opVal)
	vList, vIsArray := phpArrayEntries(v)
	switch op {
	case "$all":
		if !exists {
			return false, nil
		}
		if !opIsArray {
			return false, fmt.Errorf("$all requires array")
		}
		if len(opList) == 0 {
			return false, nil
		}
		if !vIsArray {
			return len(opList) == 1 && phpStrictEqual(v, opList[0].val), nil
		}
		return phpIntersectCount(vList, opList) == len(opList), nil
	case "$e":
		return exists && mongoIsEqual(v, opVal), nil
	case "$in", "$nin":
		in := op == "$in"
		if !exists {
			return !in, nil
		}
		if !opIsArray {
			return false, fmt.Errorf("%s requires array", op)
		}
		if len(opList) == 0 {
			return !in, nil
		}
		var found bool
		if vIsArray {
			found = phpIntersectCount(vList, opList) > 0
		} else {
			found = phpInArray(v, opList)
		}
		return found == in, nil
	case "$lt":
		return exists && phpCompare(v, opVal) < 0, nil
	case "$lte":
		return exists && phpCompare(v, opVal) <= 0, nil
	case "$gt":
		return exists && phpCompare(v, opVal) > 0, nil
	case "$gte":
		return exists && phpCompare(v, opVal) >= 0, nil
	case "$ne":
		return (!exists && opVal != nil) || (exists && !mongoIsEqual(v, opVal)), nil
	case "$exists":
		want := !phpEmpty(opVal)
		return want == exists, nil
	case "$mod":
		if !exists {
			return false, nil
		}
		if !opIsArray || len(opList) != 2 {
			return false, fmt.Errorf("$mod requires two parameters in array: divisor and remainder")
		}
		d, r := phpToInt(opList[0].val), opList[1].val
		if d == 0 {
			return false, fmt.Errorf("$mod: modulo by zero")
		}
		return phpStrictEqual(json.Number(strconv.FormatInt(phpToInt(v)%d, 10)), r), nil
	}
	return false, fmt.Errorf("Operator %s is unknown", op)
}

// mongoRegexSyntax recognises "/pattern/flags" operand strings.
var mongoRegexSyntax = regexp.MustCompile(`(?i)^/(.*?)/([a-z]*)$`)

// mongoIsEqual is PHPMongoQuery::_isEqual: array equality, membership,
// a /regex/ operand, or strict equality.
func mongoIsEqual(v, opVal any) bool {
	vList, vIsArray := phpArrayEntries(v)
	if _, opIsArray := phpArrayEntries(opVal); vIsArray && opIsArray {
		return phpLooseEqual(v, opVal)
	}
	if vIsArray {
		return phpInArray(opVal, vList)
	}
	if s, ok := opVal.(string); ok {
		if m := mongoRegexSyntax.FindStringSubmatch(s); m != nil {
			re, err := pcreToRE2(m[1], m[2])
			if err != nil {
				return false // preg_match warns and returns false
			}
			return re.MatchString(phpToString(v))
		}
	}
	return phpStrictEqual(v, opVal)
}

// pcreToRE2 compiles preg_match('/'.pattern.'/'.flags) with Go's regexp.
// Patterns RE2 cannot express, unescaped delimiters and unknown modifiers
// fail, as they make preg_match fail.
func pcreToRE2(pattern, flags string) (*regexp.Regexp, error) {
	escaped := false
	for _, c := range pattern {
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '/':
			return nil, fmt.Errorf("unescaped delimiter in %q", pattern)
		}
	}
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i', 'm', 's', 'U':
			prefix += string(f)
		case 'u', 'D':
		default:
			return nil, fmt.Errorf("unknown modifier %q", f)
		}
	}
	if prefix != "" {
		pattern = "(?" + prefix + ")" + pattern
	}
	return regexp.Compile(pattern)
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
