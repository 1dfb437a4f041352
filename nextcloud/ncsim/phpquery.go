package ncsim

import (
	"net/url"
	"strconv"
	"strings"
)

// AppAPI's proxy does not pass the query string on: it hands PHP's $_GET to
// requestToExApp2, which rebuilds it with http_build_query
// (ExAppProxyController::ExAppGet/Post/Put/Delete "queryParams: $_GET",
// AppAPIService::prepareRequestToExApp2, the same in v32.0.0, v32.0.10,
// v33.0.0, v33.0.8, v34.0.0, v34.0.3 and v35.0.0beta4). What that does to
// a query, after PHP's own parsing (main/php_variables.c
// php_register_variable_ex) and http_build_query (ext/standard/http.c):
//
//   - a repeated name keeps its last value, in the place it first had;
//   - "a[]=x&a[]=y" becomes an array, sent on as "a%5B0%5D=x&a%5B1%5D=y",
//     "a[k]=x" as "a%5Bk%5D=x";
//   - spaces and dots in a name (before its first "[") become "_", a "["
//     without "]" becomes "_", leading spaces are dropped, and an empty
//     name drops the pair;
//   - names and values are sent urlencode()d: letters, digits and "-_."
//     stay, a space becomes "+", everything else %XX;
//   - PHP keeps at most max_input_vars (1000) variables.
//
// HaRP passes the query string through untouched (haproxy_agent.py sets
// only the path).

// phpMaxInputVars is PHP's max_input_vars default.
const phpMaxInputVars = 1000

// phpQueryNode is one $_GET value: a string or an ordered array.
type phpQueryNode struct {
	value string
	keys  []string // array keys in order; nil for a string
	items map[string]*phpQueryNode
}

func (n *phpQueryNode) isArray() bool { return n.items != nil }

// set stores v under key, keeping the key's first position.
func (n *phpQueryNode) set(key string, v *phpQueryNode) {
	if _, ok := n.items[key]; !ok {
		n.keys = append(n.keys, key)
	}
	n.items[key] = v
}

// next is the key "[]" appends under: one more than the largest integer
// key, or 0.
func (n *phpQueryNode) next() string {
	k := 0
	for _, key := range n.keys {
		if i, err := strconv.Atoi(key); err == nil && i >= k {
			k = i + 1
		}
	}
	return strconv.Itoa(k)
}

func newPHPArray() *phpQueryNode { return &phpQueryNode{items: map[string]*phpQueryNode{}} }

// phpQuery returns what AppAPI's proxy sends for rawQuery: PHP's $_GET of
// it, rebuilt with http_build_query ("" when $_GET is empty).
func phpQuery(rawQuery string) string {
	var b strings.Builder
	phpBuild(&b, phpParseQuery(rawQuery), "")
	return b.String()
}

// phpParseQuery is PHP's $_GET of rawQuery.
func phpParseQuery(rawQuery string) *phpQueryNode {
	get := newPHPArray()
	vars := 0
	for _, pair := range strings.Split(rawQuery, "&") {
		if pair == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(rawName)
		if err != nil {
			name = rawName
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			value = rawValue
		}
		if vars++; vars > phpMaxInputVars {
			break
		}
		phpRegister(get, name, value)
	}
	return get
}

// phpRegister is php_register_variable_ex for one name=value pair.
func phpRegister(get *phpQueryNode, name, value string) {
	name = strings.TrimLeft(name, " ")
	base, rest := name, ""
	if i := strings.IndexByte(name, '['); i >= 0 {
		base, rest = name[:i], name[i:]
	}
	base = strings.NewReplacer(" ", "_", ".", "_").Replace(base)
	if base == "" {
		return
	}
	// The indexes: "[...]" groups; anything after a "]" that is not "["
	// ends them. A "[" without "]" makes the rest part of a plain name.
	var idx []string
	for rest != "" && rest[0] == '[' {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			if len(idx) == 0 {
				base += "_" + rest[1:]
				rest = ""
			}
			break
		}
		idx = append(idx, rest[1:end])
		rest = rest[end+1:]
	}
	cur := get
	key := base
	for _, ix := range idx {
		child, ok := cur.items[key]
		if !ok || !child.isArray() {
			child = newPHPArray()
			cur.set(key, child)
		}
		cur = child
		if ix == "" {
			ix = cur.next()
		}
		key = ix
	}
	cur.set(key, &phpQueryNode{value: value})
}

// phpBuild is http_build_query (PHP_QUERY_RFC1738) of n under prefix.
func phpBuild(b *strings.Builder, n *phpQueryNode, prefix string) {
	for _, k := range n.keys {
		v := n.items[k]
		name := phpURLEncode(k)
		if prefix != "" {
			name = prefix + "%5B" + name + "%5D"
		}
		if v.isArray() {
			phpBuild(b, v, name)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(name + "=" + phpURLEncode(v.value))
	}
}

// phpURLEncode is PHP's urlencode.
func phpURLEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
