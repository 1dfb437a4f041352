package ncsim

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// searchOp is a compiled where clause. Callers hold files.mu.
type searchOp func(fs *filesState, uid string, e entry) bool

// searchField reads a searchable property of an entry.
type searchField struct {
	numeric bool
	get     func(fs *filesState, uid string, e entry) (str string, num int64)
}

// searchFields are the properties FileSearchBackend supports in where and
// orderby clauses.
var searchFields = map[propName]searchField{
	{nsDAV, "displayname"}: {get: func(_ *filesState, _ string, e entry) (string, int64) {
		_, name := splitPath(e.path)
		return name, 0
	}},
	{nsDAV, "getcontenttype"}:  {get: func(_ *filesState, _ string, e entry) (string, int64) { return mimeOf(e.n), 0 }},
	{nsDAV, "getlastmodified"}: {numeric: true, get: func(_ *filesState, _ string, e entry) (string, int64) { return "", e.n.mtime }},
	{nsOC, "size"}:             {numeric: true, get: func(fs *filesState, uid string, e entry) (string, int64) { return "", fs.viewSize(uid, e) }},
	{nsOC, "fileid"}:           {numeric: true, get: func(_ *filesState, _ string, e entry) (string, int64) { return "", e.n.id }},
	{nsOC, "favorite"}: {numeric: true, get: func(fs *filesState, uid string, e entry) (string, int64) {
		if u := fs.user(uid); u != nil && u.favorites[e.n.id] {
			return "", 1
		}
		return "", 0
	}},
	{nsOC, "owner-id"}: {get: func(_ *filesState, _ string, e entry) (string, int64) { return e.n.owner, 0 }},
}

// handleSearch answers SEARCH (RFC 5323) on /remote.php/dav/ the way
// Nextcloud's FileSearchBackend does.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	me, ok := s.davUser(w, r)
	if !ok {
		return
	}
	root, err := parseXMLBody(r.Body)
	if err != nil || root == nil || root.XMLName.Space != nsDAV || root.XMLName.Local != "searchrequest" {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, "Unexpected xml, expected a {DAV:}searchrequest")
		return
	}
	bs := root.child(nsDAV, "basicsearch")
	if bs == nil {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, "Unexpected xml, expected a {DAV:}basicsearch")
		return
	}
	q, err := parseBasicSearch(bs)
	if err != nil {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, err.Error())
		return
	}
	scopeUID, scopePath, ok := strings.Cut(strings.TrimPrefix(q.scope, "/files/"), "/")
	if !strings.HasPrefix(q.scope, "/files/") || scopeUID == "" {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, "Invalid search scope "+q.scope)
		return
	}
	if !ok {
		scopePath = ""
	}
	if scopeUID != me {
		if s.userExists(scopeUID) {
			writeDAVError(w, http.StatusBadRequest, exBadRequest, "Search is only supported on directories")
			return
		}
		writeDAVError(w, http.StatusNotFound, exNotFound, "Principal with name "+scopeUID+" not found")
		return
	}
	fs := &s.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	scope, ok := fs.resolve(me, scopePath)
	if !ok {
		writeFSError(w, errNotFound(scopePath))
		return
	}
	if !scope.n.isDir {
		writeDAVError(w, http.StatusBadRequest, exBadRequest, "Search is only supported on directories")
		return
	}
	var hits []entry
	fs.walk(me, scope, q.depth, func(e entry) {
		if e.path != scope.path && (q.where == nil || q.where(fs, me, e)) {
			hits = append(hits, e)
		}
	})
	sort.SliceStable(hits, func(i, j int) bool { return q.less(fs, me, hits[i], hits[j]) })
	if q.offset > 0 {
		hits = hits[min(q.offset, len(hits)):]
	}
	if q.limit > 0 && len(hits) > q.limit {
		hits = hits[:q.limit]
	}
	ms := newMultistatus()
	for _, e := range hits {
		// FileSearchBackend builds hrefs without the trailing slash of folders.
		found, missing := s.renderProps(me, e, q.props, len(q.props) == 0)
		ms.response(encodeDAVPath("/remote.php/dav/files/"+me+e.path), found, missing)
	}
	ms.write(w)
}

// searchQuery is a parsed basicsearch.
type searchQuery struct {
	props  []propName
	scope  string
	depth  int
	where  searchOp
	orders []searchOrder
	limit  int
	offset int
}

type searchOrder struct {
	field searchField
	desc  bool
}

