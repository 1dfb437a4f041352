package extract

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"
)

// OpenDocument namespaces.
const (
	nsText         = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	nsTable        = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	nsDraw         = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
	nsOffice       = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	nsPresentation = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
)

// Caps on ODF repetition attributes: repeated empty cells and rows are
// counted, never materialised; repeated content is written at most this
// often.
const (
	maxEmptyCells   = 256 // empty cells kept between two filled ones
	maxRepeatCells  = 64
	maxRepeatRows   = 100
	maxRepeatAttr   = 1 << 24
	maxSpacesInText = 100
)

// odf extracts ODT, ODS and ODP from content.xml: text:h become heading
// lines at their outline level, text:p paragraphs (text in nested spans,
// links, notes and frames kept), list items "- " lines, table rows lines of
// cells joined by " | ". ODS sheets start with "## Sheet: name"; ODP slides
// with "## Slide N: title" and are recorded as pages. Title comes from
// meta.xml.
func (j *job) odf() error {
	a, err := j.openZip()
	if err != nil {
		return err
	}
	if !a.has("content.xml") {
		return j.invalid("corrupt %s: no content.xml", j.format)
	}
	if manifest, err := a.readAll("META-INF/manifest.xml"); err == nil && bytes.Contains(manifest, []byte("encryption-data")) {
		return j.invalid("encrypted %s", j.format)
	}
	j.title = a.dcTitle("meta.xml")
	w := &odfWalker{b: j.b, out: j.b, format: j.format, max: j.lim.maxRunes}
	err = a.walk("content.xml", w.token)
	if w.slide != nil { // cut short inside a slide: keep what it had
		if serr := w.endSlide(); err == nil {
			err = serr
		}
	}
	return err
}

// odfWalker turns OpenDocument content tokens into blocks.
type odfWalker struct {
	b      *builder
	out    sink // b, or the current slide's buffer
	format format
	max    int

	paras  []*odfPara // open paragraphs; notes and frames nest them
	tables []*odfTable
	lists  int
	item   bool // the next paragraph starts a list item
	skip   skipper

	slides int          // slides begun
	slide  *blockBuffer // the open slide, nil outside one
	frames []bool       // open frames: whether each is a slide title
	title  strings.Builder
}

type odfPara struct {
	sb     strings.Builder
	level  int // outline level of a text:h, 0 for text:p
	item   bool
	tables int // open tables when the paragraph started
}

type odfTable struct {
	row        []string
	cell       strings.Builder
	cellRepeat int
	rowRepeat  int
	empty      int // empty cells not yet written
}

func (w *odfWalker) token(tok xml.Token) error {
	if w.skip.inside(tok) {
		return nil
	}
	switch t := tok.(type) {
	case xml.StartElement:
		return w.start(t)
	case xml.CharData:
		if p := w.para(); p != nil {
			p.sb.Write(t)
		}
	case xml.EndElement:
		return w.endElement(t)
	}
	return nil
}

func (w *odfWalker) para() *odfPara {
	if len(w.paras) == 0 {
		return nil
	}
	return w.paras[len(w.paras)-1]
}

func (w *odfWalker) start(t xml.StartElement) error {
	switch t.Name.Space {
	case nsText:
		w.startText(t)
	case nsOffice:
		if t.Name.Local == "annotation" || t.Name.Local == "forms" || t.Name.Local == "event-listeners" {
			w.skip.start()
		}
	case nsTable:
		return w.startTable(t)
	case nsDraw:
		switch t.Name.Local {
		case "page":
			if w.format == fmtODP && w.slide == nil {
				w.slides++
				w.slide = &blockBuffer{max: w.max}
				w.out = w.slide
				w.title.Reset()
			}
		case "frame":
			w.frames = append(w.frames, w.slide != nil && attr(t, "class") == "title")
		}
	}
	return nil
}

func (w *odfWalker) startText(t xml.StartElement) {
	p := w.para()
	switch t.Name.Local {
	case "h":
		level, err := strconv.Atoi(attr(t, "outline-level"))
		if err != nil || level < 1 {
			level = 1
		}
		w.paras = append(w.paras, &odfPara{level: level, item: w.item, tables: len(w.tables)})
		w.item = false
	case "p":
		w.paras = append(w.paras, &odfPara{item: w.item, tables: len(w.tables)})
		w.item = false
	case "s":
		n, err := strconv.Atoi(attr(t, "c"))
		if err != nil || n < 1 {
			n = 1
		}
		if p != nil {
			p.sb.WriteString(strings.Repeat(" ", min(n, maxSpacesInText)))
		}
	case "tab":
		if p != nil {
			p.sb.WriteByte('\t')
		}
	case "line-break":
		if p != nil {
			p.sb.WriteByte('\n')
		}
	case "list":
		w.lists++
	case "list-item", "list-header":
		w.item = true
	case "note-citation", "tracked-changes", "table-of-content", "sequence-decls",
		"variable-decls", "user-field-decls", "alphabetical-index", "illustration-index":
		w.skip.start()
	}
}

