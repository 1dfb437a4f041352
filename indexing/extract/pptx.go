package extract

import (
	"encoding/xml"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// PresentationML and DrawingML namespaces.
const (
	nsA    = "http://schemas.openxmlformats.org/drawingml/2006/main"
	nsP    = "http://schemas.openxmlformats.org/presentationml/2006/main"
	nsRels = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
)

// pptx extracts a PowerPoint deck slide by slide, in presentation order:
// "## Slide N: title" (the title placeholder's text), the other shapes'
// paragraphs, table rows as lines of cells joined by " | ", then the
// speaker notes. Each slide is a page. Title comes from docProps/core.xml.
func (j *job) pptx() error {
	a, main, err := j.openOOXML("pptx", "ppt/presentation.xml")
	if err != nil {
		return err
	}
	for i, s := range a.pptxSlides(main) {
		bb := &blockBuffer{max: j.lim.maxRunes}
		w := &pptxWalker{out: bb}
		err := a.walk(s, w.token)
		if err == nil {
			for _, r := range a.rels(s) {
				if strings.HasSuffix(r.Type, "/notesSlide") && a.has(r.Target) {
					err = a.walk(r.Target, (&pptxWalker{out: bb, notes: true}).token)
				}
			}
		}
		if err != nil && !isStop(err) {
			return err
		}
		if serr := j.b.slide(i+1, w.title.String(), bb); serr != nil {
			return serr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var slideName = regexp.MustCompile(`^ppt/slides/slide(\d+)\.xml$`)

// pptxSlides lists the slide parts in presentation order, from the
// presentation's slide id list, or by file number when that is missing.
func (a *archive) pptxSlides(main string) []string {
	rels := a.rels(main)
	var out []string
	_ = a.walk(main, func(tok xml.Token) error {
		t, ok := tok.(xml.StartElement)
		if !ok || t.Name.Space != nsP || t.Name.Local != "sldId" {
			return nil
		}
		for _, at := range t.Attr {
			if at.Name.Space == nsRels && at.Name.Local == "id" {
				if r, ok := rels[at.Value]; ok && a.has(r.Target) {
					out = append(out, r.Target)
				}
			}
		}
		return nil
	})
	if len(out) > 0 {
		return out
	}
	type numbered struct {
		n    int
		name string
	}
	var found []numbered
	for name := range a.files {
		if m := slideName.FindStringSubmatch(name); m != nil {
			n, _ := strconv.Atoi(m[1])
			found = append(found, numbered{n, name})
		}
	}
	slices.SortFunc(found, func(x, y numbered) int { return x.n - y.n })
	for _, f := range found {
		out = append(out, f.name)
	}
	return out
}

// pptxWalker turns one slide's (or notes page's) tokens into blocks.
type pptxWalker struct {
	out    sink
	notes  bool
	shapes []string // placeholder type of each open shape, "" if none
	para   strings.Builder
	inPara bool
	inText bool
	tables []*docxTable
	title  strings.Builder
	skip   skipper
}

func (w *pptxWalker) token(tok xml.Token) error {
	if w.skip.inside(tok) {
		return nil
	}
	switch t := tok.(type) {
	case xml.StartElement:
		w.start(t)
	case xml.CharData:
		if w.inText && w.inPara {
			w.para.Write(t)
		}
	case xml.EndElement:
		return w.endElement(t)
	}
	return nil
}

func (w *pptxWalker) start(t xml.StartElement) {
	switch {
	case t.Name.Space == nsMC && t.Name.Local == "Fallback":
		w.skip.start()
	case t.Name.Space == nsP && t.Name.Local == "sp":
		w.shapes = append(w.shapes, "")
	case t.Name.Space == nsP && t.Name.Local == "ph":
		if n := len(w.shapes); n > 0 {
			w.shapes[n-1] = attr(t, "type")
			if w.shapes[n-1] == "" {
				w.shapes[n-1] = "body"
			}
		}
	case t.Name.Space != nsA:
	case t.Name.Local == "p":
		w.para.Reset()
		w.inPara = true
	case t.Name.Local == "t":
		w.inText = true
	case t.Name.Local == "br":
		w.para.WriteByte('\n')
	case t.Name.Local == "tbl":
		w.tables = append(w.tables, &docxTable{})
	case t.Name.Local == "tc":
		if n := len(w.tables); n > 0 {
			w.tables[n-1].cell.Reset()
		}
	}
}

func (w *pptxWalker) endElement(t xml.EndElement) error {
	if t.Name.Space == nsP && t.Name.Local == "sp" {
		if n := len(w.shapes); n > 0 {
			w.shapes = w.shapes[:n-1]
		}
		return nil
	}
	if t.Name.Space != nsA {
		return nil
	}
	switch t.Name.Local {
	case "t":
		w.inText = false
	case "p":
		w.inPara = false
		return w.endPara(w.para.String())
	case "tc":
		if n := len(w.tables); n > 0 {
			tb := w.tables[n-1]
			tb.row = append(tb.row, collapseSpace(tb.cell.String()))
		}
	case "tr":
		if n := len(w.tables); n > 0 {
			tb := w.tables[n-1]
			row := joinCells(tb.row)
			tb.row = tb.row[:0]
			return w.out.line(row)
		}
	case "tbl":
		if n := len(w.tables); n > 0 {
			w.tables = w.tables[:n-1]
			w.out.end()
		}
	}
	return nil
}

// endPara routes a paragraph to the slide title, a table cell or the
// slide's blocks; dates, footers, slide numbers and the notes page's slide
// image are left out.
func (w *pptxWalker) endPara(text string) error {
	if n := len(w.tables); n > 0 {
		appendCell(&w.tables[n-1].cell, text)
		return nil
	}
	kind := ""
	if n := len(w.shapes); n > 0 {
		kind = w.shapes[n-1]
	}
	switch kind {
	case "title", "ctrTitle":
		if !w.notes {
			appendCell(&w.title, text)
			return nil
		}
	case "dt", "ftr", "sldNum", "hdr", "sldImg":
		return nil
	}
	return w.out.para(text)
}
