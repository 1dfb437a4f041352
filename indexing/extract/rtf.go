package extract

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// maxRTFDepth bounds RTF group nesting.
const maxRTFDepth = 512

// rtf extracts RTF with a small control-word stripper: \par and \line
// break text, \'hh bytes are decoded in the document's code page (or the
// current font's charset), \uN gives Unicode (skipping its \ucN fallback),
// table cells are joined by " | ", paragraphs with an outline level become
// heading lines, and destinations that are not body text (font, colour and
// style tables, pictures, field instructions, \*\ groups, document info)
// are skipped. \info's \title becomes Title.
func (j *job) rtf() error {
	if !bytes.HasPrefix(bytes.TrimLeft(j.data, " \t\r\n"), []byte(`{\rtf`)) {
		return j.invalid(`corrupt rtf: no {\rtf header`)
	}
	p := &rtfParser{j: j, data: bytes.TrimLeft(j.data, " \t\r\n"), ansi: charmap.Windows1252,
		fonts: map[int]encoding.Encoding{}}
	p.st = rtfState{uc: 1}
	if err := p.run(); err != nil {
		return err
	}
	j.title = collapseSpace(clean(p.title.String()))
	return p.endPara()
}

// RTF destinations: where text in the current group goes.
const (
	rtfBody = iota
	rtfSkip
	rtfFontTable
	rtfInfo
	rtfTitle
)

type rtfState struct {
	dest int
	uc   int               // fallback bytes after \uN
	enc  encoding.Encoding // the current font's charset, nil for the ANSI code page
}

type rtfParser struct {
	j     *job
	data  []byte
	pos   int
	st    rtfState
	stack []rtfState

	ansi     encoding.Encoding
	fonts    map[int]encoding.Encoding // font number -> charset
	font     int                       // font being defined in the font table
	pending  []byte                    // undecoded text bytes
	fallback int                       // bytes still to skip after \uN
	high     rune                      // pending high surrogate from \uN

	text    strings.Builder // the current paragraph
	title   strings.Builder
	level   int // outline level of the current paragraph, 0 for body text
	inTable bool
	row     []string
}

func (p *rtfParser) run() error {
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		p.pos++
		switch c {
		case '{':
			p.flush()
			if len(p.stack) >= maxRTFDepth {
				return p.j.invalid("corrupt rtf: groups nested deeper than %d", maxRTFDepth)
			}
			p.stack = append(p.stack, p.st)
		case '}':
			p.flush()
			p.fallback = 0
			if n := len(p.stack); n > 0 {
				p.st = p.stack[n-1]
				p.stack = p.stack[:n-1]
			}
		case '\\':
			if err := p.control(); err != nil {
				return err
			}
		case '\r', '\n':
		default:
			p.byteOf(c)
		}
	}
	p.flush()
	return nil
}

// byteOf takes one text byte, unless it is part of a \uN fallback.
func (p *rtfParser) byteOf(c byte) {
	if p.fallback > 0 {
		p.fallback--
		return
	}
	if p.st.dest == rtfBody || p.st.dest == rtfTitle {
		p.pending = append(p.pending, c)
	}
}

// flush decodes pending bytes in the current charset.
func (p *rtfParser) flush() {
	if len(p.pending) == 0 {
		return
	}
	enc := p.st.enc
	if enc == nil {
		enc = p.ansi
	}
	s, _ := decodeWith(enc, p.pending)
	p.pending = p.pending[:0]
	p.emit(s)
}

func (p *rtfParser) emit(s string) {
	switch p.st.dest {
	case rtfBody:
		p.text.WriteString(s)
	case rtfTitle:
		p.title.WriteString(s)
	}
}

// control handles what follows a backslash.
func (p *rtfParser) control() error {
	if p.pos >= len(p.data) {
		return nil
	}
	c := p.data[p.pos]
	if !isASCIILetter(c) {
		p.pos++
		return p.symbol(c)
	}
	start := p.pos
	for p.pos < len(p.data) && p.pos-start < 32 && isASCIILetter(p.data[p.pos]) {
		p.pos++
	}
	word := string(p.data[start:p.pos])
	pstart := p.pos
	if p.pos < len(p.data) && p.data[p.pos] == '-' {
		p.pos++
	}
	for p.pos < len(p.data) && p.pos-pstart < 10 && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	param, err := strconv.Atoi(string(p.data[pstart:p.pos]))
	hasParam := err == nil
	if p.pos < len(p.data) && p.data[p.pos] == ' ' {
		p.pos++
	}
	p.flush()
	if word == "u" && hasParam {
		p.unicode(param)
		return nil
	}
	p.high = 0
	return p.word(word, param, hasParam)
}

