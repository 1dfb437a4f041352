package chunk

import (
	"strings"
	"unicode"
)

// block is a unit of structure: a paragraph (lines up to a blank line), a
// heading or a fenced code block. Its span is trimmed of whitespace and
// lies on grapheme boundaries.
type block struct {
	start, end int
	level      int    // 1..6 for a heading, 0 otherwise
	title      string // a heading's text
}

// line is one line of the body, without its "\n".
type line struct{ start, end int }

func (t *text) lines() []line {
	var out []line
	s := 0
	for i, c := range t.r {
		if c == '\n' {
			out = append(out, line{s, i})
			s = i + 1
		}
	}
	return append(out, line{s, len(t.r)})
}

// parseBlocks parses the body into blocks and keeps them in t.blocks. It knows ATX headings ("## Title"),
// setext headings (a paragraph underlined with "===" or "---"), fenced code
// blocks (``` or ~~~, in which blank lines and "#" lines are plain content)
// and paragraphs separated by blank lines. Everything else is paragraph
// text: lists, tables and quotes pack like paragraphs.
func (t *text) parseBlocks() []block {
	var (
		out   []block
		para  []line // lines of the open paragraph
		fence string // the open code fence, "" outside code
		code  []line
	)
	closePara := func() {
		if len(para) > 0 {
			out = t.appendBlock(out, para[0].start, para[len(para)-1].end, 0, "")
			para = para[:0]
		}
	}
	for _, ln := range t.lines() {
		s := string(t.r[ln.start:ln.end])
		if fence != "" {
			code = append(code, ln)
			if closesFence(s, fence) {
				out = t.appendBlock(out, code[0].start, ln.end, 0, "")
				fence, code = "", code[:0]
			}
			continue
		}
		switch {
		case strings.TrimSpace(s) == "":
			closePara()
		case opensFence(s) != "":
			closePara()
			fence = opensFence(s)
			code = append(code[:0], ln)
		case atxLevel(s) > 0:
			closePara()
			out = t.appendBlock(out, ln.start, ln.end, atxLevel(s), atxTitle(s))
		case len(para) > 0 && setextLevel(s) > 0:
			var title []string
			for _, p := range para {
				title = append(title, strings.TrimSpace(string(t.r[p.start:p.end])))
			}
			out = t.appendBlock(out, para[0].start, ln.end, setextLevel(s), strings.Join(title, " "))
			para = para[:0]
		default:
			para = append(para, ln)
		}
	}
	closePara()
	if len(code) > 0 { // an unclosed fence runs to the end
		out = t.appendBlock(out, code[0].start, code[len(code)-1].end, 0, "")
	}
	t.blocks, t.marked = out, make([]bool, len(out))
	return out
}

// appendBlock appends the block [a, b), trimmed and aligned to grapheme
// boundaries, unless it is empty.
func (t *text) appendBlock(out []block, a, b, level int, title string) []block {
	a, b = t.trim(t.snapDown(a), t.snapUp(b))
	if a >= b {
		return out
	}
	return append(out, block{start: a, end: b, level: level, title: title})
}

// indent returns s without up to three leading spaces, and false if s is
// indented further (an indented code line in Markdown).
func indent(s string) (string, bool) {
	for i := 0; i < 3 && strings.HasPrefix(s, " "); i++ {
		s = s[1:]
	}
	return s, !strings.HasPrefix(s, " ") && !strings.HasPrefix(s, "\t")
}

func opensFence(s string) string {
	s, ok := indent(s)
	if !ok {
		return ""
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(s, f) {
			n := len(s) - len(strings.TrimLeft(s, f[:1]))
			return strings.Repeat(f[:1], n)
		}
	}
	return ""
}

func closesFence(s, fence string) bool {
	s, ok := indent(s)
	if !ok || !strings.HasPrefix(s, fence) {
		return false
	}
	return strings.TrimSpace(strings.TrimLeft(s, fence[:1])) == ""
}

func atxLevel(s string) int {
	s, ok := indent(s)
	if !ok {
		return 0
	}
	n := len(s) - len(strings.TrimLeft(s, "#"))
	if n < 1 || n > 6 {
		return 0
	}
	if rest := s[n:]; rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0
	}
	return n
}

func atxTitle(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSpace(strings.TrimLeft(s, "#"))
	// An optional closing sequence: "## Title ##".
	if trimmed := strings.TrimRight(s, "#"); trimmed != s && (trimmed == "" || strings.HasSuffix(trimmed, " ")) {
		s = strings.TrimSpace(trimmed)
	}
	return s
}

func setextLevel(s string) int {
	s, ok := indent(s)
	if !ok {
		return 0
	}
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	switch {
	case s != "" && strings.Trim(s, "=") == "":
		return 1
	case len(s) >= 2 && strings.Trim(s, "-") == "":
		return 2
	}
	return 0
}
