package extract

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// html extracts an HTML page: <title> becomes Title, h1-h6 heading lines,
// block elements paragraphs, list items "- " lines, table rows lines of
// cells joined by " | "; script, style, nav and similar are dropped.
func (j *job) html() error {
	title, err := htmlInto(j.b, j.data)
	j.title = title
	if err != nil && strings.Contains(err.Error(), "open stack of elements exceeds") {
		// x/net/html refuses documents nested deeper than 512 open
		// elements; the file is not corrupt, it is too deep to read.
		return j.invalid("html nested deeper than %d elements", maxHTMLOpenElements)
	}
	return j.corrupt(err, "html")
}

// maxHTMLOpenElements is x/net/html's limit on open elements (parse.go,
// insertOpenElement); Parse fails past it.
const maxHTMLOpenElements = 512

// htmlInto writes the HTML document in data to b and returns its title.
func htmlInto(b *builder, data []byte) (string, error) {
	doc, err := html.Parse(strings.NewReader(htmlDecode(data)))
	if err != nil {
		return "", err
	}
	w := &htmlWalker{b: b}
	if err := w.walk(doc, 0); err != nil {
		return w.title, err
	}
	return w.title, w.flush()
}

// htmlDecode returns an HTML document as UTF-8: as it is when it is valid
// UTF-8, else in the charset its BOM or <meta> declares, else Windows-1252.
func htmlDecode(data []byte) string {
	if utf8.Valid(data) {
		return strings.TrimPrefix(string(data), "\uFEFF")
	}
	e, _, _ := charset.DetermineEncoding(data, "text/html")
	s, _ := decodeWith(e, data)
	return s
}

// maxHTMLDepth is how deep walk recurses; deeper subtrees are flattened to
// their text without recursion.
const maxHTMLDepth = 200

// htmlWalker writes an HTML tree to a builder, gathering inline text of the
// current block in buf.
type htmlWalker struct {
	b     *builder
	buf   strings.Builder
	space bool // whitespace seen since the last rune in buf
	pre   int  // depth inside <pre>
	lists []htmlList
	item  string // prefix of the pending list item's first line
	title string
}

type htmlList struct {
	ordered bool
	n       int
}

func (w *htmlWalker) walk(n *html.Node, depth int) error {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return nil
	case html.ElementNode:
	case html.DocumentNode:
		return w.children(n, depth)
	default:
		return nil
	}
	if htmlSkipped(n) {
		return nil
	}
	if depth > maxHTMLDepth {
		w.text(" " + htmlText(n) + " ")
		return nil
	}
	switch a := n.DataAtom; a {
	case atom.Title:
		if w.title == "" {
			w.title = htmlText(n)
		}
		return nil
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		if err := w.flush(); err != nil {
			return err
		}
		return w.b.heading(int(a.String()[1]-'0'), htmlText(n))
	case atom.Br:
		w.buf.WriteByte('\n')
		w.space = false
		return nil
	case atom.Tr:
		if err := w.flush(); err != nil {
			return err
		}
		return w.row(n)
	case atom.Ul, atom.Ol, atom.Menu:
		if err := w.flush(); err != nil {
			return err
		}
		if len(w.lists) == 0 {
			w.b.end()
		}
		w.lists = append(w.lists, htmlList{ordered: a == atom.Ol})
		err := w.children(n, depth)
		if err == nil {
			err = w.flush()
		}
		w.lists = w.lists[:len(w.lists)-1]
		if len(w.lists) == 0 {
			w.b.end()
		}
		return err
	case atom.Li:
		if err := w.flush(); err != nil {
			return err
		}
		w.item = "- "
		if l := len(w.lists); l > 0 && w.lists[l-1].ordered {
			w.lists[l-1].n++
			w.item = fmt.Sprintf("%d. ", w.lists[l-1].n)
		}
		if err := w.children(n, depth); err != nil {
			return err
		}
		return w.flush()
	case atom.Pre:
		if err := w.flush(); err != nil {
			return err
		}
		w.pre++
		err := w.children(n, depth)
		if err == nil {
			err = w.flush()
		}
		w.pre--
		return err
	case atom.Table:
		if err := w.flush(); err != nil {
			return err
		}
		w.b.end()
		err := w.children(n, depth)
		w.b.end()
		return err
	}
	if !htmlBlock[n.DataAtom] {
		return w.children(n, depth)
	}
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.children(n, depth); err != nil {
		return err
	}
	return w.flush()
}

