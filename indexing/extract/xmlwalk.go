package extract

import (
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strings"

	"golang.org/x/net/html/charset"
)

// maxXMLDepth bounds element nesting in any XML this package reads.
const maxXMLDepth = 1000

// Namespaces the walkers match on.
const (
	nsDC = "http://purl.org/dc/elements/1.1/"
	nsMC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

// walkXML streams the tokens of an XML document to fn. strict decoders
// reject malformed XML (the office formats); lenient ones accept HTML
// entities and sloppy markup (generic XML files). The depth is bounded and
// the context checked as it goes. CharData passed to fn is only valid
// during the call.
func (j *job) walkXML(r io.Reader, strict bool, fn func(xml.Token) error) error {
	d := xml.NewDecoder(r)
	d.CharsetReader = charset.NewReaderLabel
	if !strict {
		d.Strict = false
		d.Entity = xml.HTMLEntity
	}
	depth := 0
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := j.ctx.Err(); err != nil {
				return err
			}
		}
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth++; depth > maxXMLDepth {
				return j.invalid("xml nested deeper than %d", maxXMLDepth)
			}
		case xml.EndElement:
			depth--
		}
		if err := fn(tok); err != nil {
			return err
		}
	}
}

// walk streams the named zip entry's XML to fn through the zip guard.
func (a *archive) walk(name string, fn func(xml.Token) error) error {
	rc, err := a.open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := a.j.walkXML(rc, true, fn); err != nil {
		return a.j.corrupt(err, name)
	}
	return nil
}

// attr returns the value of the attribute with the given local name.
func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// skipper skips whole subtrees of a token stream: after start, inside
// reports true until the matching end element has passed.
type skipper struct{ depth int }

// inside reports whether tok is within a skipped subtree, updating the
// depth; call start on the start element of a subtree to skip.
func (s *skipper) inside(tok xml.Token) bool {
	if s.depth == 0 {
		return false
	}
	switch tok.(type) {
	case xml.StartElement:
		s.depth++
	case xml.EndElement:
		s.depth--
	}
	return true
}

func (s *skipper) start() { s.depth = 1 }

// dcTitle returns the first dc:title in the named entry (OOXML
// docProps/core.xml, ODF meta.xml, EPUB's package document), "" when
// there is none.
func (a *archive) dcTitle(name string) string {
	var sb strings.Builder
	in, done := false, false
	err := a.walk(name, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			in = !done && t.Name.Space == nsDC && t.Name.Local == "title"
		case xml.CharData:
			if in {
				sb.Write(t)
			}
		case xml.EndElement:
			if in {
				in, done = false, true
			}
		}
		return nil
	})
	if err != nil && isStop(err) {
		return ""
	}
	return collapseSpace(clean(sb.String()))
}

// rel is one OOXML relationship.
type rel struct {
	Type   string // the full type URI
	Target string // the target's entry name
}

// rels reads the relationships of the part at name ("ppt/presentation.xml"
// reads "ppt/_rels/presentation.xml.rels"), keyed by id; targets are
// resolved to entry names and external ones are left out.
func (a *archive) rels(name string) map[string]rel {
	dir, file := path.Split(name)
	out := map[string]rel{}
	_ = a.walk(dir+"_rels/"+file+".rels", func(tok xml.Token) error {
		t, ok := tok.(xml.StartElement)
		if !ok || t.Name.Local != "Relationship" || attr(t, "TargetMode") == "External" {
			return nil
		}
		target := attr(t, "Target")
		if strings.HasPrefix(target, "/") {
			target = strings.TrimPrefix(target, "/")
		} else {
			target = path.Join(dir, target)
		}
		out[attr(t, "Id")] = rel{Type: attr(t, "Type"), Target: target}
		return nil
	})
	return out
}

// mainPart returns the target of the package relationship whose type ends
// in suffix ("/officeDocument"), or fallback when there is none.
func (a *archive) mainPart(suffix, fallback string) string {
	for _, r := range a.rels("") {
		if strings.HasSuffix(r.Type, suffix) && a.has(r.Target) {
			return r.Target
		}
	}
	return fallback
}

// openOOXML opens an Office Open XML package: the zip (through the zip
// guard), its main part (found through the package relationships, else
// fallback) and the title from docProps/core.xml. kind names the format in
// the error for a package without its main part.
func (j *job) openOOXML(kind, fallback string) (*archive, string, error) {
	a, err := j.openZip()
	if err != nil {
		return nil, "", err
	}
	main := a.mainPart("/officeDocument", fallback)
	if !a.has(main) {
		return nil, "", j.invalid("corrupt %s: no %s", kind, main)
	}
	j.title = a.dcTitle("docProps/core.xml")
	return a, main, nil
}