// less orders hits by the orderby clauses, then by file id.
func (q *searchQuery) less(fs *filesState, uid string, a, b entry) bool {
	for _, o := range q.orders {
		as, an := o.field.get(fs, uid, a)
		bs, bn := o.field.get(fs, uid, b)
		c := strings.Compare(as, bs)
		if o.field.numeric {
			c = cmpInt(an, bn)
		}
		if c != 0 {
			return (c < 0) != o.desc
		}
	}
	return a.n.id < b.n.id
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// parseBasicSearch reads select, from, where, orderby and limit.
func parseBasicSearch(bs *xmlElem) (*searchQuery, error) {
	q := &searchQuery{depth: davDepthInfinity}
	if sel := bs.child(nsDAV, "select"); sel != nil {
		if prop := sel.child(nsDAV, "prop"); prop != nil {
			for _, c := range prop.Children {
				q.props = append(q.props, propName{c.XMLName.Space, c.XMLName.Local})
			}
		}
	}
	scope := bs.child(nsDAV, "from")
	if scope != nil {
		scope = scope.child(nsDAV, "scope")
	}
	if scope == nil || scope.child(nsDAV, "href") == nil {
		return nil, fmt.Errorf("missing {DAV:}scope")
	}
	href, err := url.PathUnescape(strings.TrimSpace(scope.child(nsDAV, "href").Text))
	if err != nil {
		return nil, fmt.Errorf("invalid scope href: %w", err)
	}
	q.scope = strings.TrimSuffix(href, "/")
	if d := scope.child(nsDAV, "depth"); d != nil {
		q.depth = parseDepth(d.Text, davDepthInfinity)
	}
	if where := bs.child(nsDAV, "where"); where != nil && len(where.Children) > 0 {
		if q.where, err = compileWhere(&where.Children[0]); err != nil {
			return nil, err
		}
	}
	if ob := bs.child(nsDAV, "orderby"); ob != nil {
		for _, o := range ob.Children {
			prop := o.child(nsDAV, "prop")
			if prop == nil || len(prop.Children) == 0 {
				return nil, fmt.Errorf("an order needs a {DAV:}prop")
			}
			f, err := fieldFor(prop)
			if err != nil {
				return nil, err
			}
			q.orders = append(q.orders, searchOrder{field: f, desc: o.child(nsDAV, "descending") != nil})
		}
	}
	if lim := bs.child(nsDAV, "limit"); lim != nil {
		for _, c := range lim.Children {
			n, err := strconv.Atoi(strings.TrimSpace(c.Text))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("invalid %s", c.XMLName.Local)
			}
			switch c.XMLName.Local {
			case "nresults":
				q.limit = n
			case "firstresult":
				q.offset = n
			}
		}
	}
	return q, nil
}

// fieldFor returns the search field of the first property inside prop.
func fieldFor(prop *xmlElem) (searchField, error) {
	if len(prop.Children) == 0 {
		return searchField{}, fmt.Errorf("missing property")
	}
	c := prop.Children[0]
	f, ok := searchFields[propName{c.XMLName.Space, c.XMLName.Local}]
	if !ok {
		return searchField{}, fmt.Errorf("Unsupported property for where or orderby clause: {%s}%s", c.XMLName.Space, c.XMLName.Local)
	}
	return f, nil
}

// compileWhere turns a where operator into a predicate.
func compileWhere(el *xmlElem) (searchOp, error) {
	if el.XMLName.Space != nsDAV {
		return nil, fmt.Errorf("unsupported operator {%s}%s", el.XMLName.Space, el.XMLName.Local)
	}
	switch op := el.XMLName.Local; op {
	case "and", "or":
		var subs []searchOp
		for i := range el.Children {
			sub, err := compileWhere(&el.Children[i])
			if err != nil {
				return nil, err
			}
			subs = append(subs, sub)
		}
		return func(fs *filesState, uid string, e entry) bool {
			for _, sub := range subs {
				if sub(fs, uid, e) == (op == "or") {
					return op == "or"
				}
			}
			return op == "and"
		}, nil
	case "not":
		if len(el.Children) != 1 {
			return nil, fmt.Errorf("{DAV:}not takes one operator")
		}
		sub, err := compileWhere(&el.Children[0])
		if err != nil {
			return nil, err
		}
		return func(fs *filesState, uid string, e entry) bool { return !sub(fs, uid, e) }, nil
	case "is-collection":
		return func(_ *filesState, _ string, e entry) bool { return e.n.isDir }, nil
	case "eq", "gt", "gte", "lt", "lte", "like":
		return compileComparison(op, el)
	}
	return nil, fmt.Errorf("unsupported operator {DAV:}%s", el.XMLName.Local)
}

// compileComparison compiles <d:eq><d:prop>…</d:prop><d:literal>…</d:literal></d:eq>.
func compileComparison(op string, el *xmlElem) (searchOp, error) {
	prop, lit := el.child(nsDAV, "prop"), el.child(nsDAV, "literal")
	if prop == nil || lit == nil {
		return nil, fmt.Errorf("{DAV:}%s needs a {DAV:}prop and a {DAV:}literal", op)
	}
	f, err := fieldFor(prop)
	if err != nil {
		return nil, err
	}
	name := prop.Children[0].XMLName
	if f.numeric {
		if op == "like" {
			return nil, fmt.Errorf("like is not supported on {%s}%s", name.Space, name.Local)
		}
		want, err := castLiteral(name.Local, lit.Text)
		if err != nil {
			return nil, err
		}
		return func(fs *filesState, uid string, e entry) bool {
			_, got := f.get(fs, uid, e)
			return compare(op, cmpInt(got, want))
		}, nil
	}
	want := lit.Text
	if op == "like" {
		re, err := likePattern(want)
		if err != nil {
			return nil, err
		}
		return func(fs *filesState, uid string, e entry) bool {
			got, _ := f.get(fs, uid, e)
			return re.MatchString(got)
		}, nil
	}
	return func(fs *filesState, uid string, e entry) bool {
		got, _ := f.get(fs, uid, e)
		return compare(op, strings.Compare(got, want))
	}, nil
}

// castLiteral parses a numeric literal; getlastmodified also takes an
// ATOM date, as FileSearchBackend::castValue does.
func castLiteral(prop, v string) (int64, error) {
	v = strings.TrimSpace(v)
	switch v {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, nil
	}
	if prop == "getlastmodified" {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t.Unix(), nil
		}
	}
	return 0, fmt.Errorf("invalid literal %q for %s", v, prop)
}

func compare(op string, c int) bool {
	switch op {
	case "eq":
		return c == 0
	case "gt":
		return c > 0
	case "gte":
		return c >= 0
	case "lt":
		return c < 0
	case "lte":
		return c <= 0
	}
	return false
}

// likePattern turns an SQL LIKE pattern (% and _) into a case-insensitive
// regular expression.
func likePattern(p string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("(?is)^")
	for _, r := range p {
		switch r {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