func (w *htmlWalker) children(n *html.Node, depth int) error {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if err := w.walk(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// text adds inline text, collapsing whitespace outside <pre>.
func (w *htmlWalker) text(s string) {
	if w.pre > 0 {
		w.buf.WriteString(s)
		return
	}
	for _, r := range s {
		if unicode.IsSpace(r) {
			w.space = true
			continue
		}
		if w.space && w.buf.Len() > 0 && !strings.HasSuffix(w.buf.String(), "\n") {
			w.buf.WriteByte(' ')
		}
		w.space = false
		w.buf.WriteRune(r)
	}
}

// flush writes the gathered inline text as a paragraph, or as a list line
// inside a list.
func (w *htmlWalker) flush() error {
	s := w.buf.String()
	w.buf.Reset()
	w.space = false
	if w.pre > 0 {
		s = strings.Trim(s, "\n")
	} else {
		s = strings.TrimSpace(s)
	}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	if len(w.lists) == 0 && w.item == "" {
		if w.pre > 0 {
			return w.b.raw(s)
		}
		return w.b.para(s)
	}
	indent := strings.Repeat("  ", max(len(w.lists)-1, 0))
	prefix := "  "
	if w.item != "" {
		prefix, w.item = w.item, ""
	}
	return w.b.line(indent + prefix + collapseSpace(s))
}

// row writes a table row as its cells joined by " | ".
func (w *htmlWalker) row(tr *html.Node) error {
	var cells []string
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
			cells = append(cells, htmlText(c))
		}
	}
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	return w.b.line(strings.Join(cells, " | "))
}

// htmlText returns the text inside n with whitespace collapsed, walking
// the subtree without recursion.
func htmlText(n *html.Node) string {
	var sb strings.Builder
	c := n.FirstChild
	for c != nil {
		descend := true
		switch c.Type {
		case html.TextNode:
			sb.WriteString(c.Data)
		case html.ElementNode:
			if htmlSkipped(c) {
				descend = false
			} else if htmlBlock[c.DataAtom] || c.DataAtom == atom.Br || c.DataAtom == atom.Td || c.DataAtom == atom.Th || c.DataAtom == atom.Li {
				sb.WriteByte(' ')
			}
		}
		if descend && c.FirstChild != nil {
			c = c.FirstChild
			continue
		}
		for c != n && c.NextSibling == nil {
			c = c.Parent
		}
		if c == n {
			break
		}
		c = c.NextSibling
	}
	return collapseSpace(sb.String())
}

// htmlSkipped reports elements whose content is not text for a reader.
func htmlSkipped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Nav, atom.Noscript, atom.Template, atom.Svg, atom.Math,
		atom.Iframe, atom.Object, atom.Embed, atom.Canvas, atom.Audio, atom.Video:
		return true
	}
	for _, a := range n.Attr {
		if a.Key == "hidden" || (a.Key == "aria-hidden" && a.Val == "true") {
			return true
		}
	}
	return false
}

// htmlBlock lists the elements that end the paragraph before them and
// start a new one.
var htmlBlock = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.Header: true, atom.Footer: true, atom.Aside: true, atom.Blockquote: true,
	atom.Address: true, atom.Figure: true, atom.Figcaption: true, atom.Dl: true, atom.Dt: true,
	atom.Dd: true, atom.Form: true, atom.Fieldset: true, atom.Legend: true, atom.Details: true,
	atom.Summary: true, atom.Caption: true, atom.Hr: true, atom.Center: true, atom.Body: true,
	atom.Html: true, atom.Hgroup: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true,
}
