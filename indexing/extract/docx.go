package extract

import (
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
)

// nsW is WordprocessingML's main namespace.
const nsW = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

// docx extracts a Word document: the main document, then footnotes and
// endnotes. Paragraphs whose style (or direct outline level) makes them
// headings become heading lines, list paragraphs "- " lines, table rows
// lines of cells joined by " | ". Deleted revisions, field codes and the
// fallback copies of text boxes are skipped. Title comes from
// docProps/core.xml.
func (j *job) docx() error {
	a, main, err := j.openOOXML("docx", "word/document.xml")
	if err != nil {
		return err
	}
	w := &docxWalker{b: j.b, styles: a.docxStyles(main)}
	parts := []string{main}
	for _, r := range a.rels(main) {
		if strings.HasSuffix(r.Type, "/footnotes") || strings.HasSuffix(r.Type, "/endnotes") {
			parts = append(parts, r.Target)
		}
	}
	for i, p := range parts {
		if i > 0 && !a.has(p) {
			continue
		}
		if err := a.walk(p, w.token); err != nil {
			return err
		}
		w.b.end()
	}
	return nil
}

// docxWalker turns WordprocessingML tokens into blocks.
type docxWalker struct {
	b      *builder
	styles map[string]int // paragraph style id -> heading level
	paras  []*docxPara    // open paragraphs; text boxes nest them
	tables []*docxTable   // open tables
	inText bool           // inside w:t
	runs   int            // open w:r
	skip   skipper
}

type docxPara struct {
	sb     strings.Builder
	style  string
	level  int // heading level from a direct outline level, 0 if none
	list   bool
	indent int // list level, 0 at the top
	tables int // open tables when the paragraph started
}

type docxTable struct {
	row  []string
	cell strings.Builder
}

func (w *docxWalker) token(tok xml.Token) error {
	if w.skip.inside(tok) {
		return nil
	}
	switch t := tok.(type) {
	case xml.StartElement:
		w.start(t)
	case xml.CharData:
		if w.inText && len(w.paras) > 0 {
			w.paras[len(w.paras)-1].sb.Write(t)
		}
	case xml.EndElement:
		return w.endElement(t)
	}
	return nil
}

func (w *docxWalker) start(t xml.StartElement) {
	if t.Name.Space == nsMC && t.Name.Local == "Fallback" {
		w.skip.start()
		return
	}
	if t.Name.Space != nsW {
		return
	}
	p := w.para()
	switch t.Name.Local {
	case "p":
		w.paras = append(w.paras, &docxPara{tables: len(w.tables)})
	case "pStyle":
		if p != nil {
			p.style = attr(t, "val")
		}
	case "outlineLvl":
		if n, err := strconv.Atoi(attr(t, "val")); p != nil && err == nil && n < 9 {
			p.level = n + 1
		}
	case "numPr":
		if p != nil {
			p.list = true
		}
	case "ilvl":
		if n, err := strconv.Atoi(attr(t, "val")); p != nil && err == nil && n > 0 && n < 9 {
			p.indent = n
		}
	case "r":
		w.runs++
	case "t":
		w.inText = true
	case "tab":
		if p != nil && w.runs > 0 {
			p.sb.WriteByte('\t')
		}
	case "br", "cr":
		if p != nil && w.runs > 0 {
			p.sb.WriteByte('\n')
		}
	case "noBreakHyphen":
		if p != nil {
			p.sb.WriteByte('-')
		}
	case "delText", "instrText", "delInstrText", "footnote", "endnote":
		if t.Name.Local == "footnote" || t.Name.Local == "endnote" {
			if typ := attr(t, "type"); typ == "" || typ == "normal" {
				return
			}
		}
		w.skip.start()
	case "tbl":
		if len(w.tables) == 0 {
			w.b.end()
		}
		w.tables = append(w.tables, &docxTable{})
	case "tc":
		if n := len(w.tables); n > 0 {
			w.tables[n-1].cell.Reset()
		}
	}
}