// symbol handles a control symbol: \'hh, \*, escaped braces and so on.
func (p *rtfParser) symbol(c byte) error {
	switch c {
	case '\'':
		if p.pos+2 > len(p.data) {
			return nil
		}
		b, err := strconv.ParseUint(string(p.data[p.pos:p.pos+2]), 16, 8)
		p.pos += 2
		if err == nil {
			p.byteOf(byte(b))
		}
		return nil
	case '*':
		p.st.dest = rtfSkip
	case '{', '}', '\\':
		p.byteOf(c)
	case '~':
		p.flush()
		p.emit("\u00a0")
	case '_':
		p.flush()
		p.emit("-")
	case '\r', '\n':
		p.flush()
		return p.endPara()
	}
	return nil
}

// unicode handles \uN: N is a signed 16-bit UTF-16 code unit.
func (p *rtfParser) unicode(n int) {
	p.fallback = p.st.uc
	r := rune(n)
	if r < 0 {
		r += 65536
	}
	switch {
	case utf16.IsSurrogate(r) && r < 0xDC00:
		p.high = r
		return
	case utf16.IsSurrogate(r) && p.high != 0:
		r = utf16.DecodeRune(p.high, r)
	}
	p.high = 0
	p.emit(string(r))
}

// rtfSkipped are destinations whose text is not part of the body.
var rtfSkipped = map[string]bool{
	"colortbl": true, "stylesheet": true, "listtable": true, "listoverridetable": true,
	"revtbl": true, "rsidtbl": true, "generator": true, "xmlnstbl": true, "themedata": true,
	"colorschememapping": true, "latentstyles": true, "datastore": true, "pict": true,
	"object": true, "fldinst": true, "pgdsctbl": true, "filetbl": true, "mmathPr": true,
	"header": true, "headerl": true, "headerr": true, "headerf": true, "footer": true,
	"footerl": true, "footerr": true, "footerf": true, "pntext": true, "pntxta": true,
	"pntxtb": true, "listtext": true, "bkmkstart": true, "bkmkend": true, "author": true,
	"operator": true, "company": true, "keywords": true, "comment": true, "doccomm": true,
	"subject": true, "category": true, "manager": true, "hlinkbase": true, "nonshppict": true,
}

// rtfChars are control words that stand for a character.
var rtfChars = map[string]string{
	"tab": "\t", "line": "\n", "emdash": "\u2014", "endash": "\u2013", "bullet": "\u2022",
	"lquote": "\u2018", "rquote": "\u2019", "ldblquote": "\u201c", "rdblquote": "\u201d",
	"emspace": " ", "enspace": " ", "qmspace": " ",
}

// word handles a control word.
func (p *rtfParser) word(w string, param int, hasParam bool) error {
	if rtfSkipped[w] {
		p.st.dest = rtfSkip
		return nil
	}
	if s, ok := rtfChars[w]; ok {
		p.emit(s)
		return nil
	}
	switch w {
	case "bin":
		if hasParam && param > 0 {
			p.pos = min(p.pos+param, len(p.data))
		}
	case "fonttbl":
		p.st.dest = rtfFontTable
	case "info":
		p.st.dest = rtfInfo
	case "title":
		if p.st.dest == rtfInfo {
			p.st.dest = rtfTitle
		}
	case "ansicpg":
		if e := codePage(param); e != nil {
			p.ansi = e
		}
	case "uc":
		if hasParam && param >= 0 && param < 10 {
			p.st.uc = param
		}
	case "f":
		if p.st.dest == rtfFontTable {
			p.font = param
		} else {
			p.st.enc = p.fonts[param]
		}
	case "fcharset":
		if p.st.dest == rtfFontTable {
			p.fonts[p.font] = fontCharset(param)
		}
	case "par", "sect", "page":
		return p.endPara()
	case "pard":
		p.inTable, p.level = false, 0
	case "intbl":
		p.inTable = true
	case "outlinelevel":
		if hasParam && param >= 0 && param < 9 {
			p.level = param + 1
		}
	case "cell", "nestcell":
		p.row = append(p.row, collapseSpace(clean(p.text.String())))
		p.text.Reset()
	case "row", "nestrow":
		row := joinCells(p.row)
		p.row = p.row[:0]
		return p.j.b.line(row)
	}
	return nil
}

// endPara writes the current paragraph; inside a table it stays in the
// current cell.
func (p *rtfParser) endPara() error {
	if p.inTable {
		p.text.WriteByte(' ')
		return nil
	}
	s := p.text.String()
	p.text.Reset()
	if p.level > 0 {
		return p.j.b.heading(p.level, s)
	}
	return p.j.b.para(s)
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
