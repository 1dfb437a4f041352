package ncsim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// This file ports webhook_listeners' PHPMongoQuery::executeQuery, the
// Mongo-style eventFilter matcher, with PHP's value semantics. Documents and
// filters are decoded with json.Number (PHP keeps ints and floats apart).
// Where PHP would throw (unknown operator, bad operand), mongoMatch returns
// an error; real Nextcloud then fails the request that fired the event.

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