func (w *odfWalker) startTable(t xml.StartElement) error {
	switch t.Name.Local {
	case "table":
		if len(w.tables) == 0 {
			w.out.end()
		}
		w.tables = append(w.tables, &odfTable{})
		if w.format == fmtODS && len(w.tables) == 1 {
			return w.out.heading(2, "Sheet: "+attr(t, "name"))
		}
	case "table-row":
		if tb := w.table(); tb != nil {
			tb.row, tb.empty = tb.row[:0], 0
			tb.rowRepeat = repeatAttr(t, "number-rows-repeated")
		}
	case "table-cell", "covered-table-cell":
		if tb := w.table(); tb != nil {
			tb.cell.Reset()
			tb.cellRepeat = repeatAttr(t, "number-columns-repeated")
		}
	case "named-expressions", "database-ranges", "content-validations":
		w.skip.start()
	}
	return nil
}

func (w *odfWalker) table() *odfTable {
	if len(w.tables) == 0 {
		return nil
	}
	return w.tables[len(w.tables)-1]
}

// repeatAttr reads a repetition count: 1 when absent or bad, capped at
// maxRepeatAttr.
func repeatAttr(t xml.StartElement, local string) int {
	n, err := strconv.Atoi(attr(t, local))
	if err != nil || n < 1 {
		return 1
	}
	return min(n, maxRepeatAttr)
}

func (w *odfWalker) endElement(t xml.EndElement) error {
	switch t.Name.Space {
	case nsText:
		switch t.Name.Local {
		case "h", "p":
			if len(w.paras) == 0 {
				return nil
			}
			p := w.paras[len(w.paras)-1]
			w.paras = w.paras[:len(w.paras)-1]
			return w.endPara(p)
		case "list":
			if w.lists--; w.lists == 0 {
				w.out.end()
			}
		case "list-item", "list-header":
			w.item = false
		}
	case nsTable:
		return w.endTable(t)
	case nsDraw:
		switch t.Name.Local {
		case "frame":
			if n := len(w.frames); n > 0 {
				w.frames = w.frames[:n-1]
			}
		case "page":
			if w.slide != nil {
				return w.endSlide()
			}
		}
	}
	return nil
}

func (w *odfWalker) endSlide() error {
	bb := w.slide
	w.slide, w.out = nil, w.b
	return w.b.slide(w.slides, w.title.String(), bb)
}

// endPara writes a finished paragraph, or adds it to the slide title or
// table cell it belongs to.
func (w *odfWalker) endPara(p *odfPara) error {
	text := p.sb.String()
	for _, title := range w.frames {
		if title {
			appendCell(&w.title, text)
			return nil
		}
	}
	if n := len(w.tables); n > 0 && p.tables == n {
		appendCell(&w.tables[n-1].cell, text)
		return nil
	}
	indent := strings.Repeat("  ", max(w.lists-1, 0))
	switch {
	case p.level > 0:
		return w.out.heading(p.level, text)
	case p.item:
		return w.out.line(indent + "- " + collapseSpace(text))
	case w.lists > 0:
		return w.out.line(indent + "  " + collapseSpace(text))
	}
	return w.out.para(text)
}

func (w *odfWalker) endTable(t xml.EndElement) error {
	tb := w.table()
	if tb == nil {
		return nil
	}
	switch t.Name.Local {
	case "table-cell", "covered-table-cell":
		text := collapseSpace(tb.cell.String())
		if text == "" {
			tb.empty = min(tb.empty+tb.cellRepeat, maxRepeatAttr)
			return nil
		}
		for range min(tb.empty, maxEmptyCells) {
			tb.row = append(tb.row, "")
		}
		tb.empty = 0
		for range min(tb.cellRepeat, maxRepeatCells) {
			tb.row = append(tb.row, text)
		}
	case "table-row":
		row := strings.Join(tb.row, " | ")
		if row == "" {
			return nil
		}
		if n := len(w.tables); n > 1 {
			appendCell(&w.tables[n-2].cell, row)
			return nil
		}
		for range min(tb.rowRepeat, maxRepeatRows) {
			if err := w.out.line(row); err != nil {
				return err
			}
		}
	case "table":
		w.tables = w.tables[:len(w.tables)-1]
		if len(w.tables) == 0 {
			w.out.end()
		}
	}
	return nil
}