func (w *docxWalker) endElement(t xml.EndElement) error {
	if t.Name.Space != nsW {
		return nil
	}
	switch t.Name.Local {
	case "t":
		w.inText = false
	case "r":
		w.runs--
	case "p":
		if len(w.paras) == 0 {
			return nil
		}
		p := w.paras[len(w.paras)-1]
		w.paras = w.paras[:len(w.paras)-1]
		return w.endPara(p)
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
			if n > 1 {
				appendCell(&w.tables[n-2].cell, row)
				return nil
			}
			return w.b.line(row)
		}
	case "tbl":
		if n := len(w.tables); n > 0 {
			w.tables = w.tables[:n-1]
			if n == 1 {
				w.b.end()
			}
		}
	}
	return nil
}

func (w *docxWalker) para() *docxPara {
	if len(w.paras) == 0 {
		return nil
	}
	return w.paras[len(w.paras)-1]
}

// endPara writes a finished paragraph, or adds it to the table cell it
// sits in.
func (w *docxWalker) endPara(p *docxPara) error {
	text := p.sb.String()
	if n := len(w.tables); n > 0 && p.tables == n {
		appendCell(&w.tables[n-1].cell, text)
		return nil
	}
	level := p.level
	if level == 0 {
		level = w.styles[p.style]
	}
	switch {
	case level > 0:
		return w.b.heading(level, text)
	case p.list:
		return w.b.line(strings.Repeat("  ", p.indent) + "- " + collapseSpace(text))
	}
	return w.b.para(text)
}

// appendCell adds text to a table cell, a space apart from what is there.
func appendCell(cell *strings.Builder, text string) {
	text = collapseSpace(text)
	if text == "" {
		return
	}
	if cell.Len() > 0 {
		cell.WriteByte(' ')
	}
	cell.WriteString(text)
}

// joinCells joins a row's cells with " | ", leaving out trailing empty
// cells.
func joinCells(cells []string) string {
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	return strings.TrimLeft(strings.Join(cells, " | "), " ")
}

// headingName matches the built-in heading style names ("heading 1") and
// the style ids Word derives from them ("Heading1").
var headingName = regexp.MustCompile(`^(?i)heading ?([1-9])$`)

// docxStyles maps the document's paragraph style ids to heading levels:
// from a style's outline level, else its name ("heading 2", "Title"),
// else the style it is based on. Localised Word keeps the English names
// in styles.xml, so "Überschrift 1" still reads as level 1.
func (a *archive) docxStyles(main string) map[string]int {
	type style struct {
		name, basedOn string
		outline       int
	}
	styles := map[string]*style{}
	var cur *style
	name := "word/styles.xml"
	for _, r := range a.rels(main) {
		if strings.HasSuffix(r.Type, "/styles") {
			name = r.Target
		}
	}
	_ = a.walk(name, func(tok xml.Token) error {
		t, ok := tok.(xml.StartElement)
		if !ok || t.Name.Space != nsW {
			return nil
		}
		switch t.Name.Local {
		case "style":
			cur = &style{}
			styles[attr(t, "styleId")] = cur
		case "name":
			if cur != nil {
				cur.name = attr(t, "val")
			}
		case "basedOn":
			if cur != nil {
				cur.basedOn = attr(t, "val")
			}
		case "outlineLvl":
			if n, err := strconv.Atoi(attr(t, "val")); cur != nil && err == nil && n < 9 {
				cur.outline = n + 1
			}
		}
		return nil
	})
	levelOf := func(id string, s *style) int {
		switch m := headingName.FindStringSubmatch(s.name); {
		case s.outline > 0:
			return s.outline
		case m != nil:
			return int(m[1][0] - '0')
		case strings.EqualFold(s.name, "title"):
			return 1
		}
		if m := headingName.FindStringSubmatch(id); m != nil {
			return int(m[1][0] - '0')
		}
		return 0
	}
	out := map[string]int{}
	for id, s := range styles {
		cur := id
		for hop := 0; s != nil && hop < 10; hop++ {
			if l := levelOf(cur, s); l > 0 {
				out[id] = l
				break
			}
			cur, s = s.basedOn, styles[s.basedOn]
		}
	}
	if len(styles) == 0 { // no styles part: trust Word's usual ids
		out["Title"] = 1
		for l := 1; l <= 6; l++ {
			out["Heading"+strconv.Itoa(l)] = l
		}
	}
	return out
}
