package ncsim

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// XML namespaces of Nextcloud's WebDAV properties.
const (
	nsDAV   = "DAV:"
	nsSabre = "http://sabredav.org/ns"
	nsOC    = "http://owncloud.org/ns"
	nsNC    = "http://nextcloud.org/ns"
	nsOCS   = "http://open-collaboration-services.org/ns"
)

// nsPrefix is the prefix Nextcloud's Sabre server uses for each namespace.
var nsPrefix = map[string]string{nsDAV: "d", nsSabre: "s", nsOC: "oc", nsNC: "nc", nsOCS: "ocs"}

// propName is a WebDAV property name.
type propName struct{ ns, local string }

func (p propName) String() string { return "{" + p.ns + "}" + p.local }

// davDepthInfinity is the Depth: infinity value.
const davDepthInfinity = -1

// parseDepth reads a Depth header the way Sabre's getHTTPDepth does:
// missing or invalid gives def.
func parseDepth(h string, def int) int {
	h = strings.TrimSpace(strings.ToLower(h))
	if h == "infinity" {
		return davDepthInfinity
	}
	if d, err := strconv.Atoi(h); err == nil && d >= 0 {
		return d
	}
	return def
}

// xmlElem is a generic XML element, enough to read PROPFIND and SEARCH
// bodies without caring for prefixes.
type xmlElem struct {
	XMLName  xml.Name
	Children []xmlElem `xml:",any"`
	Text     string    `xml:",chardata"`
}

// child returns the first child named local in namespace ns.
func (e *xmlElem) child(ns, local string) *xmlElem {
	for i := range e.Children {
		if e.Children[i].XMLName.Space == ns && e.Children[i].XMLName.Local == local {
			return &e.Children[i]
		}
	}
	return nil
}

var emptyPrefixDecl = regexp.MustCompile(`xmlns:[^=\s]+\s*=\s*(""|'')`)

// parseXMLBody decodes r into a generic element tree; an empty body gives nil.
func parseXMLBody(r io.Reader) (*xmlElem, error) {
	raw, err := io.ReadAll(io.LimitReader(r, 4<<20))
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(raw)) == "" {
		return nil, nil
	}
	if emptyPrefixDecl.Match(raw) {
		// Namespaces in XML 1.0 forbids undeclaring a prefix; libxml (and
		// so Sabre) rejects it, Go's decoder does not.
		return nil, errors.New("invalid namespace declaration: a prefix bound to the empty namespace")
	}
	var root xmlElem
	if err := xml.Unmarshal(raw, &root); err != nil {
		return nil, err
	}
	return &root, nil
}

// parsePropfind returns the requested properties, or allprop for an empty
// body, <d:allprop/> or <d:propname/>.
func parsePropfind(r io.Reader) (props []propName, allprop bool, err error) {
	root, err := parseXMLBody(r)
	if err != nil {
		return nil, false, err
	}
	if root == nil {
		return nil, true, nil
	}
	if root.XMLName.Space != nsDAV || root.XMLName.Local != "propfind" {
		return nil, false, errors.New("the root element must be {DAV:}propfind")
	}
	prop := root.child(nsDAV, "prop")
	if prop == nil {
		return nil, true, nil
	}
	for _, c := range prop.Children {
		props = append(props, propName{c.XMLName.Space, c.XMLName.Local})
	}
	return props, false, nil
}

// allProps are the properties Sabre returns for allprop.
var allProps = []propName{
	{nsDAV, "getlastmodified"}, {nsDAV, "getcontentlength"}, {nsDAV, "resourcetype"},
	{nsDAV, "quota-used-bytes"}, {nsDAV, "quota-available-bytes"}, {nsDAV, "getetag"},
	{nsDAV, "getcontenttype"},
}

// propVal is a found property with its already escaped inner XML.
type propVal struct {
	name  propName
	inner string
}

// multistatus builds a 207 Multi-Status body the way Sabre writes it.
type multistatus struct{ b strings.Builder }

func newMultistatus() *multistatus {
	m := &multistatus{}
	m.b.WriteString(`<?xml version="1.0"?>` + "\n")
	m.b.WriteString(`<d:multistatus xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">`)
	return m
}

// response adds one <d:response>; found props go in a 200 propstat and
// missing ones in a 404 propstat.
func (m *multistatus) response(href string, found []propVal, missing []propName) {
	m.b.WriteString("<d:response><d:href>")
	m.b.WriteString(davText(href))
	m.b.WriteString("</d:href>")
	if len(found) > 0 {
		m.b.WriteString("<d:propstat><d:prop>")
		for _, p := range found {
			writePropElem(&m.b, p.name, p.inner)
		}
		m.b.WriteString("</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>")
	}
	if len(missing) > 0 {
		m.b.WriteString("<d:propstat><d:prop>")
		for _, p := range missing {
			writePropElem(&m.b, p, "")
		}
		m.b.WriteString("</d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>")
	}
	m.b.WriteString("</d:response>")
}

func (m *multistatus) write(w http.ResponseWriter) {
	m.b.WriteString("</d:multistatus>\n")
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.WriteHeader(http.StatusMultiStatus)
	_, _ = io.WriteString(w, m.b.String())
}

// writePropElem writes <prefix:local>inner</prefix:local>, declaring an
// x1 prefix for namespaces Nextcloud has no prefix for.
func writePropElem(b *strings.Builder, p propName, inner string) {
	prefix, ok := nsPrefix[p.ns]
	decl := ""
	switch {
	case !ok && p.ns == "":
		prefix = ""
	case !ok:
		prefix = "x1"
		decl = ` xmlns:x1="` + xmlEscape(p.ns) + `"`
	case p.ns == nsOCS:
		decl = ` xmlns:ocs="` + nsOCS + `"`
	}
	qname := p.local
	if prefix != "" {
		qname = prefix + ":" + p.local
	}
	if inner == "" {
		fmt.Fprintf(b, "<%s%s/>", qname, decl)
		return
	}
	fmt.Fprintf(b, "<%s%s>%s</%s>", qname, decl, inner, qname)
}

// writeDAVError writes a Sabre exception body.
func writeDAVError(w http.ResponseWriter, status int, class, msg string) {
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="Nextcloud", charset="UTF-8"`)
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="utf-8"?>
<d:error xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns">
  <s:exception>%s</s:exception>
  <s:message>%s</s:message>
</d:error>
`, davText(class), davText(msg))
}

// writeFSError writes err as a Sabre exception.
func writeFSError(w http.ResponseWriter, err error) {
	var fe *fsError
	if errors.As(err, &fe) {
		writeDAVError(w, fe.status, fe.class, fe.msg)
		return
	}
	writeDAVError(w, http.StatusInternalServerError, `Sabre\DAV\Exception`, err.Error())
}

// encodeDAVPath percent-encodes a path the way Sabre\HTTP\encodePath does.
func encodeDAVPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("_-.~()/:@", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// davText escapes element text the way Sabre's XML writer does: only
// &, < and > (quotes stay as they are, as in "etag").
func davText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// davHref builds the href of path p under base; folders end in "/".
func davHref(base, p string, isDir bool) string {
	href := encodeDAVPath(base + p)
	if p == "/" {
		href = encodeDAVPath(base) + "/"
	} else if isDir {
		href += "/"
	}
	return href
}

// davFileID is the oc:id of a file: the 8-digit id and the instance id.
func davFileID(id int64, instance string) string {
	return fmt.Sprintf("%08d%s", id, instance)
}
